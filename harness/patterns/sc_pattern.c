/* sc_pattern.c - what the patterns share: issuing a counted, timed collective on a group,
 * waiting, the compute phase, and the sizes the workload implies. */
#include "sc_pattern.h"

#include "util/sc_clock.h"

static const char *const sc__patop_names[] = {
#define SC__PATOP_NAME(name) #name,
    SC_PATTERN_OPS_MAP(SC__PATOP_NAME)
#undef SC__PATOP_NAME
};

const char *sc_patop_name(sc_patop_t op)
{
    return sc__patop_names[op];
}

/* The type messages travel in: the workload's, or float where the backend lacks it (MPI has no
 * fp16/bf16) - the byte count, which is what the network sees, stays the same. */
static sc_dtype_t sc__wire_dtype(const sc_comm_t *comm, int precision)
{
    sc_dtype_t dtype = sc_precision_dtype(precision);
    return comm->ops->supports(comm, "allreduce", dtype, false) ? dtype : SC_DTYPE_float;
}

/* Per-rank element count for a payload of `bytes` (scaled), at least one per rank. */
static size_t sc__count(const sc_step_t *s, const sc_comm_t *comm, sc_patop_t op, double bytes,
                        sc_dtype_t dtype)
{
    double elems = bytes * s->bytes_scale / (double)sc_dtype_size(dtype);
    bool per_rank =
        op == SC_PATOP_reducescatter || op == SC_PATOP_allgather || op == SC_PATOP_alltoall;
    if (per_rank)
        elems /= comm->size;
    size_t count = (size_t)elems;
    size_t cap = s->buf_bytes / 2 / sc_dtype_size(dtype) / (per_rank ? (size_t)comm->size : 1);
    count = count < cap ? count : cap;
    return count > 0 ? count : 1;
}

/* Blocking calls are the library's blocking collectives: its non-blocking ones are other
 * algorithms (docs/REFERENCE.md §5) and would not time what a non-overlapped step runs. */
static sc_coll_fn_t sc__blocking(const sc_comm_t *comm, sc_patop_t op)
{
    switch (op) {
    case SC_PATOP_reducescatter:
        return comm->ops->reducescatter;
    case SC_PATOP_allgather:
        return comm->ops->allgather;
    case SC_PATOP_alltoall:
        return comm->ops->alltoall;
    default:
        return comm->ops->allreduce;
    }
}

sc_status_t sc_pattern_coll(sc_step_t *s, sc_comm_t *comm, sc_patop_t op, double bytes,
                            bool nonblocking, sc_err_t *err)
{
    sc_dtype_t dtype = sc__wire_dtype(comm, s->w->gradients);
    if (op == SC_PATOP_alltoall)
        dtype = sc__wire_dtype(comm, s->w->activations);
    size_t half = s->buf_bytes / 2;
    sc_coll_args_t a = {
        .sendbuf = s->buf,
        .recvbuf = (char *)s->buf + half,
        .count = sc__count(s, comm, op, bytes, dtype),
        .dtype = dtype,
        .op = SC_REDOP_sum,
    };
    static const sc_nb_kind_t kinds[] = {[SC_PATOP_allreduce] = SC_NB_ALLREDUCE,
                                         [SC_PATOP_reducescatter] = SC_NB_REDUCESCATTER,
                                         [SC_PATOP_allgather] = SC_NB_ALLGATHER,
                                         [SC_PATOP_alltoall] = SC_NB_ALLTOALL};
    s->counts.calls[op]++;
    s->counts.bytes[op] += (uint64_t)bytes;
    if (s->trace != NULL)
        s->trace(s->trace_arg, op, comm, dtype, a.count);
    uint64_t t0 = sc_clock_ns();
    sc_status_t status = nonblocking ? comm->ops->istart(comm, kinds[op], &a, err)
                                     : sc__blocking(comm, op)(comm, &a, err);
    if (status == SC_OK && !nonblocking)
        status = comm->ops->sync(comm, err);
    s->comm_us += (double)(sc_clock_ns() - t0) * 1e-3;
    return status;
}

sc_status_t sc_pattern_wait(sc_step_t *s, sc_comm_t *comm, sc_err_t *err)
{
    uint64_t t0 = sc_clock_ns();
    sc_status_t status = comm->ops->iwait(comm, err);
    s->comm_us += (double)(sc_clock_ns() - t0) * 1e-3;
    return status;
}

sc_status_t sc_pattern_compute(sc_step_t *s, sc_comm_t *comm, double us, sc_err_t *err)
{
    if (us <= 0)
        return SC_OK;
    double took = 0;
    sc_status_t status = comm->ops->compute_spin(comm, us, &took, err);
    s->compute_us += took;
    return status;
}

double sc_pattern_activation_bytes(const sc_workload_t *w)
{
    double per_sample = w->kind == SC_MODEL_TRANSFORMER ? (double)w->sequence * (double)w->hidden
                                                        : (double)w->hidden;
    return (double)w->micro_batch * per_sample *
           (double)sc_dtype_size(sc_precision_dtype(w->activations));
}

double sc_pattern_layer_us(const sc_workload_t *w, const sc_grid_t *grid)
{
    const sc_layout_t *l = &grid->layout;
    if (w->compute_mode == SC_COMPUTE_NONE)
        return 0.0;
    if (w->compute_mode == SC_COMPUTE_TIME) /* forward is a third of forward + backward */
        return w->step_time_ms * 1e3 / 3.0 / ((double)w->layers / l->pp) / l->micro_batches;
    double flops = sc_workload_layer_forward_flops(w) * (double)w->micro_batch / l->tp;
    return flops / (w->gpu_tflops * 1e12 * w->efficiency) * 1e6;
}

size_t sc_step_buffer_bytes(const sc_workload_t *w, const sc_grid_t *grid, double bytes_scale)
{
    double dsize = (double)sc_dtype_size(sc_precision_dtype(w->gradients));
    double grads = w->parameters / grid->layout.tp / grid->layout.pp * dsize;
    double bucket = w->bucket_mb * 1e6 > grads ? grads : w->bucket_mb * 1e6;
    double act = sc_pattern_activation_bytes(w) * (w->top_k > 1 ? (double)w->top_k : 1.0) *
                 (w->capacity_factor > 1 ? w->capacity_factor : 1.0);
    double need = act > bucket ? act : bucket;
    if (w->zero > 0) /* ZeRO gathers whole parameter sets */
        need = need > grads ? need : grads;
    need = need * bytes_scale + 4096.0 * 64; /* at least one element per rank of big groups */
    /* A send half and a receive half, each a whole number of pages: with the backend's
     * page-aligned allocation both start on a page, as coll's buffers do (on the host, the
     * shared-memory copies run at different speeds for different alignments). */
    size_t half = ((size_t)need + 4095) / 4096 * 4096;
    return 2 * half;
}
