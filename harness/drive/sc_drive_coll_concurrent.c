/* sc_drive_coll_concurrent.c - `coll --concurrent`: traffic that collides as training makes it.
 * TP groups of consecutive ranks (a host's ranks unless --tp says), DP groups across them (the
 * ranks at the same place in each TP group) and an all-to-all over every rank (the experts'),
 * each on a communicator of its own; every size is timed with each kind alone, then with all of
 * them at once (patterns/sc_collide.h). A row per group and kind: its time alone and under the
 * others' load and the slowdown; a check per kind names the group slowed most. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm/sc_comm_ops.h"
#include "drive/sc_drive_coll_run.h"
#include "judge/sc_traffic_verdict.h"
#include "patterns/sc_collide.h"
#include "util/sc_defaults.h"
#include "util/sc_size.h"
#include "util/sc_stats.h"

enum { CONC_TP, CONC_DP, CONC_A2A, CONC_KINDS };

/* The kinds, in the order their flows start on every rank. */
static const struct {
    const char *name;
    sc_coll_id_t coll;
} conc__kinds[CONC_KINDS] = {
    {"tp", SC_COLL_allreduce}, {"dp", SC_COLL_allreduce}, {"a2a", SC_COLL_alltoall}};

#define CONC__DEFAULT_ITERS 20 /* -n auto: rounds per size and phase */

typedef struct {
    sc_coll_run_t *run;
    int tp;         /* ranks in a TP group */
    unsigned kinds; /* bit k: kind k runs */
    sc_flow_t flows[CONC_KINDS];
    void *buf[CONC_KINDS];
    size_t buf_bytes; /* each of send and receive, per kind */
    int iters, warmup;
    double *us; /* CONC_KINDS x iters: a phase's times on this rank */
} conc_t;

/* A kind's group of a rank: TP by consecutive blocks, DP by place in the block, one a2a. */
static int conc__color(const conc_t *c, int kind, int rank)
{
    return kind == CONC_TP ? rank / c->tp : kind == CONC_DP ? rank % c->tp : 0;
}

static int conc__group_size(const conc_t *c, int kind, int size)
{
    return kind == CONC_TP ? c->tp : kind == CONC_DP ? size / c->tp : size;
}

/* LIST's kinds into bits, those the launch cannot run refused (named) or, from all, left out. */
static sc_status_t conc__parse(const char *list, int tp, const sc_rte_t *rte, unsigned *kinds,
                               sc_err_t *err)
{
    *kinds = 0;
    char words[128];
    snprintf(words, sizeof(words), "%s", list);
    for (char *save = NULL, *w = strtok_r(words, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < CONC_KINDS && strcmp(w, conc__kinds[k].name) != 0)
            k++;
        if (strcmp(w, "all") == 0)
            *kinds |= (1u << CONC_KINDS) - 1;
        else if (k == CONC_KINDS)
            return sc_err_set(err, SC_ERR_USAGE,
                              "--concurrent: '%s' is not one of tp, dp, a2a, all", w);
        else
            *kinds |= 1u << k;
    }
    int per_group = tp > 0 ? tp : rte->size / (rte->nhosts > 0 ? rte->nhosts : 1);
    if (tp > 0 && rte->size % tp != 0)
        return sc_err_set(err, SC_ERR_USAGE, "--tp %d: does not divide the %d ranks", tp,
                          rte->size);
    bool all = strstr(list, "all") != NULL;
    const char *why[CONC_KINDS] = {
        per_group < 2 ? "TP groups of one rank (one rank a host: give --tp N)" : NULL,
        rte->size / per_group < 2 ? "one TP group, no DP across groups" : NULL,
        rte->size < 2 ? "one rank" : NULL};
    for (int k = 0; k < CONC_KINDS; k++) {
        if (!(*kinds & 1u << k) || why[k] == NULL)
            continue;
        if (!all)
            return sc_err_set(err, SC_ERR_USAGE, "--concurrent %s: %s on %d ranks",
                              conc__kinds[k].name, why[k], rte->size);
        *kinds &= ~(1u << k);
    }
    if ((*kinds & (*kinds - 1)) == 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--concurrent: fewer than two kinds of traffic can run on %d ranks "
                          "(%d a TP group): nothing collides",
                          rte->size, per_group);
    return SC_OK;
}

