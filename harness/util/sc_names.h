/* sc_names.h - looking a name up in a table of names (the X-macro tables of types, reductions,
 * GEMM types, ...) and listing the table for an error message. */
#ifndef SC_NAMES_H
#define SC_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "util/sc_status.h"

/* The index of name in names[0..count), or -1. */
int sc_names_find(const char *const *names, int count, const char *name);

/* Levenshtein distance between two names (99 past 63 characters). */
size_t sc_names_distance(const char *a, const char *b);
/* Whether a name `distance` edits from another is close enough to suggest: at most 3 edits, and
 * fewer for short names ("colll": coll, "tq": tp; "bogus" is not "ngpus"). */
bool sc_names_close(const char *name, size_t distance);
/* A close match for a misspelt name: the nearest close one of names[0..count), or NULL. */
const char *sc_names_nearest(const char *const *names, int count, const char *name);

/* "a, b, c" into buf (cut at len). */
void sc_names_join(const char *const *names, int count, char *buf, size_t len);

/* Bad usage: "FLAG: unknown WHAT 'TEXT' (did you mean 'b'?; valid: a, b, c[, ALSO])" (also:
 * NULL for none; the suggestion where one is close). */
sc_status_t sc_names_unknown(const char *const *names, int count, const char *flag,
                             const char *what, const char *text, const char *also, sc_err_t *err);

/* The one rule for names that become part of a path or are printed (run names, workload and
 * topology names): 1-63 characters of letters, digits, '.', '_', '+' and '-', not starting with
 * '.' or '-' (no '/', no "..", no blanks, no control characters). */
#define SC_NAME_RULE "1-63 letters, digits, '.', '_', '+' or '-', not starting with '.' or '-'"
bool sc_name_ok(const char *name);

#endif
