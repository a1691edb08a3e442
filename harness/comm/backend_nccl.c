/* backend_nccl.c - the GPU path: one rank per GPU, collectives through NCCL on device buffers,
 * a non-blocking communicator so that every wait can be bounded and aborted, CUDA events for
 * device time, optional CUDA-graph capture, and the data check as kernels. */
#include "comm/backend_nccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>

#include "coll/sc_check.h"
#include "comm/sc_cuda_check.h"
#include "comm/sc_gpu_select.h"
#include "util/sc_clock.h"

void sc_nccl_abort(nccl__comm_t *c)
{
    if (c->nccl != NULL)
        ncclCommAbort(c->nccl);
    c->nccl = NULL;
    __atomic_store_n(&c->aborted, 1, __ATOMIC_RELEASE);
}

sc_status_t sc_nccl_abort_if_asked(nccl__comm_t *c, const char *what, sc_err_t *err)
{
    if (!__atomic_load_n(&c->abort_requested, __ATOMIC_ACQUIRE))
        return SC_OK;
    sc_nccl_abort(c);
    return nccl__fail(c, SC_ERR_TIMEOUT, what, "the job is ending; communicator aborted", err);
}

/* Whether a wait that began at start passed the bound: --timeout (and its grace) with no
 * movement of the job's work since the later of its start and the last the watchdog saw -
 * under load a host waits seconds on its device's queue while the devices work through it,
 * and the watchdog, which sees every rank's record, names the rank at fault first. */
static bool nccl__waited_past(const nccl__comm_t *c, uint64_t start)
{
    uint64_t moved = sc_nccl_job_moved_ns(), since = moved > start ? moved : start;
    uint64_t now = sc_clock_ns();
    return now > since && (double)(now - since) * 1e-9 > c->timeout_s;
}

/* Waits (bounded) until the communicator has no operation in progress; on timeout or an
 * asynchronous error the communicator is aborted and the error names rank, host and GPU. */
static sc_status_t nccl__settle(nccl__comm_t *c, ncclResult_t rc, const char *what, sc_err_t *err)
{
    uint64_t start = sc_clock_ns();
    while (rc == ncclInProgress) {
        if (sc_nccl_abort_if_asked(c, what, err) != SC_OK)
            return SC_ERR_TIMEOUT;
        if (nccl__waited_past(c, start)) {
            sc_nccl_abort(c);
            return nccl__fail(c, SC_ERR_TIMEOUT, what, "timed out; communicator aborted", err);
        }
        sched_yield(); /* NCCL's own threads need the core this poll would take */
        ncclResult_t state = ncclInProgress;
        if (ncclCommGetAsyncError(c->nccl, &state) != ncclSuccess)
            state = ncclSystemError;
        rc = state;
    }
    if (rc == ncclSuccess)
        return SC_OK;
    char detail[512];
    snprintf(detail, sizeof(detail), "%s (%s)", ncclGetErrorString(rc),
             c->nccl ? ncclGetLastError(c->nccl) : "");
    /* a remote error is another rank's fault: that rank names it (sc_session_finish) */
    return nccl__fail(c, rc == ncclRemoteError ? SC_ERR_PEER : SC_ERR_RUNTIME, what, detail, err);
}

sc_status_t sc_nccl_settle(nccl__comm_t *c, ncclResult_t rc, const char *what, sc_err_t *err)
{
    __atomic_store_n(&c->in_wait, 1, __ATOMIC_RELEASE);
    sc_status_t status = nccl__settle(c, rc, what, err);
    __atomic_store_n(&c->in_wait, 0, __ATOMIC_RELEASE);
    return status;
}

static ncclDataType_t nccl__dtype(sc_dtype_t dtype)
{
    static const ncclDataType_t table[SC_DTYPE_COUNT] = {
        [SC_DTYPE_int8] = ncclInt8,     [SC_DTYPE_uint8] = ncclUint8,
        [SC_DTYPE_int32] = ncclInt32,   [SC_DTYPE_uint32] = ncclUint32,
        [SC_DTYPE_int64] = ncclInt64,   [SC_DTYPE_uint64] = ncclUint64,
        [SC_DTYPE_float] = ncclFloat32, [SC_DTYPE_double] = ncclFloat64,
        [SC_DTYPE_fp16] = ncclFloat16,  [SC_DTYPE_bf16] = ncclBfloat16,
    };
    return table[dtype];
}

