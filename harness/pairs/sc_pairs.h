/* sc_pairs.h - the point-to-point matrix between participants (one rank per node, or every
 * rank): latency, bandwidth each way and both ways, with slow pairs looked at again before
 * they are named. What the matrix means is judged elsewhere (judge/sc_localize.h). */
#ifndef SC_PAIRS_H
#define SC_PAIRS_H

#include <stdbool.h>
#include <stdint.h>

#include "comm/sc_backend.h"
#include "engine/sc_watchdog.h"
#include "pairs/sc_pairs_plan.h"
#include "topology/sc_switches.h"

typedef struct {
    uint64_t size;        /* message size for bandwidth */
    int iters, lat_iters; /* messages per bandwidth figure, ping-pongs per latency figure */
    int looks;            /* a slow pair is measured up to this many times */
    bool serial;          /* one pair at a time, else disjoint pairs at once */
    bool put;             /* one-sided RMA puts instead of tagged messages */
    double tolerance;     /* slow: below (1 - tolerance) x the reference */
    sc_pairs_strategy_t strategy;
    const int *leaf_of; /* switch: each participant's leaf (0 .. nleaves - 1) */
    int nleaves;
} sc_pairs_opts_t;

/* Puts on a backend without one-sided transfers (printf format: the backend's name). */
#define SC_PAIRS_PUT_NEEDS_UCX "--method put: one-sided transfers need the ucx backend (not %s)"
/* Bisect on a backend without collectives (printf format: the backend's name). */
#define SC_PAIRS_NO_ALLREDUCE "--strategy bisect: the %s backend has no all-reduce (mpi or nccl)"

/* A group all-reduce of the bisect search. */
typedef struct {
    sc_span_t span;   /* its participants */
    int round, looks; /* the round it ran in (from 1), times measured */
    double busbw_GBps;
    bool slow;
} sc_pairs_group_t;

/* The measurement, n x n, entry [i * n + j] from participant i to j. */
typedef struct {
    int n;
    double *uni, *first;      /* GB/s from i to j: best look, and first look */
    double *bidir, *lat;      /* GB/s both ways; microseconds one way */
    int *looks;               /* how many times the pair was measured (0: not measured) */
    int rounds, measured;     /* rounds run, pairs measured (the first look of each) */
    int busy_rounds;          /* rounds of later looks not counted: the control dropped too */
    sc_pairs_group_t *groups; /* bisect: the groups measured, in order */
    int ngroups;
    double group_reference; /* bisect: the busbw the groups were held to */
} sc_pairs_matrix_t;

/* After each round, on the first participant: the matrix so far (0 where not measured yet),
 * so that a fault keeps the rounds that finished. */
typedef void (*sc_pairs_round_fn)(void *arg, const sc_pairs_matrix_t *so_far, int round,
                                  int rounds);

typedef struct {
    const sc_rte_t *rte;
    sc_comm_t *pc;    /* the participants */
    MPI_Comm control; /* the same ranks, for the quiet waits and the gathers */
    sc_watchdog_t *wd;
    sc_pairs_round_fn on_round; /* NULL: none; the same on every participant */
    void *on_round_arg;
} sc_pairs_ctx_t;

/* The bytes a rank's pair buffers take for messages of size bytes (a command's memory check). */
uint64_t sc_pairs_buffer_bytes(uint64_t size);

/* Measures the matrix (collective over the participants; every one ends with all of it).
 * expected: GB/s that draws the slow line, or 0 for the matrix's median. */
sc_status_t sc_pairs_measure(const sc_pairs_ctx_t *ctx, const sc_pairs_opts_t *o, double expected,
                             sc_pairs_matrix_t *out, sc_err_t *err);
/* The bisection: what crosses a cut between two sides of the participants, its pairs (the
 * k-th of one side with the k-th of the other) streaming both ways each alone, then all at once
 * (GB/s both ways, summed over the pairs; best of 3 trials each). */
typedef struct {
    int pairs;
    double alone_GBps, together_GBps;
} sc_bisection_t;

/* side[i]: participant i's side (0 or 1). Collective over the participants; every one ends
 * with the figures. */
sc_status_t sc_pairs_bisection(const sc_pairs_ctx_t *ctx, const sc_pairs_opts_t *o, const int *side,
                               sc_bisection_t *out, sc_err_t *err);

/* An n x n matrix of zeros, or all of it NULL when memory ran out. */
void sc_pairs_matrix_alloc(sc_pairs_matrix_t *m, int n);
void sc_pairs_matrix_free(sc_pairs_matrix_t *m);

#endif
