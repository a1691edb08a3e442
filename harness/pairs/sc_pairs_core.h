/* sc_pairs_core.h - what the pair measurement (sc_pairs.c) and the bisect search
 * (sc_pairs_bisect.c) share inside the pairs module: one run's state and the steps both take.
 * Not for other modules: they use sc_pairs.h. */
#ifndef SC_PAIRS_CORE_H
#define SC_PAIRS_CORE_H

#include "pairs/sc_pairs.h"

/* The buffer: a send half and a receive half of size bytes, and room for a float each. */
#define SC_PAIRS_BUF(size) (2 * (size_t)(size) + 8)

typedef struct {
    const sc_rte_t *rte;
    sc_comm_t *pc;    /* the participants */
    MPI_Comm control; /* the same ranks, for the quiet waits and the gathers */
    void *buf;        /* SC_PAIRS_BUF(o->size) bytes */
    const sc_pairs_opts_t *o;
    sc_watchdog_t *wd;
    double *uni, *bidir, *lat; /* n x n, filled where this rank measured */
    double *first;             /* n x n: uni at the first look, before later looks */
    int *looks;                /* n x n: how many times the pair was measured */
    int busy_rounds;           /* rounds of later looks not counted: their control dropped too */
    int look_round;            /* 0: first looks; r: the r-th round of later looks */
    /* Test-only faults, read once from SCALECHECK_TEST_FAULT (sc_test_fault.h):
     * "slow-first:P" - every first-look figure of participant P reads 50x slower (a moment's
     * noise on one node); "busy-looks:K" - every figure of the first K rounds of later looks
     * reads 50x slower, controls included (a machine busy for a while). */
    int fault_slow_first, fault_busy_looks;
    int fault_die_rank; /* "pairs-die:RANK": that world rank dies (SIGKILL) at its first pair */
    sc_pairs_round_fn on_round;
    void *on_round_arg;
    sc_pairs_matrix_t so_far; /* the first participant's, with on_round */
} sc_pairs_run_t;

/* Both directions at once with peer: --iters messages each way; GB/s both ways together, as
 * this rank timed it. */
sc_status_t sc_pairs_both_ways(sc_pairs_run_t *x, int peer, double *gbps, sc_err_t *err);
/* Every participant ends with the sum of buf over all of them, waiting quietly. */
sc_status_t sc_pairs_sum(sc_pairs_run_t *x, void *buf, int count, MPI_Datatype type,
                         const char *what, sc_err_t *err);
/* The rounds of peers (rounds x n) measured, numbered from base; the matrices gathered on every
 * rank; the slow pairs looked at again against expected (0: the matrix's median). */
sc_status_t sc_pairs_measure_rounds(sc_pairs_run_t *x, const int *peers, int rounds, int base,
                                    double expected, sc_err_t *err);
/* The retest step: state's suspects (and the matrix's) each with a good node, against
 * reference; merged into out. */
sc_status_t sc_pairs_again(sc_pairs_run_t *x, double reference, signed char *state,
                           sc_pairs_matrix_t *out, sc_err_t *err);
/* gbps as the test-only faults make it read: involves_slow says the figure is the slow-first
 * participant's. */
double sc_pairs_faulted(const sc_pairs_run_t *x, bool involves_slow, double gbps);
/* Whether a round of later looks may still be excused as busy (up to --looks - 1 rounds). */
bool sc_pairs_may_excuse(const sc_pairs_run_t *x);
/* Whether a round of later looks counts: its control's fresh figure held
 * SC_DEFAULT_PAIRS_CONTROL_HOLD of its kept one; a round that does not is counted busy. */
bool sc_pairs_round_counts(sc_pairs_run_t *x, double fresh, double kept);
/* A round of later looks' pause: 0.25 s, doubling each round, at most 2 s. */
void sc_pairs_pause(int round);
/* The bisect search, whole (sc_pairs_bisect.c). */
sc_status_t sc_pairs_bisect(sc_pairs_run_t *x, double expected, sc_pairs_matrix_t *out,
                            sc_err_t *err);

#endif
