#include "sc_status.h"

#include <stdio.h>
#include <string.h>

static const int status__exit_codes[] = {
#define SC__STATUS_CODE(name, code, text) code,
    SC_STATUS_MAP(SC__STATUS_CODE)
#undef SC__STATUS_CODE
};

static const sc_exit_code_t status__exits[] = {
#define SC__EXIT_ROW(name, code, brief, meaning) {code, brief, meaning},
    SC_EXIT_MAP(SC__EXIT_ROW)
#undef SC__EXIT_ROW
};

const sc_exit_code_t *sc_exit_codes(size_t *n)
{
    *n = sizeof(status__exits) / sizeof(status__exits[0]);
    return status__exits;
}

const char *sc_exit_codes_line(char *buf, size_t len)
{
    size_t n, used = 0;
    const sc_exit_code_t *codes = sc_exit_codes(&n);
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%d %s", i ? ", " : "", codes[i].code,
                         codes[i].brief);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

int sc_status_exit_code(sc_status_t status)
{
    if (status < 0 || status >= SC_STATUS_COUNT)
        return SC_EXIT_FAULT;
    return status__exit_codes[status];
}

sc_status_t sc_err_set(sc_err_t *err, sc_status_t status, const char *fmt, ...)
{
    if (err != NULL) {
        /* formatted aside first: a message that wraps the error's own ("--resume: %s",
         * err->msg) must not read what it is overwriting */
        char msg[sizeof(err->msg)];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        err->status = status;
        memcpy(err->msg, msg, sizeof(msg));
    }
    return status;
}

void sc_err_clear(sc_err_t *err)
{
    if (err != NULL) {
        err->status = SC_OK;
        err->msg[0] = '\0';
    }
}
