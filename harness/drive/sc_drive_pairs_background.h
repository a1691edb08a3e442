/* sc_drive_pairs_background.h - `pairs --background alltoall`: the participants' matrix measured
 * again while every other rank (the second and later ranks of each host) loads the fabric with
 * an all-to-all, each victim's slowdown per pair, host, leaf and the spine between leaves
 * (sc_drive_pairs_background.c). */
#ifndef SC_DRIVE_PAIRS_BACKGROUND_H
#define SC_DRIVE_PAIRS_BACKGROUND_H

#include "pairs/sc_pairs.h"
#include "record/sc_result.h"
#include "session/sc_session.h"

/* What the load did: its operations while the victims measured, and its bus bandwidth. */
typedef struct {
    long ops;
    double seconds, busbw_GBps;
    int ranks;
} sc_background_t;

/* --background WORD on this launch: bad usage unless alltoall, one rank per node and a second
 * rank on every host. */
sc_status_t sc_pairs_background_check(const char *word, bool per_rank, const sc_rte_t *rte,
                                      sc_err_t *err);

/* The loaded pass. On the participants (x->pc set): the matrix again with one look each into
 * *loaded while the others run the load; on the others: the load, from a barrier over the
 * world to the first participant's word to stop. size: the load's bytes a rank. *bg: what the
 * load did (on rank 0). Collective over the world. */
sc_status_t sc_pairs_background_run(sc_session_t *ses, const sc_pairs_ctx_t *x,
                                    const sc_pairs_opts_t *o, uint64_t size,
                                    sc_pairs_matrix_t *loaded, sc_background_t *bg, sc_err_t *err);

/* rank 0: the traffic rows of doc from the quiet matrix and the loaded one (a row a pair, a
 * host, and with leaves a leaf and a pair of leaves over the spine), printed, and judged. */
void sc_pairs_background_rows(sc_session_t *ses, const sc_pairs_matrix_t *quiet,
                              const sc_pairs_matrix_t *loaded, const char *const *names,
                              const sc_leaves_t *leaves, uint64_t size, const sc_background_t *bg,
                              sc_result_t *doc);

/* What the topology says of the fabric between two halves (--bisection). */
typedef struct {
    bool held; /* a topology was given: the bisection is held to it */
    double oversubscription;
    long long nodes_per_leaf;
    char topology[64];
} sc_cut_spec_t;

/* The participants' sides of the cut (malloc'd, pc->size entries; NULL on the others or
 * without memory): the first half of the leaves against the rest where the nodes sit under
 * several (the switch map, else the topology's nodes_per_leaf), else the first half of the
 * participants against the second. */
int *sc_pairs_cut_sides(const sc_comm_t *pc, const sc_leaves_t *leaves, const sc_cut_spec_t *cut);

/* rank 0: the bisection's traffic row (kind "cut"), printed, and with a topology its check:
 * the share of what its pairs carry alone that crosses the cut at once, held to 1 /
 * inter.oversubscription where the sides are under different leaves (else 1), tolerance. */
void sc_pairs_cut_row(sc_session_t *ses, const char *const *names, const int *side, int n,
                      const sc_leaves_t *leaves, uint64_t size, const sc_bisection_t *b,
                      const sc_cut_spec_t *cut, double tolerance, sc_result_t *doc);

#endif