sc_status_t sc_coll_concurrent_setup(sc_coll_run_t *run, sc_err_t *err)
{
    const sc_coll_opts_t *o = &run->opts;
    if (o->concurrent == NULL)
        return o->tp > 0 ? sc_err_set(err, SC_ERR_USAGE, "--tp: only with --concurrent") : SC_OK;
    const char *other = o->topology             ? "--topology"
                        : o->baseline           ? "--baseline"
                        : run->nchoices > 0     ? "--algo/--proto lists"
                        : o->nccl_tests_output  ? "--nccl-tests-output"
                        : o->nccl_json_path     ? "-J"
                        : o->cycles != 1        ? "-N"
                        : o->eng.graph_launches ? "-G"
                        : o->min_avg_busbw > 0  ? "NCCL_TESTS_MIN_BW"
                                                : NULL;
    if (other != NULL)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--concurrent: not with %s (each kind is held to itself alone)", other);
    return conc__parse(o->concurrent, o->tp, run->rte, &run->concurrent, err);
}

/* Each kind's communicator and buffers (every rank is in one group of each). */
static sc_status_t conc__open(conc_t *c, sc_err_t *err)
{
    sc_coll_run_t *run = c->run;
    const sc_rte_t *rte = run->rte;
    uint64_t largest = run->opts.max_bytes;
    c->buf_bytes = (size_t)largest + 4 * (size_t)rte->size; /* an alltoall's block a peer */
    sc_status_t status = SC_OK;
    for (int k = 0; k < CONC_KINDS && status == SC_OK; k++) {
        if (!(c->kinds & 1u << k))
            continue;
        sc_flow_t *f = &c->flows[k];
        status =
            sc_comm_split(run->ses.world, conc__color(c, k, rte->rank), rte->rank, &f->comm, err);
        if (status != SC_OK)
            break;
        f->coll = conc__kinds[k].coll;
        f->name = conc__kinds[k].name;
        c->buf[k] = sc_comm_alloc(f->comm, 2 * c->buf_bytes);
        if (c->buf[k] == NULL)
            return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for %s's buffers",
                              rte->rank, rte->host, f->name);
        status = sc_comm_fill_bytes(f->comm, c->buf[k], 0, 2 * c->buf_bytes, err);
    }
    return status;
}

static void conc__close(conc_t *c)
{
    for (int k = 0; k < CONC_KINDS; k++) {
        if (c->flows[k].comm == NULL)
            continue;
        if (c->buf[k] != NULL)
            sc_comm_free(c->flows[k].comm, c->buf[k]);
        sc_comm_close(c->flows[k].comm);
    }
    free(c->us);
}

/* The flows' arguments for size bytes a rank (an alltoall's whole buffer, as nccl-tests). */
static void conc__shape(conc_t *c, uint64_t size)
{
    for (int k = 0; k < CONC_KINDS; k++) {
        sc_flow_t *f = &c->flows[k];
        if (f->comm == NULL)
            continue;
        size_t count = (size_t)(size / sizeof(float));
        if (f->coll == SC_COLL_alltoall)
            count /= (size_t)f->comm->size;
        f->args = (sc_coll_args_t){.sendbuf = c->buf[k],
                                   .recvbuf = (char *)c->buf[k] + c->buf_bytes,
                                   .count = count > 0 ? count : 1,
                                   .dtype = SC_DTYPE_float,
                                   .op = SC_REDOP_sum};
    }
}

/* The bytes one operation of a kind moves a rank, and its bus bandwidth factor (nccl-tests'). */
static double conc__busbw(const sc_flow_t *f, int n, double us)
{
    double bytes = (double)f->args.count * sizeof(float) * (f->coll == SC_COLL_alltoall ? n : 1);
    double factor = f->coll == SC_COLL_alltoall ? (double)(n - 1) / n : 2.0 * (n - 1) / n;
    return us > 0 ? bytes / us * 1e-3 * factor : NAN;
}

/* This rank's median time of each kind in one phase (on: the kinds running). */
static sc_status_t conc__phase(conc_t *c, const bool *on, double *median_us, sc_err_t *err)
{
    sc_coll_run_t *run = c->run;
    sc_status_t status = sc_collide_rounds(run->rte, run->rte->world, c->flows, CONC_KINDS, on,
                                           c->warmup, c->iters, run->ses.wd, c->us, err);
    for (int k = 0; k < CONC_KINDS && status == SC_OK; k++) {
        sc_stats_t st;
        sc_stats_compute(c->us + (size_t)k * (size_t)c->iters, on[k] ? (size_t)c->iters : 0, &st);
        median_us[k] = on[k] && c->flows[k].comm != NULL ? st.median : NAN;
    }
    return status;
}