static ncclRedOp_t nccl__op(sc_redop_t op)
{
    static const ncclRedOp_t table[SC_REDOP_COUNT] = {
        [SC_REDOP_sum] = ncclSum, [SC_REDOP_prod] = ncclProd, [SC_REDOP_min] = ncclMin,
        [SC_REDOP_max] = ncclMax, [SC_REDOP_avg] = ncclAvg,
    };
    return table[op];
}

static sc_status_t nccl__allreduce(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    const void *send = a->in_place ? a->recvbuf : a->sendbuf;
    return sc_nccl_settle(c,
                          ncclAllReduce(send, a->recvbuf, a->count, nccl__dtype(a->dtype),
                                        nccl__op(a->op), c->nccl, c->stream),
                          "ncclAllReduce", err);
}

static sc_status_t nccl__allgather(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    return sc_nccl_settle(
        c,
        ncclAllGather(a->sendbuf, a->recvbuf, a->count, nccl__dtype(a->dtype), c->nccl, c->stream),
        "ncclAllGather", err);
}

static sc_status_t nccl__reducescatter(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    size_t esize = sc_dtype_size(a->dtype);
    /* In place, NCCL wants recvbuff == sendbuff + rank * count. */
    void *recv =
        a->in_place ? (char *)a->recvbuf + (size_t)comm->rank * a->count * esize : a->recvbuf;
    return sc_nccl_settle(c,
                          ncclReduceScatter(a->sendbuf, recv, a->count, nccl__dtype(a->dtype),
                                            nccl__op(a->op), c->nccl, c->stream),
                          "ncclReduceScatter", err);
}

static sc_status_t nccl__broadcast(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    const void *send = a->in_place ? a->recvbuf : a->sendbuf;
    return sc_nccl_settle(c,
                          ncclBroadcast(send, a->recvbuf, a->count, nccl__dtype(a->dtype), a->root,
                                        c->nccl, c->stream),
                          "ncclBroadcast", err);
}

static sc_status_t nccl__reduce(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    const void *send = a->in_place ? a->recvbuf : a->sendbuf;
    return sc_nccl_settle(c,
                          ncclReduce(send, a->recvbuf, a->count, nccl__dtype(a->dtype),
                                     nccl__op(a->op), a->root, c->nccl, c->stream),
                          "ncclReduce", err);
}

/* All-to-all, gather and scatter: NCCL's own where the libnccl.so.2 loaded has them (2.28 on,
 * resolved at run time: sc_nccl_optional), grouped send/recv as nccl-tests does elsewhere. */
static inline bool nccl__native(const nccl__comm_t *c, bool resolved)
{
    return resolved && c->lib_version >= NCCL_VERSION(2, 28, 0);
}

static sc_status_t nccl__alltoall_p2p(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    size_t bytes = a->count * sc_dtype_size(a->dtype);
    ncclDataType_t dt = nccl__dtype(a->dtype);
    ncclResult_t rc = ncclGroupStart();
    for (int p = 0; p < comm->size && (rc == ncclSuccess || rc == ncclInProgress); p++) {
        rc = ncclSend((const char *)a->sendbuf + (size_t)p * bytes, a->count, dt, p, c->nccl,
                      c->stream);
        if (rc == ncclSuccess || rc == ncclInProgress)
            rc = ncclRecv((char *)a->recvbuf + (size_t)p * bytes, a->count, dt, p, c->nccl,
                          c->stream);
    }
    ncclResult_t end = ncclGroupEnd();
    return sc_nccl_settle(c, rc == ncclSuccess || rc == ncclInProgress ? end : rc,
                          "alltoall (ncclSend/ncclRecv)", err);
}

static sc_status_t nccl__alltoall(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_nccl_a2a_fn native = sc_nccl_optional()->alltoall;
    if (nccl__native(c, native != NULL))
        return sc_nccl_settle(
            c, native(a->sendbuf, a->recvbuf, a->count, nccl__dtype(a->dtype), c->nccl, c->stream),
            "ncclAlltoAll", err);
    return nccl__alltoall_p2p(comm, a, err);
}

