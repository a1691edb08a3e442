/* sc_pairs.c - the point-to-point matrix: every pair of participants (a round-robin of
 * disjoint pairs, all at once or one pair at a time) measures latency (8-byte ping-pong),
 * bandwidth each way (best of three streams, tagged messages or one-sided puts) and both ways at
 * once; the matrices are gathered on every rank; then slow pairs are looked at again, in rounds
 * with growing pauses, so that noise that comes and goes is not taken for a fault. */
#include "sc_pairs.h"
#include "comm/sc_comm_ops.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sc_clock.h"
#include "pairs/sc_pairs_core.h"
#include "util/sc_stats.h"
#include "util/sc_test_fault.h"

static sc_status_t pairs__send_n(sc_pairs_run_t *x, int peer, size_t bytes, int n, sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (int k = 0; k < n && status == SC_OK; k++)
        status = sc_comm_isend(x->pc, x->buf, bytes, SC_DTYPE_uint8, peer, err);
    return status;
}

/* n receives, done when it returns. Where the backend matches sends and receives only within a
 * group (irecv: NCCL), they go out with the sends started before them, and complete with them:
 * received one by one, the peer's sends of a bidirectional stream would wait on receives that
 * wait behind them. */
static sc_status_t pairs__recv_n(sc_pairs_run_t *x, int peer, size_t bytes, int n, sc_err_t *err)
{
    char *rbuf = (char *)x->buf + x->o->size;
    sc_status_t status = SC_OK;
    for (int k = 0; k < n && status == SC_OK; k++)
        status = sc_comm_has_irecv(x->pc)
                     ? sc_comm_irecv(x->pc, rbuf, bytes, SC_DTYPE_uint8, peer, err)
                     : sc_comm_recv(x->pc, rbuf, bytes, SC_DTYPE_uint8, peer, err);
    return status == SC_OK && sc_comm_has_irecv(x->pc) ? sc_comm_iwait(x->pc, err) : status;
}

#define SC__TRIALS 3 /* best of: bandwidth is what a link can do; noise only takes away */

/* One direction: `from` sends `count` messages, `to` acknowledges with one byte. GB/s, measured
 * by the sender (0 on the receiver). */
sc_status_t sc_pairs_stream_once(sc_pairs_run_t *x, int from, int to, int count, double *gbps,
                                 sc_err_t *err)
{
    sc_comm_t *pc = x->pc;
    size_t size = x->o->size;
    *gbps = 0;
    if (pc->rank == from && x->o->put) { /* one-sided: puts, flush, then tell the target */
        uint64_t t0 = sc_clock_ns();
        sc_status_t status = SC_OK;
        for (int k = 0; k < count && status == SC_OK; k++)
            status = sc_comm_rma_put(pc, to, x->buf, size, size, err);
        if (status == SC_OK)
            status = sc_comm_rma_flush(pc, to, err);
        *gbps = (double)size * count / ((double)(sc_clock_ns() - t0));
        if (status == SC_OK)
            status = pairs__send_n(x, to, 1, 1, err);
        return status == SC_OK ? sc_comm_iwait(pc, err) : status;
    }
    if (x->o->put) /* the target only learns that the puts are done */
        return pairs__recv_n(x, from, 1, 1, err);
    if (pc->rank == from) {
        uint64_t t0 = sc_clock_ns();
        sc_status_t status = pairs__send_n(x, to, size, count, err);
        if (status == SC_OK)
            status = pairs__recv_n(x, to, 1, 1, err);
        if (status == SC_OK)
            status = sc_comm_iwait(pc, err);
        *gbps = (double)size * count / ((double)(sc_clock_ns() - t0));
        return status;
    }
    sc_status_t status = pairs__recv_n(x, from, size, count, err);
    if (status == SC_OK)
        status = pairs__send_n(x, from, 1, 1, err);
    return status == SC_OK ? sc_comm_iwait(pc, err) : status;
}

