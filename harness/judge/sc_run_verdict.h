/* sc_run_verdict.h - the expectations and checks of `scalecheck run` with a topology. */
#ifndef SC_RUN_VERDICT_H
#define SC_RUN_VERDICT_H

#include "config/sc_workload.h"
#include "record/sc_record.h"
#include "topology/sc_topology.h"

typedef struct {
    const sc_workload_t *w;
    double bytes_scale, compute_scale;
    int gpus_per_node, nodes; /* of the whole job (the sweep ran on all of it) */
    bool products;            /* the step ran the layer's products (a GPU), not a spin */
} sc_run_shape_t;

/* Sets the model's expectations on the points and the sweep rows and adds the checks:
 * efficiency per point, all-reduce time per sweep size, and the topology's claims. */
void sc_run_verdict(const sc_topology_t *t, const sc_run_shape_t *shape, sc_points_t *points,
                    sc_case_rows_t *sweep, sc_checks_t *checks);

/* Which points past the first sit below the model's band for their scaling efficiency
 * (again[i] = 1; the others 0): those get another look before the verdict. */
void sc_run_points_slow(const sc_topology_t *t, const sc_run_shape_t *shape, sc_points_t *points,
                        unsigned char *again);

/* Expected speedup and efficiency recomputed for what is really there (detected topology):
 * the points' expected_*_detected. */
void sc_run_expect_detected(const sc_topology_t *actual, const sc_run_shape_t *shape,
                            sc_points_t *points);

#endif
