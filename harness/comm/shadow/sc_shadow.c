/* sc_shadow.c - the run-time loading and naming the AMD and Ascend modules share (sc_shadow.h). */
#include "sc_shadow.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *sc_shadow_open(const char *dir_env, const char *const *names, size_t n, char *why, size_t len)
{
    const char *dir = getenv(dir_env);
    char path[1024];
    for (size_t i = 0; dir != NULL && dir[0] != '\0' && i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL)
            return h;
    }
    for (size_t i = 0; i < n; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h != NULL)
            return h;
    }
    if (n > 1)
        snprintf(why, len, "cannot load %s (nor %s): %s", names[0], names[n - 1], dlerror());
    else
        snprintf(why, len, "cannot load %s: %s", names[0], dlerror());
    return NULL;
}

bool sc_shadow_sym(void *lib, const char *lib_name, const char *name, void *slot, char *why,
                   size_t len)
{
    void *sym = dlsym(lib, name);
    memcpy(slot, &sym, sizeof(sym)); /* ISO C: no object-to-function cast */
    if (sym == NULL)
        snprintf(why, len, "%s has no %s", lib_name, name);
    return sym != NULL;
}

const char *sc_shadow_rename(const char *what, const sc_shadow_name_t *names, size_t n, char *buf,
                             size_t len)
{
    size_t used = 0;
    while (*what != '\0' && used + 1 < len) {
        size_t i = 0;
        while (i < n && strncmp(what, names[i].from, strlen(names[i].from)) != 0)
            i++;
        if (i < n) {
            used += (size_t)snprintf(buf + used, len - used, "%s", names[i].to);
            what += strlen(names[i].from);
        } else {
            buf[used++] = *what++;
        }
    }
    buf[used < len ? used : len - 1] = '\0';
    return buf;
}