static void pairs__read_faults(sc_pairs_run_t *x)
{
    const char *slow = sc_test_fault("slow-first"), *busy = sc_test_fault("busy-looks");
    if (slow == NULL || sscanf(slow, "%d", &x->fault_slow_first) != 1)
        x->fault_slow_first = -1;
    if (busy == NULL || sscanf(busy, "%d", &x->fault_busy_looks) != 1)
        x->fault_busy_looks = 0;
    const char *die = sc_test_fault("pairs-die");
    if (die == NULL || sscanf(die, "%d", &x->fault_die_rank) != 1)
        x->fault_die_rank = -1;
}

/* A pair's figure one way: best of SC__TRIALS streams. */
static sc_status_t pairs__stream(sc_pairs_run_t *x, int from, int to, double *gbps, sc_err_t *err)
{
    sc_status_t status = SC_OK;
    *gbps = 0;
    for (int t = 0; t < SC__TRIALS && status == SC_OK; t++) {
        double g = 0;
        status = sc_pairs_stream_once(x, from, to, x->o->iters, &g, err);
        *gbps = g > *gbps ? g : *gbps;
        sc_watchdog_tick(sc_watchdog_progress(x->wd)); /* a long stream is not a stuck one */
    }
    *gbps = sc_pairs_faulted(x, from == x->fault_slow_first || to == x->fault_slow_first, *gbps);
    return status;
}

/* A later look one way (a slow pair's, or the control's), measured as the first look was: the
 * pair sat idle through the pause, so one untimed message first, then best of SC__TRIALS. A
 * single cold stream read 0.23-0.89 of the first looks' figures here (median 0.56-0.75): a
 * healthy pair given a second look could be named for it. */
static sc_status_t pairs__stream_look(sc_pairs_run_t *x, int from, int to, double *gbps,
                                      sc_err_t *err)
{
    double ignored = 0;
    *gbps = 0;
    sc_status_t status = sc_pairs_stream_once(x, from, to, 1, &ignored, err);
    return status == SC_OK ? pairs__stream(x, from, to, gbps, err) : status;
}

/* count ping-pongs of 8 bytes with peer; first sends first. */
static sc_status_t pairs__pingpong(sc_pairs_run_t *x, int peer, bool first, int count,
                                   sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (int k = 0; k < count && status == SC_OK; k++) {
        if (first) {
            status = pairs__send_n(x, peer, 8, 1, err);
            if (status == SC_OK)
                status = pairs__recv_n(x, peer, 8, 1, err);
        } else {
            status = pairs__recv_n(x, peer, 8, 1, err);
            if (status == SC_OK)
                status = pairs__send_n(x, peer, 8, 1, err);
        }
        if (status == SC_OK)
            status = sc_comm_iwait(x->pc, err);
    }
    return status;
}

/* Pair a < b; the caller is one of them. */
static sc_status_t pairs__pair(sc_pairs_run_t *x, int a, int b, sc_err_t *err)
{
    sc_comm_t *pc = x->pc;
    int me = pc->rank, n = pc->size, peer = me == a ? b : a;
    bool first = me == a;
    /* Warm-up, untimed: transports connect lazily (TCP handshakes, registration) and the first
     * bytes of a connection are slow; one message each way gets past it. */
    double ignored = 0;
    sc_status_t status = sc_pairs_stream_once(x, a, b, 1, &ignored, err);
    if (status == SC_OK)
        status = sc_pairs_stream_once(x, b, a, 1, &ignored, err);
    /* latency: ping-pong of 8 bytes, as many untimed first (osu_latency's skip: Open MPI's shared
     * memory, for one, takes its fast path to a peer only after 16 messages; without them the
     * mean of 50 read 1.15-1.4x a warmed bare loop's here) */
    if (status == SC_OK)
        status = pairs__pingpong(x, peer, first, x->o->lat_iters, err);
    uint64_t t0 = sc_clock_ns();
    if (status == SC_OK)
        status = pairs__pingpong(x, peer, first, x->o->lat_iters, err);
    if (first)
        x->lat[a * n + b] = x->lat[b * n + a] =
            (double)(sc_clock_ns() - t0) * 1e-3 / x->o->lat_iters / 2;
    double gbps = 0;
    if (status == SC_OK)
        status = pairs__stream(x, a, b, &gbps, err);
    if (me == a)
        x->uni[a * n + b] = gbps;
    if (status == SC_OK)
        status = pairs__stream(x, b, a, &gbps, err);
    if (me == b)
        x->uni[b * n + a] = gbps;
    if (status == SC_OK)
        status = sc_pairs_both_ways(x, peer, &gbps, err);
    if (first) {
        x->bidir[a * n + b] = x->bidir[b * n + a] = gbps;
        x->looks[a * n + b] = x->looks[b * n + a] = 1;
    }
    return status;
}

