/* sc_names.h - looking a name up in a table of names (the X-macro tables of types, reductions,
 * GEMM types, ...) and listing the table for an error message. */
#ifndef SC_NAMES_H
#define SC_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "util/sc_status.h"

/* The index of name in names[0..count), or -1. */
int sc_names_find(const char *const *names, int count, const char *name);

/* "a, b, c" into buf (cut at len). */
void sc_names_join(const char *const *names, int count, char *buf, size_t len);

/* Bad usage: "FLAG: unknown WHAT 'TEXT' (valid: a, b, c[, ALSO])" (also: NULL for none). */
sc_status_t sc_names_unknown(const char *const *names, int count, const char *flag,
                             const char *what, const char *text, const char *also, sc_err_t *err);

/* The one rule for names that become part of a path or are printed (run names, workload and
 * topology names): 1-63 characters of letters, digits, '.', '_', '+' and '-', not starting with
 * '.' or '-' (no '/', no "..", no blanks, no control characters). */
#define SC_NAME_RULE "1-63 letters, digits, '.', '_', '+' or '-', not starting with '.' or '-'"
bool sc_name_ok(const char *name);

#endif
