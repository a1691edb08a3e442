/* sc_status.h - one status type for all of scalecheck, and the error record that carries
 * context (what failed, on which rank and host) up to the command that reports it.
 *
 * The list of statuses is kept once, in SC_STATUS_MAP; its columns are the enum name, the
 * process exit code it maps to, and a short human description. */
#ifndef SC_STATUS_H
#define SC_STATUS_H

#include <stdarg.h>
#include <stddef.h>

/* name, exit code, description */
#define SC_STATUS_MAP(X)                                                                           \
    X(OK, SC_EXIT_GOOD, "success")                                                                 \
    X(ERR_CHECK, SC_EXIT_FAILED, "data check or expectation failed")                               \
    X(ERR_USAGE, SC_EXIT_USAGE, "bad usage")                                                       \
    X(ERR_INPUT, SC_EXIT_USAGE, "bad input")                                                       \
    X(ERR_UNSUPPORTED, SC_EXIT_USAGE, "not supported here")                                        \
    X(ERR_RUNTIME, SC_EXIT_FAULT, "runtime fault")                                                 \
    X(ERR_TIMEOUT, SC_EXIT_FAULT, "timed out")                                                     \
    X(ERR_PEER, SC_EXIT_FAULT, "a peer failed")                                                    \
    X(ERR_NOMEM, SC_EXIT_FAULT, "out of memory")                                                   \
    X(ERR_IO, SC_EXIT_FAULT, "I/O error")

typedef enum {
#define SC__STATUS_ENUM(name, code, text) SC_##name,
    SC_STATUS_MAP(SC__STATUS_ENUM)
#undef SC__STATUS_ENUM
        SC_STATUS_COUNT
} sc_status_t;

/* The process's exit codes, listed once: help, the man pages, the README's table (a test holds
 * it equal) and every command's ending take them from here.
 * name, code, brief (help's one line), meaning (the README's and the man page's). */
#define SC_EXIT_MAP(X)                                                                             \
    X(GOOD, 0, "good", "every check passed or warned (or nothing was held to a topology)")         \
    X(FAILED, 1, "a check failed",                                                                 \
      "a check failed or data came back wrong: the verdict says which")                            \
    X(USAGE, 2, "bad usage or input",                                                              \
      "bad usage or input: one line naming the flag or file:line:column; nothing on disk")         \
    X(FAULT, 3, "a runtime fault",                                                                 \
      "a runtime fault: a rank or link failed, a wait passed its bound; the culprits named")       \
    X(INTERRUPTED, 4, "interrupted",                                                               \
      "interrupted (SIGINT, SIGTERM, SIGHUP); what finished is kept")                              \
    X(INCONCLUSIVE, 5, "inconclusive",                                                             \
      "inconclusive: checks failed while the machine was disturbed (other load, no `/sys`)")

enum {
#define SC__EXIT_ENUM(name, code, brief, meaning) SC_EXIT_##name = code,
    SC_EXIT_MAP(SC__EXIT_ENUM)
#undef SC__EXIT_ENUM
};

typedef struct {
    int code;
    const char *brief, *meaning;
} sc_exit_code_t;
/* The exit codes in order (n of them). */
const sc_exit_code_t *sc_exit_codes(size_t *n);
/* "0 good, 1 a check failed, ..., 5 inconclusive" into buf (returned). */
const char *sc_exit_codes_line(char *buf, size_t len);

/* Exit code the contract assigns to a status (SC_EXIT_*). */
int sc_status_exit_code(sc_status_t status);

#define SC_ERR_MSG_MAX 1024

/* An error as it travels up: the status and a message that already names the context. The
 * function that first sees a failure fills it; callers only pass the status up. */
typedef struct {
    sc_status_t status;
    char msg[SC_ERR_MSG_MAX];
} sc_err_t;

/* Records status and a printf-style message in err (when err is not NULL); returns status so
 * that callers can write `return sc_err_set(err, SC_ERR_INPUT, "...")`. The message may wrap
 * err->msg itself ("--flag: %s", err->msg). */
sc_status_t sc_err_set(sc_err_t *err, sc_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void sc_err_clear(sc_err_t *err);

#endif