sc_status_t sc_pairs_both_ways(sc_pairs_run_t *x, int peer, double *gbps, sc_err_t *err)
{
    uint64_t t0 = sc_clock_ns();
    sc_status_t status = pairs__send_n(x, peer, x->o->size, x->o->iters, err);
    if (status == SC_OK)
        status = pairs__recv_n(x, peer, x->o->size, x->o->iters, err);
    if (status == SC_OK)
        status = sc_comm_iwait(x->pc, err);
    *gbps = 2.0 * (double)x->o->size * x->o->iters / (double)(sc_clock_ns() - t0);
    return status;
}

/* The round's figures to the first participant (each rank's own: its peer, its direction, and
 * the pair's latency and both-ways figure from its lower member), merged into so_far, and the
 * command told. Collective over the participants; nothing without on_round. */
static sc_status_t pairs__round_done(sc_pairs_run_t *x, int round, int rounds, int peer,
                                     sc_err_t *err)
{
    if (x->on_round == NULL)
        return SC_OK;
    /* the round's last pairs finish before its figures are sent; the others wait quietly */
    sc_status_t status = sc_rte_quiet_barrier(x->rte, x->control, err);
    if (status != SC_OK)
        return status;
    sc_comm_t *pc = x->pc;
    int n = pc->size, me = pc->rank;
    bool paired = peer >= 0 && peer < n;
    double mine[4] = {paired ? peer : -1, paired ? x->uni[me * n + peer] : 0,
                      paired ? x->lat[me * n + peer] : 0, paired ? x->bidir[me * n + peer] : 0};
    double *all = me == 0 ? calloc((size_t)n * 4, sizeof(double)) : NULL;
    sc_watchdog_arm(x->wd, "pairs, the round's figures to the first participant", pc->world_rank,
                    n);
    int rc = MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, x->control);
    sc_watchdog_disarm(x->wd);
    if (rc != MPI_SUCCESS) {
        free(all);
        return sc_rte_mpi_error(x->rte, rc, "MPI_Gather(pairs round)", err);
    }
    for (int r = 0; all != NULL && x->so_far.uni != NULL && r < n; r++) {
        int p = (int)all[r * 4];
        if (p < 0 || p >= n)
            continue;
        x->so_far.uni[r * n + p] = all[r * 4 + 1];
        if (all[r * 4 + 2] > 0)
            x->so_far.lat[r * n + p] = x->so_far.lat[p * n + r] = all[r * 4 + 2];
        if (all[r * 4 + 3] > 0)
            x->so_far.bidir[r * n + p] = x->so_far.bidir[p * n + r] = all[r * 4 + 3];
        x->so_far.looks[r * n + p] = 1;
    }
    if (all != NULL && x->so_far.uni != NULL)
        x->on_round(x->on_round_arg, &x->so_far, round + 1, rounds);
    free(all);
    return SC_OK;
}

/* The pairs of round r (peers: n partners a round, -1 none) that run before the pair whose lower
 * member is lo, and all of them (serial mode runs them one at a time, by lower member). */
static int pairs__pairs_before(const int *round, int n, int lo)
{
    int k = 0;
    for (int i = 0; i < lo && i < n; i++)
        k += round[i] > i;
    return k;
}

