/* sc_shadow.h - what the modules that load their vendor's libraries at run time share (AMD,
 * Ascend; comm/shadow/ holds the names they serve): opening a library by its sonames (a folder
 * the environment names first), resolving an entry point into a slot, and a call's name in the
 * vendor's words for messages. */
#ifndef SC_SHADOW_H
#define SC_SHADOW_H

#include <stdbool.h>
#include <stddef.h>

/* The first of names (n of them) that loads, from the folder getenv(dir_env) names and then the
 * loader's path; NULL with the first and last name tried and dlerror in why. */
void *sc_shadow_open(const char *dir_env, const char *const *names, size_t n, char *why,
                     size_t len);
/* dlsym into *slot; false (why names the library and the entry point) where lib lacks it. */
bool sc_shadow_sym(void *lib, const char *lib_name, const char *name, void *slot, char *why,
                   size_t len);
/* what with every prefix-match of a from replaced by its to (the first in table order), into
 * buf: "cudaMalloc failed" -> "hipMalloc failed". */
typedef struct {
    const char *from, *to;
} sc_shadow_name_t;
const char *sc_shadow_rename(const char *what, const sc_shadow_name_t *names, size_t n, char *buf,
                             size_t len);

#endif
