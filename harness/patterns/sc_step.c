/* sc_step.c - the step runner: walks this rank's stage of the plan and issues each operation
 * on its group's communicator - compute phases, collectives (blocking, or started and left to
 * the group's next wait), activations sent and received between stages. */
#include "sc_pattern.h"
#include "comm/sc_comm_ops.h"

#include <stdio.h>
#include <string.h>

#include "engine/sc_watchdog.h"
#include "util/sc_clock.h"
#include "util/sc_test_fault.h"

/* The communicator the compute phase runs on: the one whose started operations it should
 * keep progressing (gradient buckets first). */
static sc_comm_t *step__compute_comm(const sc_step_t *s)
{
    const sc_grid_t *g = s->grid;
    return g->dp ? g->dp : g->pp ? g->pp : g->tp ? g->tp : s->world;
}

static sc_comm_t *step__group_comm(const sc_step_t *s, sc_plan_group_t group)
{
    const sc_grid_t *g = s->grid;
    switch (group) {
    case SC_GROUP_TP:
        return g->tp;
    case SC_GROUP_PP:
        return g->pp;
    default: /* dp, and experts over the dp ranks */
        return g->dp;
    }
}

/* The type messages travel in: the plan's, or float where the backend lacks it (MPI has no
 * fp16/bf16) - the byte count, which is what the network sees, stays the same. */
static sc_dtype_t step__wire_dtype(const sc_comm_t *comm, int precision)
{
    sc_dtype_t dtype = sc_precision_dtype(precision);
    return sc_comm_supports(comm, SC_COLL_allreduce, dtype, false) ? dtype : SC_DTYPE_float;
}

/* Whether a collective's count is each rank's share of the payload (the plan sizes the whole). */
/* The step's buffer: what is sent, what blocking operations receive, what started ones do. */
#define SC__STEP_REGIONS 3

static bool step__per_rank(sc_coll_id_t coll)
{
    return coll == SC_COLL_reducescatter || coll == SC_COLL_allgather || coll == SC_COLL_alltoall;
}

/* Per-rank element count for a payload of `bytes` (scaled), at least one per rank. */
static size_t step__count(const sc_step_t *s, const sc_comm_t *comm, sc_coll_id_t coll,
                          double bytes, sc_dtype_t dtype)
{
    double elems = bytes * s->bytes_scale / (double)sc_dtype_size(dtype);
    bool per_rank = step__per_rank(coll);
    if (per_rank)
        elems /= comm->size;
    size_t count = (size_t)elems;
    size_t cap = s->buf_bytes / SC__STEP_REGIONS / sc_dtype_size(dtype) /
                 (per_rank ? (size_t)comm->size : 1);
    count = count < cap ? count : cap;
    return count > 0 ? count : 1;
}

/* One operation issued: sent is the payload handed to the backend, in the plan's units. */
static void step__count_op(sc_step_t *s, const sc_plan_op_t *op, uint64_t sent)
{
    int k = sc_plan_op_index(op);
    s->counts.calls[k]++;
    s->counts.bytes[k] += (uint64_t)op->bytes;
    s->counts.sent[k] += sent;
}

/* A blocking collective is the library's blocking one: its non-blocking ones are other
 * algorithms (docs/REFERENCE.md §5) and would not time what a non-overlapped step runs. */
static sc_status_t step__coll(sc_step_t *s, sc_comm_t *comm, const sc_plan_op_t *op, sc_err_t *err)
{
    sc_dtype_t dtype = step__wire_dtype(comm, op->precision);
    size_t region = s->buf_bytes / SC__STEP_REGIONS;
    sc_coll_args_t a = {
        .sendbuf = s->buf,
        .recvbuf = (char *)s->buf + (op->nonblocking ? 2 : 1) * region,
        .count = step__count(s, comm, op->coll, op->bytes, dtype),
        .dtype = dtype,
        .op = SC_REDOP_sum,
    };
    step__count_op(s, op,
                   (uint64_t)a.count * sc_dtype_size(dtype) *
                       (step__per_rank(op->coll) ? (uint64_t)comm->size : 1));
    if (s->trace != NULL)
        s->trace(s->trace_arg, op->coll, comm, dtype, a.count);
    uint64_t t0 = sc_clock_ns();
    sc_status_t status = op->nonblocking ? sc_comm_istart(comm, op->coll, &a, err)
                                         : sc_comm_coll(comm, op->coll, &a, err);
    if (status == SC_OK && !op->nonblocking)
        status = sc_comm_sync(comm, err);
    s->comm_us += (double)(sc_clock_ns() - t0) * 1e-3;
    return status;
}