/* The rounds of peers (rounds x n), numbered from base of total for the progress. */
static sc_status_t pairs__rounds(sc_pairs_run_t *x, const int *peers, int rounds, int base,
                                 int total, sc_err_t *err)
{
    sc_comm_t *pc = x->pc;
    int n = pc->size;
    sc_status_t status = SC_OK;
    for (int r = 0; r < rounds && status == SC_OK; r++) {
        const int *round = &peers[r * n];
        int peer = round[pc->rank], lo = pc->rank < peer ? pc->rank : peer;
        int slots = x->o->serial ? pairs__pairs_before(round, n, n) : 1;
        int order = x->o->serial ? pairs__pairs_before(round, n, lo) : 0; /* my pair's turn */
        for (int s = 0; s < slots && status == SC_OK; s++) {
            /* serial: the s-th pair of the round (ordered by its lower member) runs now */
            bool mine = peer >= 0 && (!x->o->serial || order == s);
            char what[96];
            snprintf(what, sizeof(what), "pairs round %d, pair %d<->%d", base + r + 1, pc->rank,
                     peer);
            sc_watchdog_arm(x->wd, what, pc->world_rank, n);
            /* quiet: in serial mode most ranks wait here while one pair measures */
            status = sc_rte_quiet_barrier(x->rte, x->control, err);
            if (status == SC_OK && mine && x->fault_die_rank == x->rte->rank)
                raise(SIGKILL); /* a rank lost mid-round, its peers' pairs measured before */
            if (status == SC_OK && mine)
                status = pairs__pair(x, lo, pc->rank < peer ? peer : pc->rank, err);
            if (status == SC_OK && mine) { /* kept by any ending, before the round's gather */
                int me = pc->rank;
                double figs[3] = {x->uni[me * n + peer], x->lat[me * n + peer],
                                  x->bidir[me * n + peer]};
                sc_watchdog_note_pair(x->wd, me, peer, figs);
            }
        }
        if (status == SC_OK)
            status = pairs__round_done(x, base + r, total, peer, err);
    }
    if (status == SC_OK) { /* the last pair is measured while the others wait here, quietly */
        sc_watchdog_arm(x->wd, "pairs, the end of the last round", pc->world_rank, n);
        status = sc_rte_quiet_barrier(x->rte, x->control, err);
    }
    sc_watchdog_disarm(x->wd);
    return status;
}

/* Every participant ends with the sum of buf over all of them, waiting quietly: entries written
 * by one rank each are gathered this way. */
sc_status_t sc_pairs_sum(sc_pairs_run_t *x, void *buf, int count, MPI_Datatype type,
                         const char *what, sc_err_t *err)
{
    MPI_Request req;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, buf, count, type, MPI_SUM, x->control, &req);
    return rc == MPI_SUCCESS ? sc_rte_quiet_wait(x->rte, &req, what, err)
                             : sc_rte_mpi_error(x->rte, rc, what, err);
}

/* The matrices each rank filled where it measured, gathered on every rank (watched). */
static sc_status_t pairs__gather(sc_pairs_run_t *x, sc_err_t *err)
{
    int nn = x->pc->size * x->pc->size;
    sc_watchdog_arm(x->wd, "pairs, gathering the matrices", x->pc->world_rank, x->pc->size);
    sc_status_t status = sc_pairs_sum(x, x->uni, nn, MPI_DOUBLE, "MPI_Iallreduce(uni)", err);
    if (status == SC_OK)
        status = sc_pairs_sum(x, x->bidir, nn, MPI_DOUBLE, "MPI_Iallreduce(bidir)", err);
    if (status == SC_OK)
        status = sc_pairs_sum(x, x->lat, nn, MPI_DOUBLE, "MPI_Iallreduce(latency)", err);
    if (status == SC_OK)
        status = sc_pairs_sum(x, x->looks, nn, MPI_INT, "MPI_Iallreduce(looks)", err);
    sc_watchdog_disarm(x->wd);
    return status;
}

/* One more look at a slow pair: each slow direction is measured once more (pairs__stream_look)
 * and keeps its better figure. Every rank learns the figures, so that all take the same step. */
