/* sc_status.h - one status type for all of scalecheck, and the error record that carries
 * context (what failed, on which rank and host) up to the command that reports it.
 *
 * The list of statuses is kept once, in SC_STATUS_MAP; its columns are the enum name, the
 * process exit code it maps to, and a short human description. */
#ifndef SC_STATUS_H
#define SC_STATUS_H

#include <stdarg.h>

/* name, exit code, description */
#define SC_STATUS_MAP(X)                                                                           \
    X(OK, 0, "success")                                                                            \
    X(ERR_CHECK, 1, "data check or expectation failed")                                            \
    X(ERR_USAGE, 2, "bad usage")                                                                   \
    X(ERR_INPUT, 2, "bad input")                                                                   \
    X(ERR_UNSUPPORTED, 2, "not supported here")                                                    \
    X(ERR_RUNTIME, 3, "runtime fault")                                                             \
    X(ERR_TIMEOUT, 3, "timed out")                                                                 \
    X(ERR_PEER, 3, "a peer failed")                                                                \
    X(ERR_NOMEM, 3, "out of memory")                                                               \
    X(ERR_IO, 3, "I/O error")

typedef enum {
#define SC__STATUS_ENUM(name, code, text) SC_##name,
    SC_STATUS_MAP(SC__STATUS_ENUM)
#undef SC__STATUS_ENUM
        SC_STATUS_COUNT
} sc_status_t;

/* Exit code the contract assigns to a status: 0 good, 1 check failed, 2 usage/input,
 * 3 runtime fault. */
int sc_status_exit_code(sc_status_t status);

#define SC_ERR_MSG_MAX 1024

/* An error as it travels up: the status and a message that already names the context. The
 * function that first sees a failure fills it; callers only pass the status up. */
typedef struct {
    sc_status_t status;
    char msg[SC_ERR_MSG_MAX];
} sc_err_t;

/* Records status and a printf-style message in err (when err is not NULL); returns status so
 * that callers can write `return sc_err_set(err, SC_ERR_INPUT, "...")`. */
sc_status_t sc_err_set(sc_err_t *err, sc_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void sc_err_clear(sc_err_t *err);

#endif