static sc_status_t nccl__sendrecv(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    ncclDataType_t dt = nccl__dtype(a->dtype);
    ncclResult_t rc = ncclGroupStart();
    if (rc == ncclSuccess)
        rc = ncclSend(a->sendbuf, a->count, dt, a->send_peer, c->nccl, c->stream);
    if (rc == ncclSuccess || rc == ncclInProgress)
        rc = ncclRecv(a->recvbuf, a->count, dt, a->recv_peer, c->nccl, c->stream);
    ncclResult_t end = ncclGroupEnd();
    return sc_nccl_settle(c, rc == ncclSuccess || rc == ncclInProgress ? end : rc,
                          "ncclSend/ncclRecv", err);
}

/* Older NCCL: the root receives (gather) or sends (scatter) one block per rank. */
static sc_status_t nccl__rooted(sc_comm_t *comm, const sc_coll_args_t *a, bool gather,
                                const char *what, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    size_t bytes = a->count * sc_dtype_size(a->dtype);
    ncclDataType_t dt = nccl__dtype(a->dtype);
    ncclResult_t rc = ncclGroupStart();
    if (comm->rank == a->root) {
        for (int p = 0; p < comm->size && (rc == ncclSuccess || rc == ncclInProgress); p++) {
            char *block = (char *)(gather ? a->recvbuf : (void *)a->sendbuf) + (size_t)p * bytes;
            if (gather && !(a->in_place && p == a->root))
                rc = ncclRecv(block, a->count, dt, p, c->nccl, c->stream);
            else if (!gather && !(a->in_place && p == a->root))
                rc = ncclSend(block, a->count, dt, p, c->nccl, c->stream);
        }
    }
    bool root_copy = comm->rank == a->root && !a->in_place;
    if (comm->rank != a->root || root_copy) {
        if (gather)
            rc = ncclSend(a->sendbuf, a->count, dt, a->root, c->nccl, c->stream);
        else
            rc = ncclRecv(a->recvbuf, a->count, dt, a->root, c->nccl, c->stream);
    }
    ncclResult_t end = ncclGroupEnd();
    return sc_nccl_settle(c, rc == ncclSuccess || rc == ncclInProgress ? end : rc, what, err);
}

static sc_status_t nccl__gather(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_nccl_rooted_fn native = sc_nccl_optional()->gather;
    if (nccl__native(c, native != NULL))
        return sc_nccl_settle(c,
                              native(a->sendbuf, a->recvbuf, a->count, nccl__dtype(a->dtype),
                                     a->root, c->nccl, c->stream),
                              "ncclGather", err);
    return nccl__rooted(comm, a, true, "gather (ncclSend/ncclRecv)", err);
}

static sc_status_t nccl__scatter(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_nccl_rooted_fn native = sc_nccl_optional()->scatter;
    if (nccl__native(c, native != NULL)) {
        size_t esize = sc_dtype_size(a->dtype);
        /* In place, NCCL wants recvbuff == sendbuff + root * count on the root. */
        void *recv = (a->in_place && comm->rank == a->root)
                         ? (char *)a->recvbuf + (size_t)a->root * a->count * esize
                         : a->recvbuf;
        return sc_nccl_settle(
            c,
            native(a->sendbuf, recv, a->count, nccl__dtype(a->dtype), a->root, c->nccl, c->stream),
            "ncclScatter", err);
    }
    return nccl__rooted(comm, a, false, "scatter (ncclSend/ncclRecv)", err);
}

static bool nccl__supports(const sc_comm_t *comm, sc_coll_id_t coll, sc_dtype_t dtype,
                           bool in_place)
{
    (void)comm;
    (void)dtype;
    /* One buffer read and written by concurrent peers is a race in NCCL's all-to-all and in a
     * send/recv ring: those run out of place only. */
    return !(in_place && (coll == SC_COLL_alltoall || coll == SC_COLL_sendrecv));
}

/* Bounded wait for the stream: polls it and the communicator's asynchronous error. */
static sc_status_t nccl__sync(sc_comm_t *comm, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    uint64_t start = sc_clock_ns();
    unsigned spins = 0;
    for (;;) {
        cudaError_t rc = cudaStreamQuery(c->stream);
        if (rc == cudaSuccess)
            return SC_OK;
        if (sc_nccl_abort_if_asked(c, "waiting for the stream", err) != SC_OK)
            return SC_ERR_TIMEOUT;
        if (rc != cudaErrorNotReady)
            return nccl__cuda(c, rc, "cudaStreamQuery", err);
        sched_yield();
        if (++spins % 1024 != 0)
            continue;
        ncclResult_t state = ncclSuccess;
        if (c->nccl != NULL && ncclCommGetAsyncError(c->nccl, &state) == ncclSuccess &&
            state != ncclSuccess && state != ncclInProgress)
            return nccl__settle(c, state, "waiting for the stream", err); /* in this wait */
        if (nccl__waited_past(c, start)) {
            sc_nccl_abort(c);
            return nccl__fail(c, SC_ERR_TIMEOUT, "waiting for the stream",
                              "timed out; communicator aborted", err);
        }
    }
}

