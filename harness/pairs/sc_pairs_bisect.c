/* sc_pairs_bisect.c - the bisect search for slow nodes: all-reduces over groups of
 * participants, all groups of a round at once (or one at a time with --mode serial); a slow
 * group is halved and its halves measured in the next round, until groups of two or three
 * remain, which are measured as pairs; then quick's second step pairs each suspect with a node
 * of a healthy group. k slow nodes cost about k log2 n measurements instead of n(n-1)/2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pairs/sc_pairs_core.h"
#include "comm/sc_comm_ops.h"
#include "util/sc_clock.h"
#include "util/sc_stats.h"

/* best of, each after a pause: on a host with more ranks than cores a group is descheduled for
 * whole time slices at a time (figures 25-40x apart back to back here); trials a few ms apart
 * meet another slice */
#define BISECT_TRIALS   5
#define BISECT_PAUSE_NS 3000000L

/* One group's all-reduce of o->size bytes: one untimed, then best of BISECT_TRIALS runs of
 * o->iters. Bus bandwidth (bytes x 2(g-1)/g over the time, nccl-tests' convention) on the group's
 * first member, 0 on the others. */
static sc_status_t bisect__allreduce(sc_pairs_run_t *x, sc_comm_t *sub, double *busbw,
                                     sc_err_t *err)
{
    size_t count = x->o->size / sizeof(float);
    count = count > 0 ? count : 1;
    sc_coll_args_t a = {.sendbuf = x->buf,
                        .recvbuf = (char *)x->buf + count * sizeof(float),
                        .count = count,
                        .dtype = SC_DTYPE_float,
                        .op = SC_REDOP_sum};
    sc_status_t status = sc_comm_coll(sub, SC_COLL_allreduce, &a, err);
    if (status == SC_OK)
        status = sc_comm_sync(sub, err);
    double best = 0, factor = 2.0 * (sub->size - 1) / sub->size;
    for (int t = 0; t < BISECT_TRIALS && status == SC_OK; t++) {
        if (t > 0)
            nanosleep(&(struct timespec){0, BISECT_PAUSE_NS}, NULL);
        status = sc_comm_barrier(sub, err);
        uint64_t t0 = sc_clock_ns();
        for (int k = 0; k < x->o->iters && status == SC_OK; k++)
            status = sc_comm_coll(sub, SC_COLL_allreduce, &a, err);
        if (status == SC_OK)
            status = sc_comm_sync(sub, err);
        double ns = (double)(sc_clock_ns() - t0);
        double bus = (double)(count * sizeof(float)) * x->o->iters / ns * factor;
        best = bus > best ? bus : best;
        sc_watchdog_tick(sc_watchdog_progress(x->wd));
    }
    int slow = x->fault_slow_first - x->pc->rank + sub->rank; /* its rank in the group */
    *busbw = sub->rank == 0 ? sc_pairs_faulted(x, slow >= 0 && slow < sub->size, best) : 0;
    return status;
}

/* The groups measured (serial: one at a time, the others waiting quietly); every participant
 * ends with every group's figure in busbw. */
static sc_status_t bisect__round(sc_pairs_run_t *x, const sc_span_t *groups, int ngroups, int round,
                                 double *busbw, sc_err_t *err)
{
    sc_comm_t *pc = x->pc, *sub = NULL;
    int me = pc->rank, mine = -1;
    for (int g = 0; g < ngroups; g++)
        if (me >= groups[g].first && me < groups[g].first + groups[g].count)
            mine = g;
    memset(busbw, 0, (size_t)ngroups * sizeof(double));
    char what[112];
    snprintf(what, sizeof(what), "pairs bisect round %d, forming %d groups", round, ngroups);
    sc_watchdog_arm(x->wd, what, pc->world_rank, pc->size);
    sc_status_t status = sc_comm_split(pc, mine, me, &sub, err);
    int slots = x->o->serial ? ngroups : 1;
    for (int s = 0; s < slots && status == SC_OK; s++) {
        snprintf(what, sizeof(what), "pairs bisect round %d, group %d of %d (rank %d)", round,
                 (x->o->serial ? s : mine) + 1, ngroups, me);
        sc_watchdog_arm(x->wd, what, pc->world_rank, pc->size);
        status = sc_rte_quiet_barrier(x->rte, x->control, err);
        if (status == SC_OK && sub != NULL && (!x->o->serial || mine == s))
            status = bisect__allreduce(x, sub, &busbw[mine], err);
    }
    if (status == SC_OK) {
        sc_watchdog_arm(x->wd, "pairs bisect, gathering the groups' figures", pc->world_rank,
                        pc->size);
        status = sc_pairs_sum(x, busbw, ngroups, MPI_DOUBLE, "MPI_Iallreduce(groups)", err);
    }
    sc_watchdog_disarm(x->wd);
    if (sub != NULL)
        sc_comm_close(sub);
    return status;
}

