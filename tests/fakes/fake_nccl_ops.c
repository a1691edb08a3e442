/* fake_nccl_ops.c - the emulated NCCL's groups and operation entry points (fake_nccl.c says what
 * it emulates): arguments checked as NCCL does, operations collected per thread until the
 * outermost ncclGroupEnd, then put on their stream - at once on a blocking communicator, after
 * FAKE_NCCL_DEFER_POLLS polls on a non-blocking one. */
#include <stdlib.h>
#include <string.h>

#include "fake_nccl.h"

/* ---- groups ---- */

static _Thread_local struct {
    int depth;
    fn_op_t *ops;
    int n, cap;
    ncclResult_t error; /* the first error of an operation inside the group */
} fn__group;

ncclResult_t ncclGroupStart(void)
{
    fakecuda_count(__func__);
    fn__group.depth++;
    return ncclSuccess;
}

/* The work of comm's operations in the group (in issue order), on their one stream. */
static ncclResult_t fn__make_work(ncclComm_t comm, fn_work_t **out, cudaStream_t *stream)
{
    fn_work_t *w = calloc(1, sizeof(*w));
    w->ops = calloc((size_t)fn__group.n, sizeof(*w->ops));
    *stream = NULL;
    int have_stream = 0;
    for (int i = 0; i < fn__group.n; i++) {
        if (fn__group.ops[i].comm != comm)
            continue;
        if (have_stream && fn__group.ops[i].stream != *stream) {
            free(w->ops);
            free(w);
            return fn__fail(comm, ncclInvalidUsage,
                            "one communicator's operations in a group on two streams%s", "");
        }
        *stream = fn__group.ops[i].stream;
        have_stream = 1;
        w->ops[w->nops] = fn__group.ops[i];
        fn__prof_enqueued(comm, &w->ops[w->nops++]);
    }
    w->base = (fc_work_t){.run = fn__work_run, .destroy = fn__work_destroy, .what = "nccl"};
    atomic_init(&w->base.refs, 1);
    atomic_fetch_add(&comm->refs, 1);
    w->comm = comm;
    *out = w;
    return ncclSuccess;
}

static ncclResult_t fn__launch_group(void)
{
    ncclResult_t rc = fn__group.error, result = ncclSuccess;
    for (int i = 0; i < fn__group.n && rc == ncclSuccess; i++) {
        ncclComm_t comm = fn__group.ops[i].comm;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = fn__group.ops[j].comm == comm;
        if (seen)
            continue;
        fn_work_t *w = NULL;
        cudaStream_t stream;
        rc = fn__make_work(comm, &w, &stream);
        if (rc != ncclSuccess)
            break;
        if (!comm->blocking) { /* launched later, from a poll */
            comm->pending = w;
            comm->pending_stream = stream;
            comm->polls_left = fn__env("FAKE_NCCL_DEFER_POLLS", 3);
            atomic_store(&comm->state, ncclInProgress);
            result = ncclInProgress;
        } else if (fakecuda_enqueue(stream, &w->base) != cudaSuccess) {
            rc = fn__fail(comm, ncclUnhandledCudaError, "enqueue on the stream failed%s", "");
        }
    }
    fn__group.n = 0;
    fn__group.error = ncclSuccess;
    return rc != ncclSuccess ? rc : result;
}

ncclResult_t ncclGroupEnd(void)
{
    fakecuda_count(__func__);
    if (fn__group.depth == 0)
        return fn__fail(NULL, ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart%s", "");
    return --fn__group.depth > 0 ? ncclSuccess : fn__launch_group();
}

/* Checks and queues one operation; outside a group it is a group of its own. */
static ncclResult_t fn__issue(fn_op_t op, size_t send_bytes, size_t recv_bytes)
{
    ncclResult_t rc = fn__usable(op.comm);
    sc_dtype_t t = SC_DTYPE_float;
    if (rc == ncclSuccess && !fn__dtype(op.dt, &t))
        rc = fn__fail(op.comm, ncclInvalidArgument, "data type not emulated%s", "");
    if (rc == ncclSuccess && ((unsigned)op.op >= ncclNumOps))
        rc = fn__fail(op.comm, ncclInvalidArgument, "invalid reduction%s", "");
    if (rc == ncclSuccess && (op.root < 0 || op.root >= op.comm->nranks))
        rc = fn__fail(op.comm, ncclInvalidArgument, "invalid root or peer%s", "");
    const char *algo, *proto;
    if (rc == ncclSuccess && op.kind != FN_SEND && op.kind != FN_RECV &&
        !fn__prof_choose(op.comm, op.kind, op.count * fn__esize(op.dt), &algo, &proto))
        rc = fn__fail(op.comm, ncclInvalidUsage,
                      "no algorithm or protocol left for this operation by NCCL_ALGO and "
                      "NCCL_PROTO%s",
                      "");
    if (rc == ncclSuccess && ((send_bytes && !fakecuda_is_device(op.send, send_bytes)) ||
                              (recv_bytes && !fakecuda_is_device(op.recv, recv_bytes))))
        rc = fn__fail(op.comm, ncclInvalidArgument, "invalid device pointer%s", "");
    if (rc != ncclSuccess) {
        if (fn__group.depth > 0 && fn__group.error == ncclSuccess)
            fn__group.error = rc;
        return rc;
    }
    if (fn__group.n == fn__group.cap) {
        int cap = fn__group.cap ? 2 * fn__group.cap : 16;
        fn_op_t *ops = realloc(fn__group.ops, (size_t)cap * sizeof(*ops));
        if (ops == NULL)
            return ncclSystemError;
        fn__group.ops = ops;
        fn__group.cap = cap;
    }
    fn__group.ops[fn__group.n++] = op;
    return fn__group.depth > 0 ? ncclSuccess : fn__launch_group();
}

#define FN_OP(kind, s, r, n, dt, red, root, comm, stream)                                          \
    (fn_op_t)                                                                                      \
    {                                                                                              \
        kind, (const char *)(s), (char *)(r), n, dt, red, root, stream, comm, NULL                 \
    }

ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t dt, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    return fn__issue(FN_OP(FN_ALLREDUCE, s, r, n, dt, op, 0, comm, stream), b, b);
}

