#include "sc_names.h"

#include <stdio.h>
#include <ctype.h>
#include <stdint.h>
#include <string.h>

int sc_names_find(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

size_t sc_names_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 99;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb];
}

bool sc_names_close(const char *name, size_t distance)
{
    return distance <= 3 && distance * 3 <= strlen(name) + 2;
}

const char *sc_names_nearest(const char *const *names, int count, const char *name)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (int i = 0; i < count; i++) {
        size_t d = sc_names_distance(name, names[i]);
        if (d < best_d && sc_names_close(name, d)) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
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
    const char *near = sc_names_nearest(names, count, text);
    return sc_err_set(err, SC_ERR_USAGE, "%s: unknown %s '%s' (%s%s%svalid: %s%s%s)", flag, what,
                      text, near ? "did you mean '" : "", near ? near : "", near ? "'?; " : "",
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
