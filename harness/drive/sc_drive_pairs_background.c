/* sc_drive_pairs_background.c - the aggressor and its victims (sc_drive_pairs_background.h), as
 * congestion benchmarks measure them (GPCNeT: isolated, then under congestion, the ratio the
 * congestion impact): the load is an all-to-all of the ranks that are not measuring, on the same
 * hosts' links; the victims are the participants' pairs, measured once more under it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm/sc_comm_ops.h"
#include "drive/sc_drive_pairs_background.h"
#include "judge/sc_traffic_verdict.h"
#include "judge/sc_verdict.h"
#include "util/sc_clock.h"
#include "util/sc_defaults.h"
#include "util/sc_size.h"
#include "util/sc_stats.h"

#define BG__TAG_STOP 4671 /* the first participant's word to the load's first rank, and back */

sc_status_t sc_pairs_background_check(const char *word, bool per_rank, const sc_rte_t *rte,
                                      sc_err_t *err)
{
    if (word == NULL)
        return SC_OK;
    if (strcmp(word, "alltoall") != 0)
        return sc_err_set(err, SC_ERR_USAGE, "--background: '%s' is not alltoall", word);
    if (per_rank)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--background: with --per node (the other ranks of each host make the "
                          "load)");
    if (rte->size <= rte->nhosts)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--background: the load runs on the second and later ranks of each "
                          "host: launch 2 or more ranks a host (%d ranks on %d hosts)",
                          rte->size, rte->nhosts);
    return SC_OK;
}

/* The world rank of the load's first rank: the first that is not its host's first. */
static int bg__first_loader(const sc_rte_t *rte)
{
    for (int r = 0; r < rte->size; r++)
        for (int q = 0; q < r; q++)
            if (rte->host_index[q] == rte->host_index[r])
                return r;
    return -1;
}

/* The load: all-to-alls on comm until the first participant says stop (its word reaches the
 * load's first rank, which tells the others after each operation). */
