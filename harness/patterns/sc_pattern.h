/* sc_pattern.h - one training step of a workload, as the ranks of a (dp, pp, tp) grid run it:
 * a pipeline schedule over micro-batches (pattern_pp.c), in every stage the layers' compute with
 * their tensor-parallel collectives (pattern_tp.c) and expert all-to-alls (pattern_moe.c), and
 * the data-parallel gradient synchronisation in buckets, overlapped with backward or not, or
 * ZeRO's reduce-scatter/all-gather (pattern_dp.c). Everything goes through the backend ops, so
 * the same step runs on NCCL and on MPI. Each pattern counts the calls and bytes it issues. */
#ifndef SC_PATTERN_H
#define SC_PATTERN_H

#include <stdint.h>

#include "comm/sc_backend.h"
#include "config/sc_workload.h"

/* name: communication a step issues, counted per kind */
#define SC_PATTERN_OPS_MAP(X) X(allreduce) X(reducescatter) X(allgather) X(alltoall) X(send) X(recv)

typedef enum {
#define SC__PATOP_ENUM(name) SC_PATOP_##name,
    SC_PATTERN_OPS_MAP(SC__PATOP_ENUM)
#undef SC__PATOP_ENUM
        SC_PATOP_COUNT
} sc_patop_t;

const char *sc_patop_name(sc_patop_t op);

typedef struct {
    uint64_t calls[SC_PATOP_COUNT];
    uint64_t bytes[SC_PATOP_COUNT]; /* payload as the workload sizes it (before --bytes-scale) */
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

/* What a step needs besides the grid. */
typedef struct {
    const sc_workload_t *w;
    const sc_grid_t *grid;
    sc_comm_t *world;   /* the point's communicator (compute runs on it when there are no groups) */
    double bytes_scale; /* messages are this fraction of the workload's sizes */
    double compute_scale; /* compute phases are this fraction of the modelled time */
    void *buf;            /* scratch, buf_bytes, on the backend's memory */
    size_t buf_bytes;
    /* Optional: called for every collective issued (the benchmark replays them alone). */
    void (*trace)(void *arg, sc_patop_t op, sc_comm_t *comm, sc_dtype_t dtype, size_t count);
    void *trace_arg;
    sc_pattern_counts_t counts; /* accumulated over the steps run */
    double comm_us;             /* time blocked in communication (exposed), accumulated */
    double compute_us;          /* time in the compute phase, accumulated */
} sc_step_t;

/* Scratch bytes a step of w on this grid needs (at bytes_scale). */
size_t sc_step_buffer_bytes(const sc_workload_t *w, const sc_grid_t *grid, double bytes_scale);

/* Runs one training step. */
sc_status_t sc_step_run(sc_step_t *step, sc_err_t *err);

/* --- the patterns, called by sc_step_run --- */

/* Communication helpers: issue on comm, count, and time what blocks. */
sc_status_t sc_pattern_coll(sc_step_t *s, sc_comm_t *comm, sc_patop_t op, double bytes,
                            bool nonblocking, sc_err_t *err);
sc_status_t sc_pattern_wait(sc_step_t *s, sc_comm_t *comm, sc_err_t *err);
sc_status_t sc_pattern_compute(sc_step_t *s, sc_comm_t *comm, double us, sc_err_t *err);

/* Tensor parallel, one layer's forward or backward for one micro-batch. */
sc_status_t sc_pattern_tp_layer(sc_step_t *s, bool backward, sc_err_t *err);
/* Mixture of experts, one MoE layer's forward or backward for one micro-batch. */
sc_status_t sc_pattern_moe_layer(sc_step_t *s, sc_err_t *err);
bool sc_pattern_is_moe_layer(const sc_workload_t *w, long long layer);

/* Data parallel: state across the backward of the last micro-batch. */
#define SC_DP_MAX_DEFERRED 4096
typedef struct {
    double bucket_fill; /* bytes gathered in the open bucket */
    int buckets;        /* buckets issued this step */
    /* without overlap: the buckets' sizes, reduced after backward */
    double deferred[SC_DP_MAX_DEFERRED];
    int ndeferred;
} sc_dp_state_t;
/* ZeRO-3 gathers a layer's parameters before its forward and its backward. */
sc_status_t sc_pattern_dp_gather_params(sc_step_t *s, sc_err_t *err);
/* A layer's gradients are ready (last micro-batch's backward). */
sc_status_t sc_pattern_dp_grads(sc_step_t *s, sc_dp_state_t *st, sc_err_t *err);
/* End of backward: last bucket, waits, ZeRO-1/2 parameter all-gather. */
sc_status_t sc_pattern_dp_finish(sc_step_t *s, sc_dp_state_t *st, sc_err_t *err);

/* Pipeline: the schedule of stage p (of pp) over m micro-batches, as a list of actions:
 * action >= 0 is the forward of micro-batch action, action < 0 the backward of -action-1.
 * Returns the number of actions (2 m). */
int sc_pattern_pp_schedule(int schedule, int p, int pp, int m, int *actions);
/* Bytes of one activation (or its gradient) between stages. */
double sc_pattern_activation_bytes(const sc_workload_t *w);
/* Modelled compute of one layer, forward (backward = 2x), one micro-batch, in microseconds. */
double sc_pattern_layer_us(const sc_workload_t *w, const sc_grid_t *grid);

#endif
