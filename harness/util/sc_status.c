#include "sc_status.h"

#include <stdio.h>
#include <string.h>

static const int status__exit_codes[] = {
#define SC__STATUS_CODE(name, code, text) code,
    SC_STATUS_MAP(SC__STATUS_CODE)
#undef SC__STATUS_CODE
};

int sc_status_exit_code(sc_status_t status)
{
    if (status < 0 || status >= SC_STATUS_COUNT)
        return 3;
    return status__exit_codes[status];
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

void sc_err_clear(sc_err_t *err)
{
    if (err != NULL) {
        err->status = SC_OK;
        err->msg[0] = '\0';
    }
}