sc_status_t sc_nccl_sync(sc_comm_t *comm, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    __atomic_store_n(&c->in_wait, 1, __ATOMIC_RELEASE);
    sc_status_t status = nccl__sync(comm, err);
    __atomic_store_n(&c->in_wait, 0, __ATOMIC_RELEASE);
    return status;
}

static sc_status_t nccl__barrier(sc_comm_t *comm, sc_err_t *err)
{
    /* A zero-byte all-reduce would be skipped by NCCL; one float is a real rendezvous. */
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status = sc_nccl_settle(
        c, ncclAllReduce(c->d_wrong, c->d_wrong, 1, ncclFloat32, ncclSum, c->nccl, c->stream),
        "barrier (ncclAllReduce)", err);
    return status == SC_OK ? sc_nccl_sync(comm, err) : status;
}

/* -R 1 (nccl-tests' local registration): the buffer from ncclMemAlloc, registered with this
 * communicator; NULL where the loaded NCCL cannot, or the table of registrations is full. */
static void *nccl__alloc_registered(nccl__comm_t *c, size_t bytes)
{
    const sc_nccl_optional_t *opt = sc_nccl_optional();
    int slot = 0;
    while (slot < 16 && c->registered[slot].buf != NULL)
        slot++;
    void *ptr = NULL, *handle = NULL;
    if (slot == 16 || opt->mem_alloc == NULL || opt->comm_register == NULL ||
        opt->mem_alloc(&ptr, bytes) != ncclSuccess)
        return NULL;
    sc_err_t ignored;
    if (sc_nccl_settle(c, opt->comm_register(c->nccl, ptr, bytes, &handle), "ncclCommRegister",
                       &ignored) != SC_OK) {
        opt->mem_free(ptr);
        return NULL;
    }
    c->registered[slot].buf = ptr;
    c->registered[slot].handle = handle;
    return ptr;
}

static void *nccl__alloc(sc_comm_t *comm, size_t bytes)
{
    nccl__comm_t *c = nccl__of(comm);
    if (c->register_buffers)
        return nccl__alloc_registered(c, bytes ? bytes : 1);
    void *ptr = NULL;
    return cudaMalloc(&ptr, bytes ? bytes : 1) == cudaSuccess ? ptr : NULL;
}

static void nccl__free(sc_comm_t *comm, void *ptr)
{
    nccl__comm_t *c = nccl__of(comm);
    const sc_nccl_optional_t *opt = sc_nccl_optional();
    for (int i = 0; i < 16 && ptr != NULL; i++) {
        if (c->registered[i].buf != ptr)
            continue;
        if (c->nccl != NULL) {
            sc_err_t ignored;
            sc_nccl_settle(c, opt->comm_deregister(c->nccl, c->registered[i].handle),
                           "ncclCommDeregister", &ignored);
        }
        c->registered[i].buf = NULL;
        opt->mem_free(ptr);
        return;
    }
    cudaFree(ptr);
}

/* Copies run on the communication stream, then wait for it: ordered after the collectives that
 * wrote the buffer and before those that will read it (a copy on the legacy default stream is
 * not ordered with a non-blocking stream). */
static sc_status_t nccl__copy(sc_comm_t *comm, void *dst, const void *src, size_t bytes,
                              enum cudaMemcpyKind kind, const char *what, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status =
        nccl__cuda(c, cudaMemcpyAsync(dst, src, bytes, kind, c->stream), what, err);
    return status == SC_OK ? sc_nccl_sync(comm, err) : status;
}

static sc_status_t nccl__to_host(sc_comm_t *comm, void *host, const void *buf, size_t bytes,
                                 sc_err_t *err)
{
    return nccl__copy(comm, host, buf, bytes, cudaMemcpyDeviceToHost,
                      "cudaMemcpyAsync(device to host)", err);
}

