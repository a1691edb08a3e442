/* sc_pattern.h - the step runner: executes a step plan (plan/sc_plan.h) on the ranks of a
 * (dp, pp, tp) grid. Every operation goes through the backend ops, so the same step runs on
 * NCCL and on MPI; the runner counts the calls and bytes it issues and times what blocks. */
#ifndef SC_PATTERN_H
#define SC_PATTERN_H

#include <stdatomic.h>
#include <stdint.h>

#include "comm/sc_backend.h"
#include "patterns/sc_timeline.h"
#include "plan/sc_plan.h"

typedef struct {
    uint64_t calls[SC_PLAN_OP_COUNT];
    uint64_t bytes[SC_PLAN_OP_COUNT]; /* payload as the plan sizes it (before --bytes-scale) */
    uint64_t sent[SC_PLAN_OP_COUNT];  /* payload handed to the backend (scaled, capped, >= 1
                                         element a rank), in the plan's units */
} sc_pattern_counts_t;

/* A rank's place in the grid and its group communicators (NULL where the group is this rank
 * alone). Rank r of the point: t = r % tp, p = (r / tp) % pp, d = r / (tp pp). */
typedef struct {
    sc_layout_t layout;
    int d, p, t;
    sc_comm_t *tp, *pp, *dp;
} sc_grid_t;

/* Builds the groups over comm (collective over comm). */
sc_status_t sc_grid_create(sc_comm_t *comm, const sc_layout_t *layout, sc_grid_t *grid,
                           sc_err_t *err);
void sc_grid_destroy(sc_grid_t *grid);

/* What a step runs: all of it, or (to see what overlap saved) its compute or its communication
 * alone. */
typedef enum { SC_STEP_WHOLE, SC_STEP_COMPUTE_ONLY, SC_STEP_COMM_ONLY } sc_step_part_t;

/* What a step needs besides the grid. */
typedef struct {
    const sc_plan_t *plan;
    const sc_grid_t *grid;
    sc_comm_t *world;   /* the point's communicator (compute runs on it when there are no groups) */
    double bytes_scale; /* messages are this fraction of the plan's sizes */
    double compute_scale; /* compute phases are this fraction of the plan's time (its FLOPs,
                             where the products run) */
    bool kernels;         /* compute phases run the plan's products (compute.mode flops on a
                             backend with matrix products), else a spin of the plan's time */
    sc_step_part_t part;
    void *buf; /* scratch, buf_bytes, on the backend's memory */
    size_t buf_bytes;
    /* Optional: called for every collective issued (the benchmark replays them alone). */
    void (*trace)(void *arg, sc_coll_id_t coll, sc_comm_t *comm, sc_dtype_t dtype, size_t count);
    void *trace_arg;
    /* Optional: every operation's begin and end, on its track (run --trace). */
    sc_timeline_t *timeline;
    sc_pattern_counts_t counts; /* accumulated over the steps run */
    double comm_us;             /* time blocked in communication (exposed), accumulated */
    double compute_us;          /* time in the compute phase, accumulated */
    double compute_flops;       /* FLOPs the products ran, accumulated (kernels) */
} sc_step_t;

/* Scratch bytes a step of the plan needs (at bytes_scale): its largest message, three times (what
 * is sent, what blocking and what started operations receive). */
size_t sc_step_buffer_bytes(const sc_plan_t *plan, double bytes_scale);

/* Runs one training step: this rank's stage of the plan. */
sc_status_t sc_step_run(sc_step_t *step, sc_err_t *err);

/* The step's compute alone and its communication alone, each the fastest of n runs after a
 * barrier on comm (ms); every run ticks progress (a watchdog's; NULL: none); what the whole
 * steps counted is left as it was. Collective. */
sc_status_t sc_step_alone(sc_step_t *step, sc_comm_t *comm, int n, atomic_uint_fast64_t *progress,
                          double *compute_ms, double *comm_ms, sc_err_t *err);

/* A workload's step made ready on comm (collective over it): the workload as it runs on
 * comm's ranks, its layout, plan and grid, and the step with its buffer allocated and filled.
 * On error nothing is left to release. */
typedef struct {
    sc_workload_t at;
    sc_layout_t layout;
    sc_plan_t plan;
    sc_grid_t grid;
    sc_step_t step;
} sc_step_ready_t;
sc_status_t sc_step_prepare(sc_comm_t *comm, const sc_workload_t *w, double bytes_scale,
                            double compute_scale, sc_step_ready_t *r, sc_err_t *err);
void sc_step_release(sc_step_ready_t *r);

#endif
