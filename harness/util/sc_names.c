#include "sc_names.h"

#include <stdio.h>
#include <ctype.h>
#include <string.h>

int sc_names_find(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

void sc_names_join(const char *const *names, int count, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
}

sc_status_t sc_names_unknown(const char *const *names, int count, const char *flag,
                             const char *what, const char *text, const char *also, sc_err_t *err)
{
    char list[256];
    sc_names_join(names, count, list, sizeof(list));
    return sc_err_set(err, SC_ERR_USAGE, "%s: unknown %s '%s' (valid: %s%s%s)", flag, what, text,
                      list, also ? ", " : "", also ? also : "");
}

bool sc_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 63 || name[0] == '.' || name[0] == '-')
        return false;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && strchr("._+-", *c) == NULL)
            return false;
    return true;
}
