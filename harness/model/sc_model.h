/* sc_model.h - what the hardware of a topology should deliver: for a collective, size, GPUs
 * per node and node count, the time, algbw and busbw of the algorithm NCCL would pick (ring,
 * tree, NVLink SHARP, hierarchical across nodes: docs/REFERENCE.md §3); for a workload, the step
 * time and the speedup/efficiency curves. Pure arithmetic: instant for any cluster size. */
#ifndef SC_MODEL_H
#define SC_MODEL_H

#include "coll/sc_coll.h"
#include "config/sc_workload.h"
#include "plan/sc_plan.h"
#include "topology/sc_topology.h"

typedef struct {
    const char *algorithm; /* "ring", "tree", "nvls", "nvlstree", "sharp", "p2p", "local"; MPI's
                              (sc_model_mpi.h) */
    const char *protocol;  /* NCCL's: "LL", "LL128", "Simple"; MPI's "eager", "rendezvous"; ""
                              where none is priced */
    double time_us;
    double latency_us; /* the part of time_us that is not bytes at the path's rate */
    double algbw_GBps;
    double busbw_GBps;
} sc_prediction_t;

/* size_bytes as the user gives it (coll's convention: the whole buffer for allgather etc.). */
void sc_model_collective(const sc_topology_t *t, const sc_coll_t *coll, double size_bytes,
                         int gpus_per_node, int nodes, sc_prediction_t *out);

typedef struct {
    int gpus, nodes, dp, tp, pp;
    double compute_ms, comm_ms, step_ms; /* comm_ms: the step less its compute - exposed
                                            communication and pipeline waits */
    double throughput;                   /* samples/s */
    double flops_per_sample;             /* a sample's training FLOPs here (the model grows
                                            under batch.scaling model) */
    double speedup, efficiency;          /* against the first point of the curve */
} sc_step_prediction_t;

/* Prices a step plan built for w on gpus_per_node x nodes GPUs: every stage's operations in
 * order on one clock per stage - compute (slower by the topology's training.overlap_slowdown
 * while a started collective runs beside it), blocking collectives, collectives started on a
 * group and completed at its next wait, activations arriving from the neighbouring stage (the
 * pipeline bubble comes out of the schedule). Then the step waits for the slowest rank
 * (training.step_jitter over the micro-steps between syncs) and for the node's input pipeline.
 * The GPU's peak comes from the topology for the workload's compute precision. bytes_scale and
 * compute_scale shrink messages and compute as `run` does. */
sc_status_t sc_model_plan(const sc_topology_t *t, const sc_workload_t *w, const sc_plan_t *plan,
                          int gpus_per_node, int nodes, double bytes_scale, double compute_scale,
                          sc_step_prediction_t *out, sc_err_t *err);

/* The plan of w on gpus_per_node x nodes GPUs (layout from the workload), priced. SC_ERR_USAGE
 * when the layout does not fit. */
sc_status_t sc_model_step(const sc_topology_t *t, const sc_workload_t *w, int gpus_per_node,
                          int nodes, double bytes_scale, double compute_scale,
                          sc_step_prediction_t *out, sc_err_t *err);

/* The same, pricing compute as `run` performs it: where it ran the products (products: a GPU,
 * compute.mode flops) at the GPU's speed as the model has it; where it spun, the plan's compute
 * at the workload's GPU speed (a spin does not compute at the topology's peak), so that a run's
 * points are judged on what the hardware adds - communication, waits, overlap. */
sc_status_t sc_model_step_as_run(const sc_topology_t *t, const sc_workload_t *w, int gpus_per_node,
                                 int nodes, double bytes_scale, double compute_scale, bool products,
                                 sc_step_prediction_t *out, sc_err_t *err);

/* The input pipeline the step model assumes for w on t, in words ("input: CPU decode 7.70 ms a
 * sample on 64 cores (assumed: ...)"): `compare` shows it beside each system. */
void sc_model_input_describe(const sc_topology_t *t, const sc_workload_t *w, char *buf, size_t len);

/* The share of its GPU's peak w computes at on t: what calibrate measured, compute.efficiency
 * where the workload states it, else priced from its shapes (its products at
 * SC_DEFAULT_GEMM_SHARE of peak plus its activations' memory traffic), else the published figure
 * for its kind of model on the GPU's generation (or the nearest one): the same rule for every
 * system (docs/REFERENCE.md section 8.1). */
double sc_model_compute_efficiency(const sc_topology_t *t, const sc_workload_t *w);
/* It in words, with what was assumed ("compute: 45.0 % of 312 TFLOP/s (assumed: transformer on
 * Ampere: ...)"): `model` and `compare` show it. */
void sc_model_compute_describe(const sc_topology_t *t, const sc_workload_t *w, char *buf,
                               size_t len);

#endif