static sc_status_t pairs__look_once(sc_pairs_run_t *x, int a, int b, double limit, sc_err_t *err)
{
    sc_comm_t *pc = x->pc;
    int n = pc->size;
    double *ab = &x->uni[a * n + b], *ba = &x->uni[b * n + a];
    double fresh[2] = {0, 0};
    char what[96];
    snprintf(what, sizeof(what), "pairs, look %d at pair %d<->%d", x->looks[a * n + b] + 1, a, b);
    sc_watchdog_arm(x->wd, what, pc->world_rank, n);
    sc_status_t status = SC_OK;
    if ((pc->rank == a || pc->rank == b) && *ab < limit)
        status = pairs__stream_look(x, a, b, &fresh[0], err);
    if ((pc->rank == a || pc->rank == b) && *ba < limit && status == SC_OK)
        status = pairs__stream_look(x, b, a, &fresh[1], err);
    sc_status_t gathered = sc_pairs_sum(x, fresh, 2, MPI_DOUBLE, "MPI_Iallreduce(look)", err);
    *ab = fresh[0] > *ab ? fresh[0] : *ab;
    *ba = fresh[1] > *ba ? fresh[1] : *ba;
    return status == SC_OK ? gathered : status;
}

/* The control of a round of looks: of the measured pairs above the line, the one whose slower
 * direction is nearest the reference (a typical healthy pair); -1 when there is none. */
static int pairs__control(const sc_pairs_run_t *x, double reference, double limit)
{
    int n = x->pc->size, control = -1;
    double nearest = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double ab = x->uni[a * n + b], ba = x->uni[b * n + a], low = ab < ba ? ab : ba;
            double gap = fabs(low - reference);
            if (x->looks[a * n + b] > 0 && low >= limit && (control < 0 || gap < nearest))
                control = a * n + b, nearest = gap;
        }
    return control;
}

/* The control measured once more, right after the round's looks (from its lower participant):
 * whether the round counts (sc_pairs_round_counts). Every rank learns it. */
static sc_status_t pairs__control_held(sc_pairs_run_t *x, int control, bool *held, sc_err_t *err)
{
    sc_comm_t *pc = x->pc;
    int n = pc->size, a = control / n, b = control % n;
    double fresh = 0;
    char what[96];
    snprintf(what, sizeof(what), "pairs, the control pair %d<->%d of a round of looks", a, b);
    sc_watchdog_arm(x->wd, what, pc->world_rank, n);
    sc_status_t status = SC_OK;
    if (pc->rank == a || pc->rank == b)
        status = pairs__stream_look(x, a, b, &fresh, err);
    sc_status_t gathered = sc_pairs_sum(x, &fresh, 1, MPI_DOUBLE, "MPI_Iallreduce(control)", err);
    *held =
        status != SC_OK || gathered != SC_OK || sc_pairs_round_counts(x, fresh, x->uni[control]);
    return status == SC_OK ? gathered : status;
}

/* The pairs below limit with looks left (index a * n + b, a < b) into slow; their count. */
static int pairs__slow_left(const sc_pairs_run_t *x, double limit, int *slow)
{
    int n = x->pc->size, count = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int looks = x->looks[a * n + b];
            if ((x->uni[a * n + b] < limit || x->uni[b * n + a] < limit) && looks > 0 &&
                looks < x->o->looks)
                slow[count++] = a * n + b;
        }
    return count;
}

/* Later looks, in rounds: each round pauses (sc_pairs_pause) and looks once more at every pair
 * below the slow line that has looks left - noise comes and goes, a fault stays at every look.
 * The pause is per round, not per pair, so a bad node's n-1 pairs cost n-1 measurements, not
 * n-1 pauses. A healthy control pair is measured after the round's looks: when it dropped too,
 * the machine was busy, and the round's looks do not count (up to --looks - 1 such rounds).
 * Looks raise figures and so the median: the line is drawn again each round, until no pair
 * below it has looks left. Every rank holds the same matrix and takes the same steps. */