/* "h1 h2": the distinct hosts of a kind's group in rank order, and its ranks where a host
 * holds more than one of them ("vm: 0 1"); cut short with "..." */
static void conc__hosts(const conc_t *c, int kind, int color, char *out, size_t len)
{
    const sc_rte_t *rte = c->run->rte;
    size_t used = 0;
    int members = 0, hosts = 0;
    out[0] = '\0';
    for (int r = 0; r < rte->size; r++) {
        if (conc__color(c, kind, r) != color)
            continue;
        members++;
        bool again = false;
        for (int q = 0; q < r && !again; q++)
            again = conc__color(c, kind, q) == color && rte->host_index[q] == rte->host_index[r];
        if (!again && used + 8 < len) {
            used +=
                (size_t)snprintf(out + used, len - used, "%s%.40s", used ? " " : "", rte->hosts[r]);
            hosts++;
        }
    }
    const char *sep = ": "; /* before the first rank, then a space */
    for (int r = 0; members > hosts && r < rte->size && used + 8 < len; r++)
        if (conc__color(c, kind, r) == color) {
            used += (size_t)snprintf(out + used, len - used, "%s%d", sep, r);
            sep = " ";
        }
    if (used + 8 >= len)
        snprintf(out + len - 5, 5, " ...");
}

/* rank 0: a row per kind and group from every rank's medians (all[r * 2K + phase * K + k]). */
static void conc__rows(conc_t *c, uint64_t size, const double *all)
{
    sc_coll_run_t *run = c->run;
    const sc_rte_t *rte = run->rte;
    char sz[32];
    size_t first = run->doc.traffic.n;
    for (int k = 0; k < CONC_KINDS; k++) {
        if (!(c->kinds & 1u << k))
            continue;
        int groups = k == CONC_TP ? rte->size / c->tp : k == CONC_DP ? c->tp : 1;
        int n = conc__group_size(c, k, rte->size);
        for (int g = 0; g < groups; g++) {
            double alone = 0, loaded = 0; /* a group's time is its slowest member's */
            for (int r = 0; r < rte->size; r++) {
                if (conc__color(c, k, r) != g)
                    continue;
                alone = fmax(alone, all[(size_t)r * 2 * CONC_KINDS + k]);
                loaded = fmax(loaded, all[(size_t)r * 2 * CONC_KINDS + CONC_KINDS + k]);
            }
            sc_traffic_row_t *row = SC_LIST_PUSH(&run->doc.traffic);
            if (row == NULL)
                return;
            snprintf(row->kind, sizeof(row->kind), "%s", conc__kinds[k].name);
            conc__hosts(c, k, g, row->group, sizeof(row->group));
            snprintf(row->coll, sizeof(row->coll), "%s", sc_coll_id_name(conc__kinds[k].coll));
            row->size_bytes = size;
            row->ranks = n;
            row->alone_us = alone;
            row->loaded_us = loaded;
            row->alone_GBps = conc__busbw(&c->flows[k], n, alone);
            row->loaded_GBps = conc__busbw(&c->flows[k], n, loaded);
            row->slowdown = alone > 0 ? loaded / alone : NAN;
        }
    }
    sc_traffic_peers(&run->doc.traffic);
    for (size_t i = first; i < run->doc.traffic.n; i++) {
        const sc_traffic_row_t *row = &run->doc.traffic.items[i];
        sc_results_printf(
            &run->ses.res, "  %-4s %-24.24s %7s %11.1f %11.1f %8.2fx %8.2fx %8.3f %8.3f\n",
            row->kind, row->group, sc_size_format(size, sz, sizeof(sz)), row->alone_us,
            row->loaded_us, row->slowdown, sc_present(row->vs_peers) ? row->vs_peers : 1.0,
            row->alone_GBps, row->loaded_GBps);
    }
}