/* An activation (or its gradient) to or from the neighbouring stage. The send is started and
 * completed by the stage's final wait; the receive blocks, and that wait counts as
 * communication. */
static sc_status_t step__p2p(sc_step_t *s, sc_comm_t *pp, const sc_plan_op_t *op, sc_err_t *err)
{
    size_t region = s->buf_bytes / SC__STEP_REGIONS, count = (size_t)(op->bytes * s->bytes_scale);
    count = count > region ? region : (count ? count : 1);
    step__count_op(s, op, count);
    if (op->kind == SC_PLAN_SEND)
        return sc_comm_isend(pp, s->buf, count, SC_DTYPE_uint8, op->peer_stage, err);
    uint64_t t0 = sc_clock_ns();
    sc_status_t status =
        sc_comm_recv(pp, (char *)s->buf + region, count, SC_DTYPE_uint8, op->peer_stage, err);
    s->comm_us += (double)(sc_clock_ns() - t0) * 1e-3;
    return status;
}

/* The compute phase: the layer's products, or a spin of the plan's time. */
static sc_status_t step__compute(sc_step_t *s, const sc_plan_op_t *op, sc_err_t *err)
{
    double us = op->compute_us * s->compute_scale, took = 0, flops = 0;
    if (us <= 0)
        return SC_OK;
    sc_comm_t *cc = step__compute_comm(s);
    sc_status_t status = s->kernels ? sc_comm_gemm_set(cc, &s->plan->gemms[op->phase],
                                                       s->compute_scale, &took, &flops, err)
                                    : sc_comm_compute_spin(cc, us, &took, err);
    s->compute_us += took;
    s->compute_flops += flops;
    return status;
}

static sc_status_t step__wait(sc_step_t *s, sc_comm_t *comm, sc_err_t *err)
{
    uint64_t t0 = sc_clock_ns();
    sc_status_t status = sc_comm_iwait(comm, err);
    s->comm_us += (double)(sc_clock_ns() - t0) * 1e-3;
    return status;
}

static sc_status_t step__op_run(sc_step_t *s, const sc_plan_op_t *op, sc_err_t *err);

/* One operation, and its span on the timeline (where one is kept). */
static sc_status_t step__op(sc_step_t *s, const sc_plan_op_t *op, sc_err_t *err)
{
    if (s->timeline == NULL)
        return step__op_run(s, op, err);
    uint64_t t0 = sc_timeline_now_ns();
    sc_status_t status = step__op_run(s, op, err);
    bool compute = op->kind == SC_PLAN_COMPUTE;
    if (status == SC_OK && s->part == SC_STEP_WHOLE)
        sc_timeline_add(s->timeline, compute ? SC_TRACK_COMPUTE : 1 + (int)op->group,
                        compute ? -1 : sc_plan_op_index(op), compute ? 0 : op->bytes, t0,
                        sc_timeline_now_ns());
    return status;
}

static sc_status_t step__op_run(sc_step_t *s, const sc_plan_op_t *op, sc_err_t *err)
{
    bool compute = op->kind == SC_PLAN_COMPUTE;
    if ((compute && s->part == SC_STEP_COMM_ONLY) || (!compute && s->part == SC_STEP_COMPUTE_ONLY))
        return SC_OK;
    if (compute)
        return step__compute(s, op, err);
    sc_comm_t *comm = step__group_comm(s, op->group);
    if (comm == NULL) /* the plan has no operations on groups of one rank */
        return sc_err_set(err, SC_ERR_RUNTIME,
                          "rank %d (host %s): step plan: a %s operation on a %s group of one",
                          s->world->rte->rank, s->world->rte->host, sc_plan_kind_name(op->kind),
                          sc_plan_group_name(op->group));
    switch (op->kind) {
    case SC_PLAN_COLL:
        return step__coll(s, comm, op, err);
    case SC_PLAN_WAIT:
        return step__wait(s, comm, err);
    default:
        return step__p2p(s, comm, op, err);
    }
}

sc_status_t sc_step_run(sc_step_t *s, sc_err_t *err)
{
    size_t n;
    const sc_plan_op_t *ops = sc_plan_stage(s->plan, s->grid->p, &n);
    sc_status_t status = SC_OK;
    for (size_t i = 0; i < n && status == SC_OK; i++)
        status = step__op(s, &ops[i], err);
    return status;
}

/* The step's part run alone n times (the fastest kept, ms), after a barrier; each run is
 * progress for the watchdog. */