static sc_status_t pairs__confirm(sc_pairs_run_t *x, double expected, sc_err_t *err)
{
    int n = x->pc->size;
    int *slow = malloc(((size_t)n * (size_t)n + 1) * sizeof(int));
    sc_status_t status = SC_OK;
    if (slow == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for pairs",
                            x->rte->rank, x->rte->host);
    for (int round = 0; status == SC_OK; round++) {
        double reference = expected > 0 ? expected : sc_stats_matrix_median(x->uni, x->looks, n);
        double limit = (1.0 - x->o->tolerance) * reference;
        int nslow = pairs__slow_left(x, limit, slow);
        if (nslow == 0)
            break;
        int control = pairs__control(x, reference, limit);
        sc_pairs_pause(round);
        x->look_round = round + 1;
        for (int k = 0; k < nslow && status == SC_OK; k++)
            status = pairs__look_once(x, slow[k] / n, slow[k] % n, limit, err);
        bool held = true;
        if (status == SC_OK && control >= 0 && sc_pairs_may_excuse(x))
            status = pairs__control_held(x, control, &held, err);
        for (int k = 0; k < nslow && held; k++) {
            int a = slow[k] / n, b = slow[k] % n;
            x->looks[a * n + b] = x->looks[b * n + a] = x->looks[a * n + b] + 1;
        }
    }
    x->look_round = 0;
    sc_watchdog_disarm(x->wd);
    free(slow);
    return status;
}

/* Rounds measured (every rank fills the pairs it was in), the matrices gathered on every rank,
 * the first looks kept, then the slow pairs looked at again. */
sc_status_t sc_pairs_measure_rounds(sc_pairs_run_t *x, const int *peers, int rounds, int base,
                                    double expected, sc_err_t *err)
{
    int nn = x->pc->size * x->pc->size;
    sc_status_t status = pairs__rounds(x, peers, rounds, base, base + rounds, err);
    if (status == SC_OK)
        status = pairs__gather(x, err);
    if (status == SC_OK) {
        memcpy(x->first, x->uni, (size_t)nn * sizeof(double));
        status = pairs__confirm(x, expected, err);
    }
    return status;
}

/* The second step of quick, bisect and a one-leaf switch: the SUSPECTs of state (and those the
 * matrix adds: members of pairs slow at every look) each with a GOOD node, against the
 * reference the first step drew. Measured into fresh matrices (the gather sums what each rank
 * filled), then merged into out where a pair was measured. */
sc_status_t sc_pairs_again(sc_pairs_run_t *x, double reference, signed char *state,
                           sc_pairs_matrix_t *out, sc_err_t *err)
{
    int n = x->pc->size, *peers = NULL;
    sc_pairs_states(n, out->uni, out->looks, (1.0 - x->o->tolerance) * reference, state);
    int rounds = sc_pairs_retests(n, state, &peers);
    if (rounds == 0)
        return SC_OK;
    sc_pairs_matrix_t again;
    sc_pairs_matrix_alloc(&again, n);
    if (again.uni == NULL) {
        free(peers);
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for pairs", x->rte->rank,
                          x->rte->host);
    }
    x->uni = again.uni, x->bidir = again.bidir, x->lat = again.lat, x->looks = again.looks;
    x->first = again.first;
    /* held to the first step's reference: the pairs looked at again are the doubtful ones, and
     * their own median would not be a fair one */
    sc_status_t status = sc_pairs_measure_rounds(x, peers, rounds, out->rounds, reference, err);
    for (int i = 0; status == SC_OK && i < n * n; i++)
        if (again.looks[i] > 0) {
            out->uni[i] = again.uni[i], out->first[i] = again.first[i];
            out->bidir[i] = again.bidir[i], out->lat[i] = again.lat[i];
            out->looks[i] = again.looks[i];
        }
    out->rounds += rounds;
    x->uni = out->uni, x->bidir = out->bidir, x->lat = out->lat, x->looks = out->looks;
    x->first = out->first;
    sc_pairs_matrix_free(&again);
    free(peers);
    return status;
}