ncclResult_t ncclReduce(const void *s, void *r, size_t n, ncclDataType_t dt, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    int mine = comm != NULL && fn__is_live(comm) && comm->rank == root;
    return fn__issue(FN_OP(FN_REDUCE, s, r, n, dt, op, root, comm, stream), b, mine ? b : 0);
}

ncclResult_t ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t dt, int root,
                           ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    int mine = comm != NULL && fn__is_live(comm) && comm->rank == root;
    return fn__issue(FN_OP(FN_BROADCAST, s, r, n, dt, ncclSum, root, comm, stream), mine ? b : 0,
                     b);
}

static int fn__size_of(ncclComm_t comm)
{
    return comm != NULL && fn__is_live(comm) ? comm->nranks : 1;
}

ncclResult_t ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t dt, ncclComm_t comm,
                           cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    return fn__issue(FN_OP(FN_ALLGATHER, s, r, n, dt, ncclSum, 0, comm, stream), b,
                     b * (size_t)fn__size_of(comm));
}

ncclResult_t ncclReduceScatter(const void *s, void *r, size_t n, ncclDataType_t dt, ncclRedOp_t op,
                               ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    return fn__issue(FN_OP(FN_REDUCESCATTER, s, r, n, dt, op, 0, comm, stream),
                     b * (size_t)fn__size_of(comm), b);
}

ncclResult_t ncclSend(const void *s, size_t n, ncclDataType_t dt, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    fakecuda_count(__func__);
    return fn__issue(FN_OP(FN_SEND, s, NULL, n, dt, ncclSum, peer, comm, stream), n * fn__esize(dt),
                     0);
}

ncclResult_t ncclRecv(void *r, size_t n, ncclDataType_t dt, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    fakecuda_count(__func__);
    return fn__issue(FN_OP(FN_RECV, NULL, r, n, dt, ncclSum, peer, comm, stream), 0,
                     n * fn__esize(dt));
}

#if FN_HAS_ALLTOALL
ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n, ncclDataType_t dt, ncclComm_t comm,
                          cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt) * (size_t)fn__size_of(comm);
    return fn__issue(FN_OP(FN_ALLTOALL, s, r, n, dt, ncclSum, 0, comm, stream), b, b);
}

ncclResult_t ncclGather(const void *s, void *r, size_t n, ncclDataType_t dt, int root,
                        ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    int mine = comm != NULL && fn__is_live(comm) && comm->rank == root;
    return fn__issue(FN_OP(FN_GATHER, s, r, n, dt, ncclSum, root, comm, stream), b,
                     mine ? b * (size_t)fn__size_of(comm) : 0);
}

ncclResult_t ncclScatter(const void *s, void *r, size_t n, ncclDataType_t dt, int root,
                         ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    int mine = comm != NULL && fn__is_live(comm) && comm->rank == root;
    return fn__issue(FN_OP(FN_SCATTER, s, r, n, dt, ncclSum, root, comm, stream),
                     mine ? b * (size_t)fn__size_of(comm) : 0, b);
}
#endif

/* ---- NCCL-allocated and registered buffers (nccl-tests -R) ---- */

ncclResult_t ncclMemAlloc(void **ptr, size_t size)
{
    fakecuda_count(__func__);
    return cudaMalloc(ptr, size) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

ncclResult_t ncclMemFree(void *ptr)
{
    fakecuda_count(__func__);
    return cudaFree(ptr) == cudaSuccess ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle)
{
    fakecuda_count(__func__);
    ncclResult_t rc = fn__usable(comm);
    if (rc == ncclSuccess && !fakecuda_is_device(buff, size))
        rc = fn__fail(comm, ncclInvalidArgument, "registering memory that is not device memory%s",
                      "");
    if (rc == ncclSuccess)
        *handle = buff;
    return rc;
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle)
{
    fakecuda_count(__func__);
    (void)handle;
    return fn__usable(comm);
}
