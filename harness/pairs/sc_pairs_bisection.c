/* sc_pairs_bisection.c - the bisection measured (sc_pairs.h): the participants in two sides,
 * each of one side paired with one of the other, every pair streaming both ways alone, then
 * every pair at once; what crosses the cut together over the sum of what the pairs carried
 * alone is the share the fabric between the sides keeps (1 / oversubscription where the sides
 * are under different leaves). */
#include <stdlib.h>
#include <string.h>

#include "comm/sc_comm_ops.h"
#include "pairs/sc_pairs_core.h"

#define BISECTION__TRIALS 3 /* the best of: what a cut can carry; noise only takes away */

/* This participant's partner across the cut (-1: none, the larger side's extra), and the pairs:
 * the k-th of side 0 with the k-th of side 1. */
static int bisection__partner(const int *side, int n, int me, int *pairs, int *index)
{
    int k0 = 0, k1 = 0, mine = -1, partner = -1;
    for (int i = 0; i < n; i++) {
        if (i == me)
            mine = side[i] == 0 ? k0 : k1;
        side[i] == 0 ? k0++ : k1++;
    }
    *pairs = k0 < k1 ? k0 : k1;
    *index = mine < *pairs ? mine : -1;
    for (int i = 0, k = 0; i < n && *index >= 0; i++)
        if (side[i] != side[me] && k++ == mine)
            partner = i;
    return partner;
}

/* One trial: the pairs that run (all, or only pair `only`) stream both ways; *cut: what the
 * side-0 members measured, summed over the participants. */
static sc_status_t bisection__trial(sc_pairs_run_t *x, int partner, bool runs, bool counts,
                                    double *cut, sc_err_t *err)
{
    sc_watchdog_arm(x->wd, "pairs, the barrier before a bisection trial", x->pc->world_rank,
                    x->pc->size);
    sc_status_t status = sc_rte_quiet_barrier(x->rte, x->control, err);
    sc_watchdog_disarm(x->wd);
    double mine = 0;
    if (status == SC_OK && runs) {
        sc_watchdog_arm(x->wd, "pairs, a bisection trial", &x->pc->world_rank[partner], 1);
        status = sc_pairs_both_ways(x, partner, &mine, err);
        sc_watchdog_disarm(x->wd);
    }
    *cut = counts ? mine : 0;
    if (status == SC_OK)
        status = sc_pairs_sum(x, cut, 1, MPI_DOUBLE, "pairs, the bisection's figures", err);
    return status;
}

/* The best of the trials of one arrangement (every pair at once, or pair `only` alone). */
static sc_status_t bisection__best(sc_pairs_run_t *x, int partner, int index, int only, bool side0,
                                   double *best, sc_err_t *err)
{
    bool runs = partner >= 0 && (only < 0 || only == index);
    *best = 0;
    sc_status_t status = SC_OK;
    for (int t = 0; t < BISECTION__TRIALS && status == SC_OK; t++) {
        double cut = 0;
        status = bisection__trial(x, partner, runs, runs && side0, &cut, err);
        *best = cut > *best ? cut : *best;
    }
    return status;
}

sc_status_t sc_pairs_bisection(const sc_pairs_ctx_t *in, const sc_pairs_opts_t *o, const int *side,
                               sc_bisection_t *out, sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    sc_pairs_run_t x = {.rte = in->rte, .pc = in->pc, .control = in->control, .o = o, .wd = in->wd};
    int n = in->pc->size, me = in->pc->rank, index = -1;
    int partner = bisection__partner(side, n, me, &out->pairs, &index);
    x.buf = sc_comm_alloc(x.pc, SC_PAIRS_BUF(o->size));
    sc_status_t status =
        x.buf ? sc_comm_fill_bytes(x.pc, x.buf, 0x3C, SC_PAIRS_BUF(o->size), err)
              : sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the bisection",
                           x.rte->rank, x.rte->host);
    double ignored = 0; /* every pair once, untimed: connections are made lazily */
    if (status == SC_OK)
        status = bisection__trial(&x, partner, partner >= 0, false, &ignored, err);
    for (int k = 0; k < out->pairs && status == SC_OK; k++) {
        double alone = 0;
        status = bisection__best(&x, partner, index, k, side[me] == 0, &alone, err);
        out->alone_GBps += alone;
    }
    if (status == SC_OK)
        status = bisection__best(&x, partner, index, -1, side[me] == 0, &out->together_GBps, err);
    if (x.buf)
        sc_comm_free(x.pc, x.buf);
    return status;
}
