/* sc_names.h - looking a name up in a table of names (the X-macro tables of types, reductions,
 * GEMM types, ...) and listing the table for an error message. */
#ifndef SC_NAMES_H
#define SC_NAMES_H

#include <stddef.h>

/* The index of name in names[0..count), or -1. */
int sc_names_find(const char *const *names, int count, const char *name);

/* "a, b, c" into buf (cut at len). */
void sc_names_join(const char *const *names, int count, char *buf, size_t len);

#endif