static sc_status_t nccl__from_host(sc_comm_t *comm, void *buf, const void *host, size_t bytes,
                                   sc_err_t *err)
{
    return nccl__copy(comm, buf, host, bytes, cudaMemcpyHostToDevice,
                      "cudaMemcpyAsync(host to device)", err);
}

static sc_status_t nccl__fill_bytes(sc_comm_t *comm, void *buf, int byte, size_t bytes,
                                    sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status =
        nccl__cuda(c, cudaMemsetAsync(buf, byte, bytes, c->stream), "cudaMemsetAsync", err);
    return status == SC_OK ? sc_nccl_sync(comm, err) : status;
}

#if SC_GPU_HAS_KERNELS
/* The data check on the device: only the count of wrong elements travels to the host. */
static sc_status_t nccl__check_fill(sc_comm_t *comm, void *buf, const sc_check_spec_t *spec,
                                    size_t count, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status = nccl__cuda(c, sc_cuda_check_fill(buf, spec, comm->rank, count, c->stream),
                                    "check fill kernel", err);
    return status == SC_OK ? sc_nccl_sync(comm, err) : status;
}

static sc_status_t nccl__check_count(sc_comm_t *comm, const void *buf, const sc_check_spec_t *spec,
                                     const sc_src_t *src, size_t count, uint64_t *wrong,
                                     sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    unsigned long long found = 0;
    sc_status_t status =
        nccl__cuda(c, cudaMemsetAsync(c->d_wrong, 0, sizeof(found), c->stream), "cudaMemset", err);
    if (status == SC_OK)
        status = nccl__cuda(c, sc_cuda_check_count(buf, spec, src, count, c->d_wrong, c->stream),
                            "check count kernel", err);
    if (status == SC_OK)
        status = sc_nccl_sync(comm, err);
    if (status == SC_OK)
        status = nccl__to_host(comm, &found, c->d_wrong, sizeof(found), err);
    *wrong = found;
    return status;
}
#else
/* The data check on the host (a module built without kernels): the buffer is written and read
 * back through the stream's bounded copies, outside every timed interval; the arithmetic is the
 * host path's (coll/sc_check.h), which the kernels share. */
static sc_status_t nccl__check_fill(sc_comm_t *comm, void *buf, const sc_check_spec_t *spec,
                                    size_t count, sc_err_t *err)
{
    size_t bytes = count * sc_dtype_size(spec->dtype);
    void *host = bytes > 0 ? malloc(bytes) : NULL;
    if (bytes > 0 && host == NULL)
        return nccl__fail(nccl__of(comm), SC_ERR_NOMEM, "check fill", "no host memory", err);
    sc_check_fill(spec, comm->rank, 0, host, count);
    sc_status_t status = bytes > 0 ? nccl__from_host(comm, buf, host, bytes, err) : SC_OK;
    free(host);
    return status;
}

static sc_status_t nccl__check_count(sc_comm_t *comm, const void *buf, const sc_check_spec_t *spec,
                                     const sc_src_t *src, size_t count, uint64_t *wrong,
                                     sc_err_t *err)
{
    size_t bytes = count * sc_dtype_size(spec->dtype);
    void *host = bytes > 0 ? malloc(bytes) : NULL;
    *wrong = 0;
    if (bytes > 0 && host == NULL)
        return nccl__fail(nccl__of(comm), SC_ERR_NOMEM, "check count", "no host memory", err);
    sc_status_t status = bytes > 0 ? nccl__to_host(comm, host, buf, bytes, err) : SC_OK;
    if (status == SC_OK && bytes > 0)
        *wrong = sc_check_count_wrong(spec, src, host, count);
    free(host);
    return status;
}
#endif

static sc_status_t nccl__graph_begin(sc_comm_t *comm, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    return nccl__cuda(c, cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal),
                      "cudaStreamBeginCapture", err);
}

static sc_status_t nccl__graph_end(sc_comm_t *comm, void **graph, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    cudaGraph_t g = NULL;
    cudaGraphExec_t exec = NULL;
    sc_status_t status =
        nccl__cuda(c, cudaStreamEndCapture(c->stream, &g), "cudaStreamEndCapture", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaGraphInstantiate(&exec, g, 0), "cudaGraphInstantiate", err);
    if (g != NULL)
        cudaGraphDestroy(g);
    *graph = exec;
    return status;
}

static sc_status_t nccl__graph_launch(sc_comm_t *comm, void *graph, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    return nccl__cuda(c, cudaGraphLaunch((cudaGraphExec_t)graph, c->stream), "cudaGraphLaunch",
                      err);
}

