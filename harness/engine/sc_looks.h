/* sc_looks.h - the one look-again loop of every figure a verdict keeps the best of (coll's
 * cases, run's points and its all-reduce sweep, the reference probe): a figure off its
 * expectation is measured again, up to max_looks looks in all, and the better look kept - a
 * moment of a busy machine is not a slow system. Before each further look rank 0 says which
 * figures are still off, every rank learns it by a watched broadcast and measures those again;
 * the loop ends when none is off. */
#ifndef SC_LOOKS_H
#define SC_LOOKS_H

#include "engine/sc_watchdog.h"

typedef struct {
    int n;            /* figures */
    int max_looks;    /* looks in all, the first (already taken) included: --looks */
    const char *what; /* the broadcast's name, for the watchdog ("which points to look at again") */
    /* rank 0 only: again[i] = 1 where figure i is still off (again[] starts zeroed) */
    void (*off)(void *ctx, unsigned char *again);
    /* every rank: measure figure i once more; the callee keeps the better look and counts it */
    sc_status_t (*again)(void *ctx, int i, sc_err_t *err);
    void *ctx;
} sc_looks_t;

/* Runs the further looks of l over control (every rank calls it). Collective. */
sc_status_t sc_looks_run(const sc_looks_t *l, sc_watchdog_t *wd, const sc_rte_t *rte,
                         MPI_Comm control, sc_err_t *err);

#endif