/* The first step's rounds, then what the strategy does with them. */
static sc_status_t pairs__strategy(sc_pairs_run_t *x, double expected, sc_pairs_matrix_t *out,
                                   sc_err_t *err)
{
    const sc_pairs_opts_t *o = x->o;
    int n = x->pc->size, *peers = NULL, rounds = -1;
    if (o->strategy == SC_PAIRS_bisect)
        return sc_pairs_bisect(x, expected, out, err);
    if (o->strategy == SC_PAIRS_quick)
        rounds = sc_pairs_plan_quick(n, &peers);
    else if (o->strategy == SC_PAIRS_switch)
        rounds = sc_pairs_plan_switch(n, o->leaf_of, o->nleaves, &peers);
    else
        rounds = sc_pairs_plan_all(n, &peers);
    sc_status_t status = SC_OK;
    if (rounds < 0)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the rounds",
                            x->rte->rank, x->rte->host);
    if (status == SC_OK)
        status = sc_pairs_measure_rounds(x, peers, rounds, 0, expected, err);
    out->rounds = rounds > 0 ? rounds : 0;
    free(peers);
    /* under one leaf, switch knows no more than quick's first step: a partner to tell apart */
    bool again =
        o->strategy == SC_PAIRS_quick || (o->strategy == SC_PAIRS_switch && o->nleaves < 2);
    signed char *state = again ? calloc((size_t)n, 1) : NULL;
    if (status == SC_OK && again && state == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for pairs",
                            x->rte->rank, x->rte->host);
    if (status == SC_OK && again)
        status = sc_pairs_again(
            x, expected > 0 ? expected : sc_stats_matrix_median(out->uni, out->looks, n), state,
            out, err);
    free(state);
    return status;
}

uint64_t sc_pairs_buffer_bytes(uint64_t size)
{
    return SC_PAIRS_BUF(size);
}

void sc_pairs_matrix_alloc(sc_pairs_matrix_t *m, int n)
{
    memset(m, 0, sizeof(*m));
    size_t nn = (size_t)n * (size_t)n;
    m->n = n;
    m->uni = calloc(nn, sizeof(double));
    m->first = calloc(nn, sizeof(double));
    m->bidir = calloc(nn, sizeof(double));
    m->lat = calloc(nn, sizeof(double));
    m->looks = calloc(nn, sizeof(int));
    if (!m->uni || !m->first || !m->bidir || !m->lat || !m->looks)
        sc_pairs_matrix_free(m);
    m->n = n;
}

sc_status_t sc_pairs_measure(const sc_pairs_ctx_t *in, const sc_pairs_opts_t *o, double expected,
                             sc_pairs_matrix_t *out, sc_err_t *err)
{
    int n = in->pc->size;
    sc_pairs_run_t x = {.rte = in->rte,
                        .pc = in->pc,
                        .control = in->control,
                        .o = o,
                        .wd = in->wd,
                        .on_round = in->on_round,
                        .on_round_arg = in->on_round_arg};
    pairs__read_faults(&x);
    if (in->on_round != NULL && in->pc->rank == 0)
        sc_pairs_matrix_alloc(&x.so_far, n);
    x.buf = sc_comm_alloc(x.pc, SC_PAIRS_BUF(o->size));
    sc_pairs_matrix_alloc(out, n);
    x.uni = out->uni;
    x.bidir = out->bidir;
    x.lat = out->lat;
    x.looks = out->looks;
    x.first = out->first;
    sc_status_t status = SC_OK;
    if (!x.buf || !x.uni)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for pairs",
                            x.rte->rank, x.rte->host);
    if (status == SC_OK) /* written once: unwritten host pages all read the one zero page */
        status = sc_comm_fill_bytes(x.pc, x.buf, 0x3C, SC_PAIRS_BUF(o->size), err);
    if (status == SC_OK && o->put && !sc_comm_has_rma(x.pc))
        status = sc_err_set(err, SC_ERR_USAGE, SC_PAIRS_PUT_NEEDS_UCX, sc_comm_name(x.pc));
    if (status == SC_OK && o->put)
        status = sc_comm_rma_expose(x.pc, x.buf, 2 * o->size, err);
    if (status == SC_OK)
        status = pairs__strategy(&x, expected, out, err);
    for (int a = 0; out->looks != NULL && a < n; a++)
        for (int b = a + 1; b < n; b++)
            out->measured += out->looks[a * n + b] > 0;
    out->busy_rounds = x.busy_rounds;
    if (x.buf)
        sc_comm_free(x.pc, x.buf);
    sc_pairs_matrix_free(&x.so_far);
    return status;
}

void sc_pairs_matrix_free(sc_pairs_matrix_t *m)
{
    free(m->uni);
    free(m->bidir);
    free(m->lat);
    free(m->looks);
    free(m->first);
    free(m->groups);
    memset(m, 0, sizeof(*m));
}
