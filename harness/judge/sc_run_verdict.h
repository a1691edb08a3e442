/* sc_run_verdict.h - the expectations and checks of `scalecheck run` with a topology. */
#ifndef SC_RUN_VERDICT_H
#define SC_RUN_VERDICT_H

#include <jansson.h>

#include "config/sc_workload.h"
#include "topology/sc_topology.h"

/* Adds the model's expectations to points and sweep rows and returns the checks (new array):
 * efficiency per point, all-reduce time per sweep size, and the topology's claims. */
json_t *sc_run_verdict(const sc_topology_t *t, const sc_workload_t *w, double bytes_scale,
                       double compute_scale, int gpus_per_node, int nodes, json_t *points,
                       json_t *sweep);

/* Expected speedup and efficiency recomputed for what is really there (detected topology):
 * points get expected_speedup_detected and expected_efficiency_detected. */
void sc_run_expect_detected(const sc_topology_t *actual, const sc_workload_t *w, double bytes_scale,
                            double compute_scale, json_t *points);

#endif
