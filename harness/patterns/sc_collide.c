/* sc_collide.c - flows started together and polled to their own ends (sc_collide.h). */
#include <math.h>
#include <sched.h>
#include <stdio.h>

#include "comm/sc_comm_ops.h"
#include "patterns/sc_collide.h"
#include "util/sc_clock.h"

#define COLLIDE__FLOWS_MAX 8

/* The flows this round runs on this rank, started in flow order: every rank starts the
 * operations of two communicators in the same order, as NCCL asks of concurrent ones. */
static sc_status_t collide__start(sc_flow_t *flows, int nflows, const bool *on, bool *pending,
                                  sc_err_t *err)
{
    for (int f = 0; f < nflows; f++) {
        pending[f] = on[f] && flows[f].comm != NULL;
        if (!pending[f])
            continue;
        sc_status_t status = sc_comm_istart(flows[f].comm, flows[f].coll, &flows[f].args, err);
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

/* Polls the started flows until each has ended, its time (us from t0) into took[f]. */
static sc_status_t collide__poll(sc_flow_t *flows, int nflows, bool *pending, uint64_t t0,
                                 atomic_uint_fast64_t *tick, double *took, sc_err_t *err)
{
    int left = 0;
    for (int f = 0; f < nflows; f++)
        left += pending[f];
    while (left > 0) {
        bool ended_any = false;
        for (int f = 0; f < nflows; f++) {
            if (!pending[f])
                continue;
            bool done = false;
            sc_status_t status = sc_comm_itest(flows[f].comm, &done, err);
            if (status != SC_OK)
                return status;
            if (!done)
                continue;
            took[f] = (double)(sc_clock_ns() - t0) * 1e-3;
            pending[f] = false;
            left--;
            ended_any = true;
            sc_watchdog_tick(tick);
        }
        if (!ended_any)
            sched_yield(); /* the hosts of a virtual cluster share cores */
    }
    return SC_OK;
}

/* What the watchdog says this rank waits on: the flows of the round. */
static void collide__arm(sc_watchdog_t *wd, const sc_flow_t *flows, int nflows, const bool *on)
{
    char what[256];
    size_t used = (size_t)snprintf(what, sizeof(what), "concurrent traffic:");
    for (int f = 0; f < nflows && used < sizeof(what); f++)
        if (on[f] && flows[f].comm != NULL)
            used += (size_t)snprintf(what + used, sizeof(what) - used, " %s", flows[f].name);
    sc_watchdog_arm(wd, what, NULL, 0);
}

sc_status_t sc_collide_rounds(const sc_rte_t *rte, MPI_Comm control, sc_flow_t *flows, int nflows,
                              const bool *on, int warmup, int iters, sc_watchdog_t *wd, double *us,
                              sc_err_t *err)
{
    if (nflows > COLLIDE__FLOWS_MAX)
        return sc_err_set(err, SC_ERR_USAGE, "concurrent traffic: at most %d flows, not %d",
                          COLLIDE__FLOWS_MAX, nflows);
    atomic_uint_fast64_t *tick = sc_watchdog_progress(wd);
    bool pending[COLLIDE__FLOWS_MAX];
    double took[COLLIDE__FLOWS_MAX];
    sc_status_t status = SC_OK;
    for (int i = -warmup; i < iters && status == SC_OK; i++) {
        sc_watchdog_arm(wd, "the barrier before a round of concurrent traffic", NULL, 0);
        status = sc_rte_quiet_barrier(rte, control, err);
        if (status != SC_OK)
            break;
        collide__arm(wd, flows, nflows, on);
        for (int f = 0; f < nflows; f++)
            took[f] = NAN;
        uint64_t t0 = sc_clock_ns();
        status = collide__start(flows, nflows, on, pending, err);
        if (status == SC_OK)
            status = collide__poll(flows, nflows, pending, t0, tick, took, err);
        for (int f = 0; f < nflows && i >= 0; f++)
            us[f * iters + i] = took[f];
    }
    sc_watchdog_disarm(wd);
    return status;
}
