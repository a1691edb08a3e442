/* sc_collide.h - traffic that collides: several communicators' operations started at once, as
 * training runs TP, DP and expert all-to-all together, each polled to its own end so that every
 * one is timed under the others' load (coll --concurrent; docs/endings.md, "Traffic that
 * collides"). The same rounds with one flow on time it alone. */
#ifndef SC_COLLIDE_H
#define SC_COLLIDE_H

#include <stdbool.h>

#include "comm/sc_backend.h"
#include "engine/sc_watchdog.h"

/* One communicator's operation: a collective sc_comm_istart can start. */
typedef struct {
    sc_comm_t *comm;   /* NULL: this rank is not in the flow's group */
    sc_coll_id_t coll; /* allreduce, reducescatter, allgather or alltoall */
    sc_coll_args_t args;
    const char *name; /* for the watchdog: "dp allreduce" */
} sc_flow_t;

/* Rounds: before each, a barrier over control; in each, every flow with on[f] this rank is in
 * starts (in flow order on every rank), and each is polled until it ends. warmup rounds, then
 * iters timed: us[f * iters + i] is this rank's time of flow f in round i (NaN where off or not
 * in it). The watchdog bounds every wait. Collective over control. */
sc_status_t sc_collide_rounds(const sc_rte_t *rte, MPI_Comm control, sc_flow_t *flows, int nflows,
                              const bool *on, int warmup, int iters, sc_watchdog_t *wd, double *us,
                              sc_err_t *err);

#endif