static sc_status_t step__part(sc_step_t *s, sc_comm_t *comm, sc_step_part_t part, int n,
                              atomic_uint_fast64_t *progress, double *ms, sc_err_t *err)
{
    s->part = part;
    *ms = 0;
    sc_status_t status = sc_comm_barrier(comm, err);
    for (int i = 0; i < n && status == SC_OK; i++) {
        uint64_t t0 = sc_clock_ns();
        status = sc_step_run(s, err);
        double took = (double)(sc_clock_ns() - t0) * 1e-6;
        *ms = i == 0 || took < *ms ? took : *ms;
        if (progress != NULL)
            sc_watchdog_tick(progress);
    }
    return status;
}

sc_status_t sc_step_alone(sc_step_t *s, sc_comm_t *comm, int n, atomic_uint_fast64_t *progress,
                          double *compute_ms, double *comm_ms, sc_err_t *err)
{
    sc_step_t kept = *s; /* what the whole steps counted stays theirs */
    sc_status_t status = step__part(s, comm, SC_STEP_COMPUTE_ONLY, n, progress, compute_ms, err);
    if (status == SC_OK)
        status = step__part(s, comm, SC_STEP_COMM_ONLY, n, progress, comm_ms, err);
    s->counts = kept.counts;
    s->comm_us = kept.comm_us;
    s->compute_us = kept.compute_us;
    s->compute_flops = kept.compute_flops;
    s->part = SC_STEP_WHOLE;
    return status;
}

size_t sc_step_buffer_bytes(const sc_plan_t *plan, double bytes_scale)
{
    double largest = 0;
    for (size_t i = 0; i < plan->nops; i++)
        largest = plan->ops[i].bytes > largest ? plan->ops[i].bytes : largest;
    double need = largest * bytes_scale + 4096.0 * 64; /* one element per rank of big groups */
    /* A send third, a receive third and one for started (non-blocking) operations, each a
     * whole number of pages: with the backend's page-aligned allocation each starts on a page,
     * as coll's buffers do (on the host, the shared-memory copies run at different speeds for
     * different alignments). A started operation writes while the next ones run, on another
     * communicator's stream on a GPU: sharing their receive buffer would be a data race
     * (found by ThreadSanitizer on the emulated device's 3D step). */
    size_t third = ((size_t)need + 4095) / 4096 * 4096;
    return SC__STEP_REGIONS * third;
}

sc_status_t sc_step_prepare(sc_comm_t *comm, const sc_workload_t *w, double bytes_scale,
                            double compute_scale, sc_step_ready_t *r, sc_err_t *err)
{
    memset(r, 0, sizeof(*r));
    sc_workload_at(w, comm->size, &r->at);
    sc_status_t status = sc_workload_layout(&r->at, comm->size, &r->layout, err);
    if (status == SC_OK)
        status = sc_plan_build(&r->at, &r->layout, &r->plan, err);
    if (status != SC_OK)
        return status;
    status = sc_grid_create(comm, &r->layout, &r->grid, err);
    if (status != SC_OK) {
        sc_plan_free(&r->plan);
        return status;
    }
    /* the test-only "slow-compute:RANK:FACTOR": that rank's compute takes FACTOR times as long
     * (a slow GPU or host: the others wait for it at every collective) */
    const char *slow = sc_test_fault("slow-compute");
    int slow_rank = -1;
    double factor = 1;
    if (slow != NULL && sscanf(slow, "%d:%lf", &slow_rank, &factor) == 2 &&
        slow_rank == comm->rte->rank && factor > 0)
        compute_scale *= factor;
    r->step = (sc_step_t){.plan = &r->plan,
                          .grid = &r->grid,
                          .world = comm,
                          .bytes_scale = bytes_scale,
                          .compute_scale = compute_scale,
                          .kernels = w->compute_mode == SC_COMPUTE_FLOPS && sc_comm_has_gemm(comm)};
    r->step.buf_bytes = sc_step_buffer_bytes(&r->plan, bytes_scale);
    r->step.buf = sc_comm_alloc(comm, r->step.buf_bytes);
    if (r->step.buf == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): cannot allocate %zu bytes",
                            comm->rte->rank, comm->rte->host, r->step.buf_bytes);
    if (status == SC_OK)
        status = sc_comm_fill_bytes(comm, r->step.buf, 0, r->step.buf_bytes, err);
    if (status != SC_OK)
        sc_step_release(r);
    return status;
}

void sc_step_release(sc_step_ready_t *r)
{
    if (r->step.buf != NULL)
        sc_comm_free(r->step.world, r->step.buf);
    r->step.buf = NULL;
    if (r->step.grid != NULL)
        sc_grid_destroy(&r->grid);
    if (r->step.plan != NULL)
        sc_plan_free(&r->plan);
    r->step.grid = NULL;
    r->step.plan = NULL;
}