static void nccl__graph_destroy(sc_comm_t *comm, void *graph)
{
    (void)comm;
    cudaGraphExecDestroy((cudaGraphExec_t)graph);
}

static sc_status_t nccl__istart(sc_comm_t *comm, sc_coll_id_t coll, const sc_coll_args_t *a,
                                sc_err_t *err)
{
    /* NCCL operations are asynchronous on the stream already: start = issue, no sync. */
    switch (coll) {
    case SC_COLL_allreduce:
        return nccl__allreduce(comm, a, err);
    case SC_COLL_reducescatter:
        return nccl__reducescatter(comm, a, err);
    case SC_COLL_allgather:
        return nccl__allgather(comm, a, err);
    case SC_COLL_alltoall:
        return nccl__alltoall(comm, a, err);
    default:
        return sc_err_set(err, SC_ERR_UNSUPPORTED, "backend nccl: %s cannot be started",
                          sc_coll_id_name(coll));
    }
}

/* isend and irecv are deferred: NCCL matches a send with a receive only inside the groups the
 * two ranks issue, so the operations a pattern starts together go out as one group. */
static sc_status_t nccl__defer(nccl__comm_t *c, bool recv, const void *buf, size_t count,
                               sc_dtype_t dtype, int peer, sc_err_t *err)
{
    if (c->np2p == (int)(sizeof(c->p2p) / sizeof(c->p2p[0])))
        return nccl__fail(c, SC_ERR_RUNTIME, recv ? "irecv" : "isend",
                          "more than 128 sends and receives outstanding", err);
    c->p2p[c->np2p].buf = (void *)buf;
    c->p2p[c->np2p].count = count;
    c->p2p[c->np2p].dtype = dtype;
    c->p2p[c->np2p].peer = peer;
    c->p2p[c->np2p].recv = recv;
    c->np2p++;
    return SC_OK;
}

static sc_status_t nccl__isend(sc_comm_t *comm, const void *buf, size_t count, sc_dtype_t dtype,
                               int peer, sc_err_t *err)
{
    return nccl__defer(nccl__of(comm), false, buf, count, dtype, peer, err);
}

static sc_status_t nccl__irecv(sc_comm_t *comm, void *buf, size_t count, sc_dtype_t dtype, int peer,
                               sc_err_t *err)
{
    return nccl__defer(nccl__of(comm), true, buf, count, dtype, peer, err);
}

/* Issues the deferred sends and receives (and one more receive, when buf != NULL) as one group:
 * a pipeline's crossing sends then never wait on each other. */
static sc_status_t nccl__p2p_flush(nccl__comm_t *c, void *buf, size_t count, sc_dtype_t dtype,
                                   int peer, sc_err_t *err)
{
    ncclResult_t rc = ncclGroupStart();
    for (int i = 0; i < c->np2p && (rc == ncclSuccess || rc == ncclInProgress); i++)
        rc = c->p2p[i].recv ? ncclRecv(c->p2p[i].buf, c->p2p[i].count, nccl__dtype(c->p2p[i].dtype),
                                       c->p2p[i].peer, c->nccl, c->stream)
                            : ncclSend(c->p2p[i].buf, c->p2p[i].count, nccl__dtype(c->p2p[i].dtype),
                                       c->p2p[i].peer, c->nccl, c->stream);
    if (buf != NULL && (rc == ncclSuccess || rc == ncclInProgress))
        rc = ncclRecv(buf, count, nccl__dtype(dtype), peer, c->nccl, c->stream);
    ncclResult_t end = ncclGroupEnd();
    c->np2p = 0;
    return sc_nccl_settle(c, rc == ncclSuccess || rc == ncclInProgress ? end : rc,
                          "ncclSend/ncclRecv", err);
}

static sc_status_t nccl__recv(sc_comm_t *comm, void *buf, size_t count, sc_dtype_t dtype, int peer,
                              sc_err_t *err)
{
    sc_status_t status = nccl__p2p_flush(nccl__of(comm), buf, count, dtype, peer, err);
    return status == SC_OK ? sc_nccl_sync(comm, err) : status; /* compute needs the data */
}

static sc_status_t nccl__iwait(sc_comm_t *comm, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status = c->np2p > 0 ? nccl__p2p_flush(c, NULL, 0, SC_DTYPE_float, 0, err) : SC_OK;
    return status == SC_OK ? sc_nccl_sync(comm, err) : status;
}