/* The slow groups (below limit) into which, and as again; then a healthy control group, the one
 * nearest the reference, measured last in the same round. Their count with the control. */
static int bisect__again(const sc_span_t *groups, int ngroups, double limit, double reference,
                         const double *busbw, int *which, sc_span_t *again, int *control)
{
    int nagain = 0;
    *control = -1;
    for (int g = 0; g < ngroups; g++)
        if (busbw[g] < limit) {
            which[nagain] = g;
            again[nagain++] = groups[g];
        } else if (*control < 0 || fabs(busbw[g] - reference) < fabs(busbw[*control] - reference))
            *control = g;
    if (nagain > 0 && *control >= 0) {
        which[nagain] = *control;
        again[nagain++] = groups[*control];
    }
    return nagain;
}

/* Later looks at the groups below limit, as for pairs: a pause (sc_pairs_pause), then the slow
 * ones once more, each keeping its best figure, and a healthy control group measured with them:
 * when it dropped too (under SC_DEFAULT_PAIRS_CONTROL_HOLD of its figure), the machine was busy
 * and the round's looks do not count (up to --looks - 1 such rounds, as the pairs' looks). */
static sc_status_t bisect__confirm(sc_pairs_run_t *x, const sc_span_t *groups, int ngroups,
                                   int round, double limit, double *busbw, int *looks,
                                   sc_err_t *err)
{
    sc_span_t *again = malloc((size_t)(ngroups + 1) * sizeof(sc_span_t));
    int *which = malloc((size_t)(ngroups + 1) * sizeof(int));
    double *fresh = malloc((size_t)(ngroups + 1) * sizeof(double));
    double reference = limit / (1.0 - x->o->tolerance);
    sc_status_t status = SC_OK;
    if (!again || !which || !fresh)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the groups",
                            x->rte->rank, x->rte->host);
    for (int look = 1, pause = 0; look < x->o->looks && status == SC_OK; pause++) {
        int control, nagain = bisect__again(groups, ngroups, limit, reference, busbw, which, again,
                                            &control);
        if (nagain == 0)
            break;
        if (control >= 0 && !sc_pairs_may_excuse(x)) /* no more rounds to excuse */
            nagain--, control = -1;
        sc_pairs_pause(pause);
        x->look_round = pause + 1;
        status = bisect__round(x, again, nagain, round, fresh, err);
        bool held = status != SC_OK || control < 0 ||
                    sc_pairs_round_counts(x, fresh[nagain - 1], busbw[control]);
        int slow = control >= 0 ? nagain - 1 : nagain;
        for (int k = 0; k < slow && status == SC_OK; k++) {
            int g = which[k];
            busbw[g] = fresh[k] > busbw[g] ? fresh[k] : busbw[g];
            looks[g] += held;
        }
        look += held;
    }
    x->look_round = 0;
    free(again);
    free(which);
    free(fresh);
    return status;
}

typedef struct {
    sc_span_t *groups, *next, *leaves;
    double *busbw;
    int *looks;
    bool *slow;
    signed char *state; /* per participant: GOOD once in a healthy group */
} bisect__work_t;

static void bisect__work_free(bisect__work_t *w)
{
    free(w->groups);
    free(w->next);
    free(w->leaves);
    free(w->busbw);
    free(w->looks);
    free(w->slow);
    free(w->state);
}

