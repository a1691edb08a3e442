/* sc_drive_coll_choices.c - the combinations of NCCL_ALGO and NCCL_PROTO a coll run sweeps
 * (sc_drive_coll_choices.h). */
#include "drive/sc_drive_coll_choices.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "comm/sc_comm_ops.h"
#include "drive/sc_drive_coll_run.h"
#include "session/sc_results.h"
#include "topology/sc_topology.h"

/* NCCL_PROTO's values as NCCL's documentation spells them. */
static const char *const choices__protos[] = {"LL", "LL128", "Simple"};

/* A comma list (or `all`) of names into values (NULL list: one empty value, NCCL's choice). */
static sc_status_t choices__list(const char *flag, const char *list, bool protocol,
                                 char (*values)[32], int max, int *n, sc_err_t *err)
{
    *n = 0;
    if (list == NULL) {
        values[(*n)++][0] = '\0';
        return SC_OK;
    }
    char copy[256];
    snprintf(copy, sizeof(copy), "%s",
             strcasecmp(list, "all") == 0 ? (protocol ? "LL,LL128,Simple" : "ring,tree,nvls,sharp")
                                          : list);
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (*n == max)
            return sc_err_set(err, SC_ERR_USAGE, "%s: more than %d values", flag, max);
        const char *value = NULL;
        if (protocol) {
            for (size_t i = 0; i < sizeof(choices__protos) / sizeof(*choices__protos); i++)
                if (strcasecmp(tok, choices__protos[i]) == 0)
                    value = choices__protos[i];
            if (value == NULL)
                return sc_err_set(err, SC_ERR_USAGE,
                                  "%s: '%s' is not one of LL, LL128, Simple, all", flag, tok);
        } else {
            int algo = 0;
            sc_status_t status = sc_topology_algo_choose(flag, tok, NULL, &algo, err);
            if (status != SC_OK)
                return status;
            value = sc_topology_algo_nccl(algo); /* NULL: auto, NCCL's own choice */
        }
        snprintf(values[(*n)++], 32, "%s", value != NULL ? value : "");
    }
    return *n > 0 ? SC_OK : sc_err_set(err, SC_ERR_USAGE, "%s: empty list", flag);
}

sc_status_t sc_coll_choices_parse(const char *algo, const char *proto, sc_coll_choice_t *out,
                                  int *n, sc_err_t *err)
{
    char algos[SC_COLL_CHOICES_MAX][32], protos[SC_COLL_CHOICES_MAX][32];
    int na = 0, np = 0;
    *n = 0;
    sc_status_t status = choices__list("--algo", algo, false, algos, SC_COLL_CHOICES_MAX, &na, err);
    if (status == SC_OK)
        status = choices__list("--proto", proto, true, protos, SC_COLL_CHOICES_MAX, &np, err);
    if (status != SC_OK)
        return status;
    if (proto == NULL && na == 1) /* one algorithm: the run's single choice, set once */
        return SC_OK;
    if (na * np > SC_COLL_CHOICES_MAX)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--algo x --proto: %d combinations, more than %d in one run", na * np,
                          SC_COLL_CHOICES_MAX);
    for (int a = 0; a < na; a++)
        for (int p = 0; p < np; p++) {
            snprintf(out[*n].algo, sizeof(out[*n].algo), "%s", algos[a]);
            snprintf(out[*n].proto, sizeof(out[*n].proto), "%s", protos[p]);
            (*n)++;
        }
    return SC_OK;
}

void sc_coll_choice_apply(const sc_coll_choice_t *c)
{
    if (c->algo[0] != '\0')
        setenv("NCCL_ALGO", c->algo, 1);
    else
        unsetenv("NCCL_ALGO");
    if (c->proto[0] != '\0')
        setenv("NCCL_PROTO", c->proto, 1);
    else
        unsetenv("NCCL_PROTO");
}

const char *sc_coll_choice_words(const sc_coll_choice_t *c, char *buf, size_t len)
{
    if (c->algo[0] == '\0' && c->proto[0] == '\0')
        snprintf(buf, len, "NCCL's own choice");
    else
        snprintf(buf, len, "%s%s%s%s%s", c->algo[0] ? "NCCL_ALGO=" : "", c->algo,
                 c->algo[0] && c->proto[0] ? " " : "", c->proto[0] ? "NCCL_PROTO=" : "", c->proto);
    return buf;
}

/* Whether two rows are the same case (all but the combination). */
static bool choices__same_case(const sc_case_row_t *a, const sc_case_row_t *b)
{
    return strcmp(a->collective, b->collective) == 0 && a->size_bytes == b->size_bytes &&
           strcmp(a->dtype, b->dtype) == 0 && strcmp(a->op, b->op) == 0 && a->root == b->root &&
           a->in_place == b->in_place && a->cycle == b->cycle;
}

