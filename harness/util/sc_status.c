#include "sc_status.h"

#include <stdio.h>
#include <string.h>

static const int sc__exit_codes[] = {
#define SC__STATUS_CODE(name, code, text) code,
    SC_STATUS_MAP(SC__STATUS_CODE)
#undef SC__STATUS_CODE
};

static const char *const sc__status_texts[] = {
#define SC__STATUS_TEXT(name, code, text) text,
    SC_STATUS_MAP(SC__STATUS_TEXT)
#undef SC__STATUS_TEXT
};

int sc_status_exit_code(sc_status_t status)
{
    if (status < 0 || status >= SC_STATUS_COUNT)
        return 3;
    return sc__exit_codes[status];
}

const char *sc_status_str(sc_status_t status)
{
    if (status < 0 || status >= SC_STATUS_COUNT)
        return "unknown status";
    return sc__status_texts[status];
}

sc_status_t sc_err_set(sc_err_t *err, sc_status_t status, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        err->status = status;
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return status;
}

void sc_err_prefix(sc_err_t *err, const char *fmt, ...)
{
    if (err == NULL)
        return;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    size_t plen = strnlen(prefix, sizeof(prefix) - 3);
    memcpy(prefix + plen, ": ", 3);
    plen += 2;
    size_t mlen = strnlen(err->msg, sizeof(err->msg) - 1);
    if (plen + mlen >= sizeof(err->msg))
        mlen = sizeof(err->msg) - 1 - plen;
    memmove(err->msg + plen, err->msg, mlen);
    memcpy(err->msg, prefix, plen);
    err->msg[plen + mlen] = '\0';
}

void sc_err_clear(sc_err_t *err)
{
    if (err != NULL) {
        err->status = SC_OK;
        err->msg[0] = '\0';
    }
}