/* A round's groups into out->groups, and the members of the healthy ones marked good. */
static sc_status_t bisect__keep(sc_pairs_run_t *x, const bisect__work_t *w, int ngroups, int round,
                                sc_pairs_matrix_t *out, sc_err_t *err)
{
    sc_pairs_group_t *grown =
        realloc(out->groups, (size_t)(out->ngroups + ngroups) * sizeof(sc_pairs_group_t));
    if (grown == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the groups",
                          x->rte->rank, x->rte->host);
    out->groups = grown;
    for (int g = 0; g < ngroups; g++) {
        out->groups[out->ngroups++] =
            (sc_pairs_group_t){w->groups[g], round, w->looks[g], w->busbw[g], w->slow[g]};
        for (int i = w->groups[g].first; !w->slow[g] && i < w->groups[g].first + w->groups[g].count;
             i++)
            w->state[i] = SC_PAIRS_GOOD;
    }
    return SC_OK;
}

/* The group rounds: the first groups, then the halves of the slow ones, until only leaves
 * (groups of up to three) are left; their count into *nleaves. */
static sc_status_t bisect__groups(sc_pairs_run_t *x, bisect__work_t *w, int *nleaves,
                                  sc_pairs_matrix_t *out, sc_err_t *err)
{
    int n = x->pc->size, ngroups = sc_pairs_bisect_start(n, w->groups), nall = 0;
    for (int g = 0; g < ngroups; g++) /* first groups of two or three are leaves already */
        if (w->groups[g].count <= SC_BISECT_LEAF)
            w->leaves[(*nleaves)++] = w->groups[g];
        else
            w->groups[nall++] = w->groups[g];
    sc_status_t status = SC_OK;
    double limit = 0;
    for (ngroups = nall; ngroups > 0 && status == SC_OK;) {
        int round = ++out->rounds;
        status = bisect__round(x, w->groups, ngroups, round, w->busbw, err);
        if (status == SC_OK && round == 1) { /* held to the first round's reference */
            out->group_reference = sc_pairs_bisect_reference(w->busbw, ngroups);
            limit = (1.0 - x->o->tolerance) * out->group_reference;
        }
        for (int g = 0; g < ngroups; g++)
            w->looks[g] = 1;
        if (status == SC_OK)
            status = bisect__confirm(x, w->groups, ngroups, round, limit, w->busbw, w->looks, err);
        for (int g = 0; g < ngroups; g++)
            w->slow[g] = w->busbw[g] < limit;
        if (status == SC_OK)
            status = bisect__keep(x, w, ngroups, round, out, err);
        ngroups = sc_pairs_bisect_next(w->groups, w->slow, ngroups, w->next, w->leaves, nleaves);
        sc_span_t *swap = w->groups;
        w->groups = w->next, w->next = swap;
    }
    return status;
}

sc_status_t sc_pairs_bisect(sc_pairs_run_t *x, double expected, sc_pairs_matrix_t *out,
                            sc_err_t *err)
{
    int n = x->pc->size, nleaves = 0, *peers = NULL;
    size_t room = (size_t)n / 2 + 2;
    bisect__work_t w = {.groups = malloc(room * sizeof(sc_span_t)),
                        .next = malloc(room * sizeof(sc_span_t)),
                        .leaves = malloc(room * sizeof(sc_span_t)),
                        .busbw = calloc(room, sizeof(double)),
                        .looks = calloc(room, sizeof(int)),
                        .slow = calloc(room, sizeof(bool)),
                        .state = calloc((size_t)n, 1)};
    sc_status_t status = SC_OK;
    if (!w.groups || !w.next || !w.leaves || !w.busbw || !w.looks || !w.slow || !w.state)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the groups",
                            x->rte->rank, x->rte->host);
    if (status == SC_OK && !sc_comm_supports(x->pc, SC_COLL_allreduce, SC_DTYPE_float, false))
        status = sc_err_set(err, SC_ERR_USAGE, SC_PAIRS_NO_ALLREDUCE, sc_comm_name(x->pc));
    if (status == SC_OK)
        status = bisect__groups(x, &w, &nleaves, out, err);
    int rounds =
        status == SC_OK && nleaves > 0 ? sc_pairs_plan_leaves(n, w.leaves, nleaves, &peers) : 0;
    if (rounds < 0)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the rounds",
                            x->rte->rank, x->rte->host);
    if (status == SC_OK && rounds > 0)
        status = sc_pairs_measure_rounds(x, peers, rounds, out->rounds, expected, err);
    out->rounds += rounds > 0 ? rounds : 0;
    if (status == SC_OK)
        status = sc_pairs_again(
            x, expected > 0 ? expected : sc_stats_matrix_median(out->uni, out->looks, n), w.state,
            out, err);
    free(peers);
    bisect__work_free(&w);
    return status;
}