int sc_coll_choices_fastest(const sc_case_rows_t *rows, void (*line)(void *ctx, const char *s),
                            void *ctx)
{
    int cases = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const sc_case_row_t *r = &rows->items[i];
        bool first = true, several = false;
        size_t best = i;
        for (size_t j = 0; j < rows->n && first; j++) {
            const sc_case_row_t *o = &rows->items[j];
            if (j == i || !choices__same_case(r, o))
                continue;
            first = j > i; /* the case is said once, at its first row */
            several = true;
            if (o->time_us < rows->items[best].time_us)
                best = j;
        }
        if (!first || !several)
            continue;
        char s[512];
        const sc_case_row_t *b = &rows->items[best];
        size_t used = (size_t)snprintf(s, sizeof(s), "%s %llu B %s%s: fastest %s (%s/%s) %.1f us",
                                       r->collective, (unsigned long long)r->size_bytes, r->dtype,
                                       r->in_place ? " in place" : "", b->nccl_asked,
                                       b->nccl_algo[0] ? b->nccl_algo : "?",
                                       b->nccl_proto[0] ? b->nccl_proto : "?", b->time_us);
        for (size_t j = i; j < rows->n && used < sizeof(s); j++) {
            const sc_case_row_t *o = &rows->items[j];
            if (j != best && (j == i || choices__same_case(r, o)))
                used += (size_t)snprintf(s + used, sizeof(s) - used, "; %s %.1f us", o->nccl_asked,
                                         o->time_us);
        }
        line(ctx, s);
        cases++;
    }
    return cases;
}

/* A communicator for the combination now in the environment (NCCL reads NCCL_ALGO and
 * NCCL_PROTO when one is made: a split of the world), and an engine on it. */
static sc_status_t choices__open(sc_coll_run_t *run, sc_comm_t **comm, sc_engine_t **eng,
                                 sc_err_t *err)
{
    sc_watchdog_arm(run->ses.wd, "a communicator for the next NCCL_ALGO/NCCL_PROTO",
                    run->ses.world->world_rank, run->ses.world->size);
    sc_status_t status = sc_comm_split(run->ses.world, 0, run->rte->rank, comm, err);
    sc_watchdog_disarm(run->ses.wd);
    if (status == SC_OK)
        status = sc_engine_create(*comm, run->rte->world, &run->opts.eng, run->ses.wd, eng, err);
    return status;
}

static void choices__close(sc_comm_t **comm, sc_engine_t **eng)
{
    sc_engine_destroy(*eng);
    *eng = NULL;
    if (*comm != NULL)
        sc_comm_close(*comm);
    *comm = NULL;
}

/* The fastest combination of each case, under the table. */
static void choices__fastest_line(void *ctx, const char *s)
{
    sc_coll_run_t *run = ctx;
    sc_results_printf(&run->ses.res, "#   %s\n", s);
}

/* Every collective asked for under one combination; a collective NCCL refuses under it (no
 * algorithm or protocol left for it: a runtime error on every rank) is said and left out, the
 * rest go on, on a fresh communicator. */
static sc_status_t choices__sweep_one(sc_coll_run_t *run, uint32_t colls, sc_err_t *err)
{
    sc_comm_t *comm = NULL;
    sc_engine_t *eng = NULL, *world_eng = run->eng;
    sc_status_t status = SC_OK;
    for (const sc_coll_t *const *cp = sc_coll_list(); *cp != NULL && status == SC_OK; cp++) {
        uint32_t bit = 1u << (cp - sc_coll_list());
        if (!(colls & bit))
            continue;
        if (comm == NULL)
            status = choices__open(run, &comm, &eng, err);
        run->eng = eng;
        run->opts.colls = bit;
        if (status == SC_OK)
            status = sc_coll_sweep_colls(run, err);
        char why[sizeof(err->msg)];
        snprintf(why, sizeof(why), "%s", status != SC_OK ? err->msg : "");
        status = sc_rte_agree(run->rte, status, why, sizeof(why), err);
        if (status == SC_ERR_RUNTIME) { /* refused: said, and the next on a new communicator */
            if (run->rte->rank == 0)
                sc_results_printf(&run->ses.res, "# %s: not run under %s: %s\n", (*cp)->name,
                                  run->asked, why);
            choices__close(&comm, &eng);
            status = SC_OK;
        }
    }
    run->eng = world_eng;
    choices__close(&comm, &eng);
    return status;
}

/* --algo/--proto lists: the sweep once per combination, then the fastest of each case. */
sc_status_t sc_coll_sweep_choices(sc_coll_run_t *run, sc_err_t *err)
{
    uint32_t colls = run->opts.colls;
    bool all = run->opts.all_colls;
    run->opts.all_colls = false;
    sc_status_t status = SC_OK;
    for (int k = 0; k < run->nchoices && status == SC_OK; k++) {
        sc_coll_choice_apply(&run->choices[k]);
        sc_coll_choice_words(&run->choices[k], run->asked, sizeof(run->asked));
        if (run->rte->rank == 0)
            sc_results_printf(&run->ses.res, "#\n# --- %s\n", run->asked);
        status = choices__sweep_one(run, colls, err);
    }
    run->opts.colls = colls;
    run->opts.all_colls = all;
    run->asked[0] = '\0';
    if (status == SC_OK)
        status = sc_coll_measured_some(run, err);
    if (status == SC_OK && run->rte->rank == 0) {
        sc_results_printf(&run->ses.res, "#\n# fastest combination per case:\n");
        sc_coll_choices_fastest(&run->doc.cases, choices__fastest_line, run);
    }
    return status;
}
