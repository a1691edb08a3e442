/* sc_cli_values.c - the values each option takes, for the shell completion that
 * scripts/gen-docs.sh generates: taken from where the program itself takes them (the shipped
 * files' folders, the collective registry, the data-type, reduction and algorithm tables), so that
 * a new collective or a new shipped topology completes without a line here. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "coll/sc_coll.h"
#include "topology/sc_topology.h"
#include "util/sc_dtype.h"
#include "util/sc_files.h"

#define VALUES__MAX 256

typedef struct {
    const char *words[VALUES__MAX];
    int n;
    char stems[VALUES__MAX][SC_FILES_STEM_MAX]; /* shipped names */
} values__t;

static void values__add(values__t *v, const char *word)
{
    if (v->n < VALUES__MAX)
        v->words[v->n++] = word;
}

static int values__cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Shipped files of a kind ("topologies"), sorted: readdir's order is the disk's. */
static void values__shipped(values__t *v, const char *kind)
{
    char dirs[SC_FILES_DIRS_MAX];
    int n =
        sc_files_shipped_names(sc_files_data_dirs(kind, dirs, sizeof(dirs)), v->stems, VALUES__MAX);
    for (int i = 0; i < n; i++)
        values__add(v, v->stems[i]);
    qsort(v->words, (size_t)v->n, sizeof(v->words[0]), values__cmp);
}

/* A metavar that lists its choices ("spin|gemm", "N|auto"): the words among them. */
static void values__choices(values__t *v, const char *metavar, char *buf, size_t len)
{
    if (metavar == NULL || strchr(metavar, '|') == NULL)
        return;
    snprintf(buf, len, "%s", metavar);
    char *save = NULL;
    for (char *w = strtok_r(buf, "|", &save); w != NULL; w = strtok_r(NULL, "|", &save))
        if (islower((unsigned char)w[0]))
            values__add(v, w);
}

/* The option's values; an option whose help offers "all" completes it too. */
static void values__of(const sc_cli_opt_t *o, values__t *v, char *buf, size_t len)
{
    const char *name = o->long_name;
    if (!strcmp(name, "topology"))
        values__shipped(v, "topologies");
    else if (!strcmp(name, "workload"))
        values__shipped(v, "workloads");
    else if (!strcmp(name, "collective"))
        for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++)
            values__add(v, (*c)->name);
    else if (!strcmp(name, "datatype"))
        for (int t = 0; t < SC_DTYPE_COUNT; t++)
            values__add(v, sc_dtype_name((sc_dtype_t)t));
    else if (!strcmp(name, "op"))
        for (int r = 0; r < SC_REDOP_COUNT; r++)
            values__add(v, sc_redop_name((sc_redop_t)r));
    else if (!strcmp(name, "algo"))
        for (int a = 0; a < SC_ALGO_COUNT; a++)
            values__add(v, sc_algo_name(a));
    else
        values__choices(v, o->metavar, buf, len);
    if (v->n > 0 && o->help != NULL && strstr(o->help, " or all") != NULL)
        values__add(v, "all");
}

void sc_cli_print_values(const sc_cli_opt_t *table, FILE *out)
{
    values__t *v = malloc(sizeof(*v));
    if (v == NULL)
        return;
    for (const sc_cli_opt_t *o = table; o->long_name != NULL; o++) {
        char buf[256];
        v->n = 0;
        values__of(o, v, buf, sizeof(buf));
        if (v->n == 0)
            continue;
        if (o->short_name)
            fprintf(out, "-%c|", o->short_name);
        fprintf(out, "--%s", o->long_name);
        for (int i = 0; i < v->n; i++)
            fprintf(out, " %s", v->words[i]);
        fputc('\n', out);
    }
    free(v);
}