/* Polls the stream once (and the communicator's asynchronous error): the wait's bound is the
 * caller's, which polls again. */
static sc_status_t nccl__itest(sc_comm_t *comm, bool *done, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    *done = false;
    sc_status_t status = c->np2p > 0 ? nccl__p2p_flush(c, NULL, 0, SC_DTYPE_float, 0, err) : SC_OK;
    if (status != SC_OK)
        return status;
    cudaError_t rc = cudaStreamQuery(c->stream);
    if (rc == cudaSuccess) {
        *done = true;
        return SC_OK;
    }
    if (sc_nccl_abort_if_asked(c, "testing the stream", err) != SC_OK)
        return SC_ERR_TIMEOUT;
    if (rc != cudaErrorNotReady)
        return nccl__cuda(c, rc, "cudaStreamQuery", err);
    ncclResult_t state = ncclSuccess;
    if (c->nccl != NULL && ncclCommGetAsyncError(c->nccl, &state) == ncclSuccess &&
        state != ncclSuccess && state != ncclInProgress)
        return nccl__settle(c, state, "testing the stream", err);
    return SC_OK;
}

static sc_status_t nccl__memory(sc_comm_t *comm, uint64_t *free_bytes, sc_err_t *err)
{
    size_t free_now = 0, total = 0;
    sc_status_t status =
        nccl__cuda(nccl__of(comm), cudaMemGetInfo(&free_now, &total), "cudaMemGetInfo", err);
    *free_bytes = free_now;
    return status;
}

static const sc_graph_ops_t nccl__graph = {nccl__graph_begin, nccl__graph_end, nccl__graph_launch,
                                           nccl__graph_destroy};

static sc_status_t nccl__group_begin(sc_comm_t *comm, sc_err_t *err)
{
    return sc_nccl_settle(nccl__of(comm), ncclGroupStart(), "ncclGroupStart", err);
}

static sc_status_t nccl__group_end(sc_comm_t *comm, sc_err_t *err)
{
    return sc_nccl_settle(nccl__of(comm), ncclGroupEnd(), "ncclGroupEnd", err);
}

static const sc_group_ops_t nccl__group = {nccl__group_begin, nccl__group_end};

const sc_backend_ops_t sc_nccl_ops = {
    .name = SC_GPU_CCL,
    .gpu = true,
    .nccl_log = SC_GPU_NCCL_LOG,
    .open = sc_nccl_open,
    .close = sc_nccl_close,
    .version = sc_nccl_version,
    .describe = sc_nccl_describe,
    .alloc = nccl__alloc,
    .free = nccl__free,
    .to_host = nccl__to_host,
    .from_host = nccl__from_host,
    .fill_bytes = nccl__fill_bytes,
    .check_fill = nccl__check_fill,
    .check_count = nccl__check_count,
    .supports = nccl__supports,
    .timer = &sc_nccl_timer,
    .graph = &nccl__graph,
    .group = &nccl__group,
    .gemm = &sc_nccl_gemm,
    .burn = &sc_nccl_burn,
    .split = sc_nccl_split,
    .compute_spin = sc_nccl_compute_spin,
    .istart = nccl__istart,
    .isend = nccl__isend,
    .irecv = nccl__irecv,
    .recv = nccl__recv,
    .iwait = nccl__iwait,
    .itest = nccl__itest,
    .sync = sc_nccl_sync,
    .barrier = nccl__barrier,
    .memory = nccl__memory,
    .abort_all = sc_nccl_abort_all,
    .device_progress = sc_nccl_prof_progress,
    .job_moved = sc_nccl_job_moved,
    .last_choice = sc_nccl_last_choice,
    .own_time = sc_nccl_own_time,
    .copies = sc_nccl_copies,
    .coll =
        {
            [SC_COLL_allreduce] = nccl__allreduce,
            [SC_COLL_allgather] = nccl__allgather,
            [SC_COLL_reducescatter] = nccl__reducescatter,
            [SC_COLL_broadcast] = nccl__broadcast,
            [SC_COLL_reduce] = nccl__reduce,
            [SC_COLL_alltoall] = nccl__alltoall,
            [SC_COLL_sendrecv] = nccl__sendrecv,
            [SC_COLL_gather] = nccl__gather,
            [SC_COLL_scatter] = nccl__scatter,
        },
};