static sc_status_t bg__load(sc_session_t *ses, sc_comm_t *comm, MPI_Comm control, uint64_t size,
                            sc_background_t *bg, sc_err_t *err)
{
    const sc_rte_t *rte = ses->rte;
    size_t count = (size_t)(size / sizeof(float) / (uint64_t)comm->size);
    count = count > 0 ? count : 1;
    size_t bytes = count * sizeof(float) * (size_t)comm->size;
    void *buf = sc_comm_alloc(comm, 2 * bytes);
    if (buf == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the load", rte->rank,
                          rte->host);
    sc_status_t status = sc_comm_fill_bytes(comm, buf, 0, 2 * bytes, err);
    sc_coll_args_t a = {.sendbuf = buf,
                        .recvbuf = (char *)buf + bytes,
                        .count = count,
                        .dtype = SC_DTYPE_float,
                        .op = SC_REDOP_sum};
    int stop = 0, word = 0, done = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = comm->rank == 0 ? MPI_Irecv(&word, 1, MPI_INT, 0, BG__TAG_STOP, rte->world, &req)
                             : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        status = sc_rte_mpi_error(rte, rc, "the background's word to stop (MPI_Irecv)", err);
    atomic_uint_fast64_t *tick = sc_watchdog_progress(ses->wd);
    uint64_t t0 = sc_clock_ns();
    while (status == SC_OK && !stop) {
        sc_watchdog_arm(ses->wd, "the background all-to-all", NULL, 0);
        status = sc_comm_coll(comm, SC_COLL_alltoall, &a, err);
        if (status == SC_OK)
            status = sc_comm_sync(comm, err);
        sc_watchdog_tick(tick);
        bg->ops++;
        if (status == SC_OK && comm->rank == 0 &&
            (rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            status = sc_rte_mpi_error(rte, rc, "the background's word to stop (MPI_Test)", err);
        stop = done;
        if (status == SC_OK)
            status = sc_watchdog_bcast(ses->wd, rte, control, "the background's word to stop",
                                       &stop, sizeof(stop), err);
    }
    bg->seconds = (double)(sc_clock_ns() - t0) * 1e-9;
    double n = comm->size;
    bg->busbw_GBps =
        bg->seconds > 0 ? (double)bytes * (double)bg->ops / bg->seconds * 1e-9 * (n - 1) / n : NAN;
    bg->ranks = comm->size;
    if (req != MPI_REQUEST_NULL) {
        MPI_Cancel(&req);
        MPI_Request_free(&req);
    }
    if (status == SC_OK && comm->rank == 0 && /* what the load did, to the first participant */
        (rc = MPI_Send(bg, sizeof(*bg), MPI_BYTE, 0, BG__TAG_STOP, rte->world)) != MPI_SUCCESS)
        status = sc_rte_mpi_error(rte, rc, "the background's tally (MPI_Send)", err);
    sc_watchdog_disarm(ses->wd);
    sc_comm_free(comm, buf);
    return status;
}

/* The victims: the matrix again, one look a pair, then the word to stop and the load's tally. */
static sc_status_t bg__victims(sc_session_t *ses, const sc_pairs_ctx_t *x, const sc_pairs_opts_t *o,
                               sc_pairs_matrix_t *loaded, sc_background_t *bg, sc_err_t *err)
{
    const sc_rte_t *rte = ses->rte;
    sc_pairs_opts_t once = *o;
    once.looks = 1;
    sc_pairs_ctx_t quiet = *x;
    quiet.on_round = NULL; /* the quiet matrix is the one result.json keeps as it goes */
    sc_status_t status = sc_pairs_measure(&quiet, &once, 0, loaded, err);
    if (status != SC_OK || rte->rank != 0)
        return status;
    int word = 1, loader = bg__first_loader(rte);
    sc_watchdog_arm(ses->wd, "the background's tally", &loader, 1);
    int rc = MPI_Send(&word, 1, MPI_INT, loader, BG__TAG_STOP, rte->world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Recv(bg, sizeof(*bg), MPI_BYTE, loader, BG__TAG_STOP, rte->world,
                      MPI_STATUS_IGNORE);
    sc_watchdog_disarm(ses->wd);
    return rc == MPI_SUCCESS ? SC_OK : sc_rte_mpi_error(rte, rc, "the background's tally", err);
}

sc_status_t sc_pairs_background_run(sc_session_t *ses, const sc_pairs_ctx_t *x,
                                    const sc_pairs_opts_t *o, uint64_t size,
                                    sc_pairs_matrix_t *loaded, sc_background_t *bg, sc_err_t *err)
{
    const sc_rte_t *rte = ses->rte;
    memset(bg, 0, sizeof(*bg));
    sc_comm_t *load = NULL;
    MPI_Comm control = MPI_COMM_NULL;
    bool victim = x->pc != NULL;
    sc_status_t status =
        sc_comm_split_group(ses->world, rte->world, !victim, rte->rank, &load, &control, err);
    if (status == SC_OK) /* the victims end their quiet matrix before the load starts */
        status = sc_rte_quiet_barrier(rte, rte->world, err);
    if (status == SC_OK)
        status = victim ? bg__victims(ses, x, o, loaded, bg, err)
                        : bg__load(ses, load, control, size, bg, err);
    sc_comm_group_close(&load, &control);
    return status;
}

/* The median of a list of figures (NaN: none). */
static double bg__median(double *v, size_t n)
{
    sc_stats_t st;
    sc_stats_compute(v, n, &st);
    return n > 0 ? st.median : NAN;
}

/* A row of the pairs whose ends pass `in` (both ends: a leaf's; one: a host's). */
typedef bool (*bg__in_fn)(const void *ctx, int i, int j);

static void bg__row(sc_result_t *doc, const char *kind, const char *group, uint64_t size,
                    const sc_pairs_matrix_t *quiet, const sc_pairs_matrix_t *loaded, bg__in_fn in,
                    const void *ctx)
{
    int n = quiet->n;
    double *alone = malloc((size_t)n * (size_t)n * sizeof(double)),
           *under = malloc((size_t)n * (size_t)n * sizeof(double));
    size_t k = 0;
    for (int i = 0; alone && under && i < n; i++)
        for (int j = 0; j < n; j++) {
            double a = quiet->uni[i * n + j], b = loaded->uni[i * n + j];
            if (i != j && a > 0 && b > 0 && in(ctx, i, j)) {
                alone[k] = a;
                under[k++] = b;
            }
        }
    double a = bg__median(alone, k), b = bg__median(under, k);
    free(alone);
    free(under);
    sc_traffic_row_t *row = k > 0 ? SC_LIST_PUSH(&doc->traffic) : NULL;
    if (row == NULL)
        return;
    snprintf(row->kind, sizeof(row->kind), "%s", kind);
    snprintf(row->group, sizeof(row->group), "%s", group);
    snprintf(row->coll, sizeof(row->coll), "send");
    row->size_bytes = size;
    row->ranks = (int)k; /* the pairs it stands for */
    row->alone_GBps = a;
    row->loaded_GBps = b;
    row->alone_us = (double)size / a * 1e-3;
    row->loaded_us = (double)size / b * 1e-3;
    row->slowdown = a / b;
}

typedef struct {
    int a, b; /* participants (pair, host) or leaves (leaf, spine) */
    const sc_leaves_t *leaves;
} bg__sel_t;

static bool bg__pair(const void *ctx, int i, int j)
{
    const bg__sel_t *s = ctx;
    return i == s->a && j == s->b;
}
static bool bg__host(const void *ctx, int i, int j)
{
    const bg__sel_t *s = ctx;
    return i == s->a || j == s->a;
}
static bool bg__leaf(const void *ctx, int i, int j)
{
    const bg__sel_t *s = ctx;
    return s->leaves->leaf_of[i] == s->a && s->leaves->leaf_of[j] == s->a;
}
static bool bg__spine(const void *ctx, int i, int j)
{
    const bg__sel_t *s = ctx;
    int li = s->leaves->leaf_of[i], lj = s->leaves->leaf_of[j];
    return (li == s->a && lj == s->b) || (li == s->b && lj == s->a);
}

/* The rows: a pair, a host, a leaf, a pair of leaves. */
static void bg__rows(sc_result_t *doc, const sc_pairs_matrix_t *quiet,
                     const sc_pairs_matrix_t *loaded, const char *const *names,
                     const sc_leaves_t *leaves, uint64_t size)
{
    int n = quiet->n;
    char group[160];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            snprintf(group, sizeof(group), "%.70s>%.70s", names[i], names[j]);
            bg__row(doc, "pair", group, size, quiet, loaded, bg__pair, &(bg__sel_t){i, j, leaves});
        }
    for (int i = 0; i < n; i++)
        bg__row(doc, "host", names[i], size, quiet, loaded, bg__host, &(bg__sel_t){i, -1, leaves});
    for (int l = 0; leaves != NULL && l < leaves->nleaves; l++)
        bg__row(doc, "leaf", leaves->names[l], size, quiet, loaded, bg__leaf,
                &(bg__sel_t){l, -1, leaves});
    for (int l = 0; leaves != NULL && l < leaves->nleaves; l++)
        for (int m = l + 1; m < leaves->nleaves; m++) {
            snprintf(group, sizeof(group), "%.60s <-> %.60s", leaves->names[l], leaves->names[m]);
            bg__row(doc, "spine", group, size, quiet, loaded, bg__spine,
                    &(bg__sel_t){l, m, leaves});
        }
}

void sc_pairs_background_rows(sc_session_t *ses, const sc_pairs_matrix_t *quiet,
                              const sc_pairs_matrix_t *loaded, const char *const *names,
                              const sc_leaves_t *leaves, uint64_t size, const sc_background_t *bg,
                              sc_result_t *doc)
{
    if (quiet->uni == NULL || loaded->uni == NULL || quiet->n != loaded->n)
        return;
    bg__rows(doc, quiet, loaded, names, leaves, size);
    char sz[32], line[768], crowded[128];
    sc_session_crowded(ses->rte, crowded, sizeof(crowded));
    sc_verdict_traffic(&doc->traffic, crowded, &doc->checks, line, sizeof(line));
    sc_results_printf(&ses->res,
                      "#\n# background alltoall: %d ranks, %s B a rank, %ld operations in %.2f s "
                      "(%.3f GB/s busbw) while the victims measured each pair once more\n",
                      bg->ranks, sc_size_format(size, sz, sizeof(sz)), bg->ops, bg->seconds,
                      bg->busbw_GBps);
    sc_results_printf(&ses->res, "# %-6s %-28s %6s %10s %10s %9s %9s\n", "kind", "victims", "pairs",
                      "alone", "loaded", "slowdown", "vs peers");
    for (size_t i = 0; i < doc->traffic.n; i++) {
        const sc_traffic_row_t *r = &doc->traffic.items[i];
        if (strcmp(r->kind, "pair") == 0)
            continue; /* result.json and the CSV hold them */
        sc_results_printf(&ses->res, "  %-6s %-28.28s %6d %10.3f %10.3f %8.2fx %8.2fx\n", r->kind,
                          r->group, r->ranks, r->alone_GBps, r->loaded_GBps, r->slowdown,
                          sc_present(r->vs_peers) ? r->vs_peers : 1.0);
    }
    sc_results_printf(&ses->res, "# slowed past %.0fx (by the load, or against its peers): %s\n",
                      SC_COLLIDE_WARN_SLOWDOWN, line[0] ? line : "none");
    doc->judged = true;
}

/* A participant's leaf: the switch map's, else by the topology's nodes under a leaf, else 0. */
static int cut__leaf(const sc_leaves_t *leaves, const sc_cut_spec_t *cut, int i)
{
    if (leaves != NULL && leaves->nleaves > 0)
        return leaves->leaf_of[i];
    return cut->nodes_per_leaf > 0 ? (int)(i / cut->nodes_per_leaf) : 0;
}

/* The highest leaf of the n participants (0: they share one). */
static int cut__top_leaf(const sc_leaves_t *leaves, const sc_cut_spec_t *cut, int n)
{
    int top = 0;
    for (int i = 0; i < n; i++)
        top = cut__leaf(leaves, cut, i) > top ? cut__leaf(leaves, cut, i) : top;
    return top;
}

int *sc_pairs_cut_sides(const sc_comm_t *pc, const sc_leaves_t *leaves, const sc_cut_spec_t *cut)
{
    if (pc == NULL)
        return NULL;
    int n = pc->size, *side = calloc((size_t)n, sizeof(int));
    int top = cut__top_leaf(leaves, cut, n);
    for (int i = 0; side != NULL && i < n; i++) /* leaves 0 .. top/2 against the rest */
        side[i] = top > 0 ? cut__leaf(leaves, cut, i) > top / 2 : i >= (n + 1) / 2;
    return side;
}

/* "h1 h2 | h3 h4": the two sides (cut short with "..."). */
static void cut__name(const char *const *names, const int *side, int n, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < n && used + 8 < len; i++)
            if (side[i] == s)
                used += (size_t)snprintf(out + used, len - used, "%s%.40s",
                                         used == 0                            ? ""
                                         : s == 1 && strchr(out, '|') == NULL ? " | "
                                                                              : " ",
                                         names[i]);
    if (used + 8 >= len)
        snprintf(out + len - 5, 5, " ...");
}

void sc_pairs_cut_row(sc_session_t *ses, const char *const *names, const int *side, int n,
                      const sc_leaves_t *leaves, uint64_t size, const sc_bisection_t *b,
                      const sc_cut_spec_t *cut, double tolerance, sc_result_t *doc)
{
    if (side == NULL || b->pairs == 0 || !(b->alone_GBps > 0))
        return;
    sc_traffic_row_t *row = SC_LIST_PUSH(&doc->traffic);
    if (row == NULL)
        return;
    snprintf(row->kind, sizeof(row->kind), "cut");
    cut__name(names, side, n, row->group, sizeof(row->group));
    snprintf(row->coll, sizeof(row->coll), "send");
    row->size_bytes = size;
    row->ranks = 2 * b->pairs;
    row->alone_GBps = b->alone_GBps;
    row->loaded_GBps = b->together_GBps;
    row->alone_us = row->loaded_us = row->vs_peers = SC_ABSENT;
    row->slowdown = b->alone_GBps / b->together_GBps;
    double share = b->together_GBps / b->alone_GBps;
    /* the sides under different leaves: the leaves' uplinks are on the way */
    bool across = cut__top_leaf(leaves, cut, n) > 0;
    sc_results_printf(&ses->res,
                      "#\n# bisection %s: %d pair%s across, %.3f GB/s both ways at once, %.3f "
                      "GB/s their sum alone: %.0f %% kept\n",
                      row->group, b->pairs, b->pairs == 1 ? "" : "s", b->together_GBps,
                      b->alone_GBps, 100 * share);
    if (!cut->held)
        return;
    double expected = 1.0 / (cut->oversubscription > 0 ? cut->oversubscription : 1.0);
    char name[192];
    snprintf(name, sizeof(name), "bisection keeps 1/%g of what its pairs carry alone: %.120s",
             cut->oversubscription, row->group);
    /* below (1 - tolerance) of it a FAIL, as a pair below its line is slow */
    sc_band_t band = {.tolerance = tolerance, .fail_tolerance = tolerance};
    sc_check_t *c =
        sc_verdict_band(&doc->checks, name, "bisection_share", share, across ? expected : 1.0,
                        &band, true, across ? "inter.oversubscription" : "one leaf");
    if (c != NULL) {
        row->level = c->level;
        snprintf(c->note, sizeof(c->note), "%d pairs: %.3f GB/s at once, %.3f alone (sum)",
                 b->pairs, b->together_GBps, b->alone_GBps);
    }
    doc->judged = true;
}
