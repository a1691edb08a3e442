/* cmd_run_verdict.h - the expectations and checks of `scalecheck run` (cmd_run_verdict.c). */
#ifndef SC_CMD_RUN_VERDICT_H
#define SC_CMD_RUN_VERDICT_H

#include <jansson.h>

#include "comm/sc_backend.h"
#include "config/sc_workload.h"
#include "engine/sc_watchdog.h"
#include "report/sc_results.h"
#include "topology/sc_topology.h"

/* All-reduce (float) from 4 B to max_bytes by x4 on world: rows on every rank. Collective. */
sc_status_t sc_run_sweep(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd, uint64_t max_bytes,
                         json_t **out, sc_err_t *err);

/* Adds the model's expectations to points and sweep rows and returns the checks (new array):
 * efficiency per point, all-reduce time per sweep size, and the topology's claims. */
json_t *sc_run_verdict(const sc_topology_t *t, const sc_workload_t *w, double bytes_scale,
                       double compute_scale, int gpus_per_node, int nodes, json_t *points,
                       json_t *sweep);

/* Expected speedup and efficiency recomputed for what is really there (detected topology):
 * points get expected_speedup_detected and expected_efficiency_detected. */
void sc_run_expect_detected(const sc_topology_t *actual, const sc_workload_t *w, double bytes_scale,
                            double compute_scale, json_t *points);

/* The declared-vs-detected findings, one line each. */
void sc_run_print_findings(sc_results_t *res, const json_t *findings);

#endif