/* One size: each kind alone, then all together; rank 0 gathers every rank's medians. */
static sc_status_t conc__size(conc_t *c, uint64_t size, double *all, sc_err_t *err)
{
    conc__shape(c, size);
    double mine[2 * CONC_KINDS];
    sc_status_t status = SC_OK;
    bool together[CONC_KINDS];
    for (int k = 0; k < CONC_KINDS && status == SC_OK; k++) {
        together[k] = (c->kinds & 1u << k) != 0;
        bool on[CONC_KINDS] = {false};
        on[k] = together[k];
        double med[CONC_KINDS];
        mine[k] = NAN;
        if (!on[k])
            continue;
        status = conc__phase(c, on, med, err);
        mine[k] = med[k];
    }
    if (status == SC_OK)
        status = conc__phase(c, together, mine + CONC_KINDS, err);
    const sc_rte_t *rte = c->run->rte;
    sc_watchdog_arm(c->run->ses.wd, "gathering the concurrent traffic's times", NULL, 0);
    if (status == SC_OK && MPI_Gather(mine, 2 * CONC_KINDS, MPI_DOUBLE, all, 2 * CONC_KINDS,
                                      MPI_DOUBLE, 0, rte->world) != MPI_SUCCESS)
        status = sc_err_set(err, SC_ERR_RUNTIME, "rank %d (host %s): gathering the times failed",
                            rte->rank, rte->host);
    sc_watchdog_disarm(c->run->ses.wd);
    if (status == SC_OK && rte->rank == 0)
        conc__rows(c, size, all);
    return status;
}

static void conc__header(const conc_t *c)
{
    sc_coll_run_t *run = c->run;
    sc_results_printf(&run->ses.res,
                      "#\n# traffic that collides: each kind alone, then all at once (%d rounds, "
                      "%d warm-up); a group's time is its slowest rank's median\n",
                      c->iters, c->warmup);
    for (int k = 0; k < CONC_KINDS; k++)
        if (c->kinds & 1u << k)
            sc_results_printf(&run->ses.res, "#  %-4s %s over groups of %d ranks\n",
                              conc__kinds[k].name, sc_coll_id_name(conc__kinds[k].coll),
                              conc__group_size(c, k, run->rte->size));
    sc_results_printf(&run->ses.res,
                      "# slowdown: loaded over alone; vs peers: loaded over the fastest group of "
                      "its kind loaded; busbw in GB/s alone and loaded\n");
    sc_results_printf(&run->ses.res, "# %-4s %-24s %7s %11s %11s %9s %9s %8s %8s\n", "kind",
                      "group", "size", "alone(us)", "loaded(us)", "slowdown", "vs peers", "busbw",
                      "loaded");
}

sc_status_t sc_coll_sweep_concurrent(sc_coll_run_t *run, unsigned kinds, sc_err_t *err)
{
    const sc_rte_t *rte = run->rte;
    const sc_coll_opts_t *o = &run->opts;
    conc_t c = {.run = run,
                .tp = o->tp > 0 ? o->tp : rte->size / rte->nhosts,
                .kinds = kinds,
                .iters = o->eng.iters > 0 ? o->eng.iters : CONC__DEFAULT_ITERS,
                .warmup = o->eng.warmup};
    c.us = calloc((size_t)CONC_KINDS * (size_t)c.iters, sizeof(double));
    double *all = calloc((size_t)rte->size * 2 * CONC_KINDS, sizeof(double));
    sc_status_t status = c.us && all ? conc__open(&c, err)
                                     : sc_err_set(err, SC_ERR_NOMEM, "no memory for the times");
    if (status == SC_OK && rte->rank == 0)
        conc__header(&c);
    uint64_t size = o->min_bytes;
    for (; status == SC_OK && size <= o->max_bytes; size = sc_coll_next_size(o, size))
        status = conc__size(&c, size, all, err);
    conc__close(&c);
    free(all);
    if (status != SC_OK || rte->rank != 0)
        return status;
    char line[768], crowded[128];
    sc_session_crowded(rte, crowded, sizeof(crowded));
    sc_verdict_traffic(&run->doc.traffic, crowded, &run->doc.checks, line, sizeof(line));
    run->doc.judged = true;
    sc_results_printf(&run->ses.res,
                      "# slowed past %.0fx (by the load, or against its peers): %s\n",
                      SC_COLLIDE_WARN_SLOWDOWN, line[0] ? line : "none");
    return SC_OK;
}
