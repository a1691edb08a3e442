/* backend_nccl.c - the GPU path: one rank per GPU, collectives through NCCL on device buffers,
 * a non-blocking communicator so that every wait can be bounded and aborted, CUDA events for
 * device time, optional CUDA-graph capture, and the data check as kernels. */
#include "sc_backend.h"

#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm/sc_cuda_check.h"
#include "comm/sc_gpu_select.h"
#include "compute/sc_compute_cuda.h"
#include "util/sc_clock.h"

typedef struct {
    sc_comm_t base; /* first, so that a sc_comm_t * is a nccl__comm_t * */
    ncclComm_t nccl;
    cudaStream_t stream;
    cudaEvent_t ev_start, ev_stop;
    unsigned long long *d_wrong;
    int device;
    double timeout_s;
    double spin_cycles_per_us; /* 0 until the spin kernel is calibrated */
    char gpu[320];             /* "GPU 0 NVIDIA H200 (0000:1b:00.0)" for messages */
    char version[128];
} nccl__comm_t;

static nccl__comm_t *nccl__of(sc_comm_t *comm)
{
    return (nccl__comm_t *)comm;
}

static sc_status_t nccl__fail(const nccl__comm_t *c, sc_status_t status, const char *what,
                              const char *detail, sc_err_t *err)
{
    return sc_err_set(err, status, "rank %d (host %s, %s): %s: %s", c->base.rte->rank,
                      c->base.rte->host, c->gpu, what, detail);
}

static sc_status_t nccl__cuda(const nccl__comm_t *c, cudaError_t rc, const char *what,
                              sc_err_t *err)
{
    return rc == cudaSuccess ? SC_OK
                             : nccl__fail(c, SC_ERR_RUNTIME, what, cudaGetErrorString(rc), err);
}

/* Waits (bounded) until the communicator has no operation in progress; on timeout or an
 * asynchronous error the communicator is aborted and the error names rank, host and GPU. */
static sc_status_t nccl__settle(nccl__comm_t *c, ncclResult_t rc, const char *what, sc_err_t *err)
{
    uint64_t start = sc_clock_ns();
    while (rc == ncclInProgress) {
        if ((double)(sc_clock_ns() - start) * 1e-9 > c->timeout_s) {
            ncclCommAbort(c->nccl);
            c->nccl = NULL;
            return nccl__fail(c, SC_ERR_TIMEOUT, what, "timed out; communicator aborted", err);
        }
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
    return nccl__fail(c, SC_ERR_RUNTIME, what, detail, err);
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
    return nccl__settle(c,
                        ncclAllReduce(send, a->recvbuf, a->count, nccl__dtype(a->dtype),
                                      nccl__op(a->op), c->nccl, c->stream),
                        "ncclAllReduce", err);
}

static sc_status_t nccl__allgather(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    return nccl__settle(
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
    return nccl__settle(c,
                        ncclReduceScatter(a->sendbuf, recv, a->count, nccl__dtype(a->dtype),
                                          nccl__op(a->op), c->nccl, c->stream),
                        "ncclReduceScatter", err);
}

static sc_status_t nccl__broadcast(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    const void *send = a->in_place ? a->recvbuf : a->sendbuf;
    return nccl__settle(c,
                        ncclBroadcast(send, a->recvbuf, a->count, nccl__dtype(a->dtype), a->root,
                                      c->nccl, c->stream),
                        "ncclBroadcast", err);
}

static sc_status_t nccl__reduce(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    const void *send = a->in_place ? a->recvbuf : a->sendbuf;
    return nccl__settle(c,
                        ncclReduce(send, a->recvbuf, a->count, nccl__dtype(a->dtype),
                                   nccl__op(a->op), a->root, c->nccl, c->stream),
                        "ncclReduce", err);
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0) && !defined(SC_NCCL_P2P_FALLBACK)
static sc_status_t nccl__alltoall(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    return nccl__settle(
        c,
        ncclAlltoAll(a->sendbuf, a->recvbuf, a->count, nccl__dtype(a->dtype), c->nccl, c->stream),
        "ncclAlltoAll", err);
}
#else
/* NCCL before 2.28 has no all-to-all, gather or scatter: grouped send/recv, as nccl-tests
 * does. (SC_NCCL_P2P_FALLBACK forces this path, to compile-check it against a newer NCCL.) */
static sc_status_t nccl__alltoall(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
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
    return nccl__settle(c, rc == ncclSuccess || rc == ncclInProgress ? end : rc,
                        "alltoall (ncclSend/ncclRecv)", err);
}
#endif

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
    return nccl__settle(c, rc == ncclSuccess || rc == ncclInProgress ? end : rc,
                        "ncclSend/ncclRecv", err);
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0) && !defined(SC_NCCL_P2P_FALLBACK)
static sc_status_t nccl__gather(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    return nccl__settle(c,
                        ncclGather(a->sendbuf, a->recvbuf, a->count, nccl__dtype(a->dtype), a->root,
                                   c->nccl, c->stream),
                        "ncclGather", err);
}

static sc_status_t nccl__scatter(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    size_t esize = sc_dtype_size(a->dtype);
    /* In place, NCCL wants recvbuff == sendbuff + root * count on the root. */
    void *recv = (a->in_place && comm->rank == a->root)
                     ? (char *)a->recvbuf + (size_t)a->root * a->count * esize
                     : a->recvbuf;
    return nccl__settle(
        c,
        ncclScatter(a->sendbuf, recv, a->count, nccl__dtype(a->dtype), a->root, c->nccl, c->stream),
        "ncclScatter", err);
}
#else
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
    return nccl__settle(c, rc == ncclSuccess || rc == ncclInProgress ? end : rc, what, err);
}

static sc_status_t nccl__gather(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    return nccl__rooted(comm, a, true, "gather (ncclSend/ncclRecv)", err);
}

static sc_status_t nccl__scatter(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    return nccl__rooted(comm, a, false, "scatter (ncclSend/ncclRecv)", err);
}
#endif

static bool nccl__supports(const sc_comm_t *comm, const char *coll, sc_dtype_t dtype, bool in_place)
{
    (void)comm;
    (void)dtype;
    /* One buffer read and written by concurrent peers is a race in NCCL's all-to-all and in a
     * send/recv ring: those run out of place only. */
    return !(in_place && (strcmp(coll, "alltoall") == 0 || strcmp(coll, "sendrecv") == 0));
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
        if (rc != cudaErrorNotReady)
            return nccl__cuda(c, rc, "cudaStreamQuery", err);
        if (++spins % 1024 != 0)
            continue;
        ncclResult_t state = ncclSuccess;
        if (c->nccl != NULL && ncclCommGetAsyncError(c->nccl, &state) == ncclSuccess &&
            state != ncclSuccess && state != ncclInProgress)
            return nccl__settle(c, state, "waiting for the stream", err);
        if ((double)(sc_clock_ns() - start) * 1e-9 > c->timeout_s) {
            if (c->nccl != NULL)
                ncclCommAbort(c->nccl);
            c->nccl = NULL;
            return nccl__fail(c, SC_ERR_TIMEOUT, "waiting for the stream",
                              "timed out; communicator aborted", err);
        }
    }
}

static sc_status_t nccl__barrier(sc_comm_t *comm, sc_err_t *err)
{
    /* A zero-byte all-reduce would be skipped by NCCL; one float is a real rendezvous. */
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status = nccl__settle(
        c, ncclAllReduce(c->d_wrong, c->d_wrong, 1, ncclFloat32, ncclSum, c->nccl, c->stream),
        "barrier (ncclAllReduce)", err);
    return status == SC_OK ? nccl__sync(comm, err) : status;
}

static void *nccl__alloc(sc_comm_t *comm, size_t bytes)
{
    (void)comm;
    void *ptr = NULL;
    return cudaMalloc(&ptr, bytes ? bytes : 1) == cudaSuccess ? ptr : NULL;
}

static void nccl__free(sc_comm_t *comm, void *ptr)
{
    (void)comm;
    cudaFree(ptr);
}

static sc_status_t nccl__to_host(sc_comm_t *comm, void *host, const void *buf, size_t bytes,
                                 sc_err_t *err)
{
    return nccl__cuda(nccl__of(comm), cudaMemcpy(host, buf, bytes, cudaMemcpyDeviceToHost),
                      "cudaMemcpy(device to host)", err);
}

static sc_status_t nccl__from_host(sc_comm_t *comm, void *buf, const void *host, size_t bytes,
                                   sc_err_t *err)
{
    return nccl__cuda(nccl__of(comm), cudaMemcpy(buf, host, bytes, cudaMemcpyHostToDevice),
                      "cudaMemcpy(host to device)", err);
}

static sc_status_t nccl__fill_bytes(sc_comm_t *comm, void *buf, int byte, size_t bytes,
                                    sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status =
        nccl__cuda(c, cudaMemsetAsync(buf, byte, bytes, c->stream), "cudaMemsetAsync", err);
    return status == SC_OK ? nccl__sync(comm, err) : status;
}

static sc_status_t nccl__check_fill(sc_comm_t *comm, void *buf, const sc_check_spec_t *spec,
                                    size_t count, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status = nccl__cuda(c, sc_cuda_check_fill(buf, spec, comm->rank, count, c->stream),
                                    "check fill kernel", err);
    return status == SC_OK ? nccl__sync(comm, err) : status;
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
        status = nccl__sync(comm, err);
    if (status == SC_OK)
        status = nccl__to_host(comm, &found, c->d_wrong, sizeof(found), err);
    *wrong = found;
    return status;
}

static sc_status_t nccl__timer_start(sc_comm_t *comm, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    return nccl__cuda(c, cudaEventRecord(c->ev_start, c->stream), "cudaEventRecord", err);
}

static sc_status_t nccl__timer_stop(sc_comm_t *comm, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    return nccl__cuda(c, cudaEventRecord(c->ev_stop, c->stream), "cudaEventRecord", err);
}

static sc_status_t nccl__timer_read(sc_comm_t *comm, double *us, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    float ms = 0;
    sc_status_t status =
        nccl__cuda(c, cudaEventElapsedTime(&ms, c->ev_start, c->ev_stop), "cudaEventElapsed", err);
    *us = (double)ms * 1e3;
    return status;
}

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

static sc_status_t nccl__compute_spin(sc_comm_t *comm, double us, double *measured_us,
                                      sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_status_t status = SC_OK;
    if (c->spin_cycles_per_us <= 0)
        status = nccl__cuda(c, sc_cuda_spin_calibrate(c->stream, &c->spin_cycles_per_us),
                            "calibrating the spin kernel", err);
    if (status == SC_OK)
        status = nccl__timer_start(comm, err);
    if (status == SC_OK)
        status =
            nccl__cuda(c, sc_cuda_spin(c->stream, us, c->spin_cycles_per_us), "spin kernel", err);
    if (status == SC_OK)
        status = nccl__timer_stop(comm, err);
    if (status == SC_OK)
        status = nccl__sync(comm, err);
    return status == SC_OK ? nccl__timer_read(comm, measured_us, err) : status;
}

static sc_status_t nccl__compute_gemm(sc_comm_t *comm, const sc_gemm_spec_t *spec,
                                      sc_gemm_result_t *result, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    char why[256] = "";
    if (sc_cuda_gemm((int)spec->type, spec->m, spec->n, spec->k, spec->iters, c->stream,
                     &result->seconds, why, sizeof(why)) != 0)
        return nccl__fail(c, SC_ERR_RUNTIME, "matrix multiply", why, err);
    double flops = 2.0 * spec->m * spec->n * (double)spec->k * spec->iters;
    result->tflops = result->seconds > 0 ? flops / result->seconds / 1e12 : 0.0;
    return SC_OK;
}

/* One line describing this rank's GPU, for messages. */
static void nccl__describe_gpu(nccl__comm_t *c)
{
    struct cudaDeviceProp prop;
    char bus[32] = "?";
    const char *name = cudaGetDeviceProperties(&prop, c->device) == cudaSuccess ? prop.name : "?";
    cudaDeviceGetPCIBusId(bus, sizeof(bus), c->device);
    snprintf(c->gpu, sizeof(c->gpu), "GPU %d %s (%s)", c->device, name, bus);
}

/* This rank's device, or why it has none (sc_gpu_select). */
static sc_status_t nccl__pick_device(const sc_rte_t *rte, int requested, int *device, char *why,
                                     size_t len)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    return sc_gpu_select(requested, rc == cudaSuccess ? n : 0, rte->local_rank, rte->local_size,
                         rte->host, rc == cudaSuccess ? NULL : cudaGetErrorString(rc), device, why,
                         len);
}

/* Every rank learns the outcome of the first rank that failed (so all leave the same way). */
static sc_status_t nccl__agree(const sc_rte_t *rte, sc_status_t mine, char *why, size_t len,
                               sc_err_t *err)
{
    int first_bad = mine == SC_OK ? rte->size : rte->rank;
    MPI_Allreduce(MPI_IN_PLACE, &first_bad, 1, MPI_INT, MPI_MIN, rte->world);
    if (first_bad == rte->size)
        return SC_OK;
    int status = (int)mine;
    MPI_Bcast(&status, 1, MPI_INT, first_bad, rte->world);
    MPI_Bcast(why, (int)len, MPI_CHAR, first_bad, rte->world);
    return sc_err_set(err, (sc_status_t)status, "%s", why);
}

static sc_status_t nccl__resources(nccl__comm_t *c, sc_err_t *err)
{
    sc_status_t status = nccl__cuda(c, cudaSetDevice(c->device), "cudaSetDevice", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking),
                            "cudaStreamCreate", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaEventCreate(&c->ev_start), "cudaEventCreate", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaEventCreate(&c->ev_stop), "cudaEventCreate", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaMalloc((void **)&c->d_wrong, 64), "cudaMalloc", err);
    return status;
}

static nccl__comm_t *nccl__new(const sc_rte_t *rte, int device, double timeout_s)
{
    nccl__comm_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->base.rte = rte;
    c->device = device;
    c->timeout_s = timeout_s > 0 ? timeout_s : 1e9;
    int lib = 0;
    ncclGetVersion(&lib);
    snprintf(c->version, sizeof(c->version), "NCCL %d.%d.%d", lib / 10000, lib / 100 % 100,
             lib % 100);
    nccl__describe_gpu(c);
    return c;
}

static void nccl__close(sc_comm_t *comm)
{
    nccl__comm_t *c = nccl__of(comm);
    if (c->nccl != NULL) {
        ncclResult_t rc = ncclCommFinalize(c->nccl);
        sc_err_t ignored;
        if (nccl__settle(c, rc, "ncclCommFinalize", &ignored) == SC_OK)
            ncclCommDestroy(c->nccl);
        else if (c->nccl != NULL)
            ncclCommAbort(c->nccl);
    }
    if (c->d_wrong)
        cudaFree(c->d_wrong);
    if (c->ev_start)
        cudaEventDestroy(c->ev_start);
    if (c->ev_stop)
        cudaEventDestroy(c->ev_stop);
    if (c->stream)
        cudaStreamDestroy(c->stream);
    sc_comm_fini_base(comm);
    free(c);
}

static sc_status_t nccl__open(const sc_rte_t *rte, const sc_backend_opts_t *opts, sc_comm_t **world,
                              sc_err_t *err)
{
    char why[512] = "";
    int device = -1;
    sc_status_t status = nccl__pick_device(rte, opts->device, &device, why, sizeof(why));
    status = nccl__agree(rte, status, why, sizeof(why), err);
    if (status != SC_OK)
        return status;
    nccl__comm_t *c = nccl__new(rte, device, opts->timeout_s);
    if (c == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d: no memory for the NCCL backend", rte->rank);
    status =
        sc_comm_init_base(&c->base, &sc_backend_nccl_ops, rte, rte->rank, rte->size, NULL, err);
    if (status == SC_OK)
        status = nccl__resources(c, err);
    ncclUniqueId id;
    memset(&id, 0, sizeof(id));
    if (rte->rank == 0 && ncclGetUniqueId(&id) != ncclSuccess)
        memset(&id, 0, sizeof(id)); /* every rank then fails the init below, together */
    MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, rte->world);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0; /* so that a stuck init can be bounded and aborted */
    if (status == SC_OK)
        status =
            nccl__settle(c, ncclCommInitRankConfig(&c->nccl, rte->size, id, rte->rank, &config),
                         "ncclCommInitRankConfig", err);
    if (status != SC_OK) {
        nccl__close(&c->base);
        return status;
    }
    *world = &c->base;
    return SC_OK;
}

/* (color, key) of every parent rank, gathered with NCCL itself over the parent, so that the
 * child knows its members' world ranks without a matching MPI communicator. */
static sc_status_t nccl__gather_members(nccl__comm_t *c, int color, int key, int *all,
                                        sc_err_t *err)
{
    int mine[3] = {color, key, c->base.world_rank[c->base.rank]};
    int *d_all = NULL;
    size_t bytes = 3 * sizeof(int) * (size_t)c->base.size;
    sc_status_t status =
        nccl__cuda(c, cudaMalloc((void **)&d_all, bytes + sizeof(mine)), "cudaMalloc", err);
    int *d_mine = d_all ? d_all + 3 * c->base.size : NULL;
    if (status == SC_OK)
        status = nccl__cuda(c, cudaMemcpy(d_mine, mine, sizeof(mine), cudaMemcpyHostToDevice),
                            "cudaMemcpy", err);
    if (status == SC_OK)
        status = nccl__settle(c, ncclAllGather(d_mine, d_all, 3, ncclInt32, c->nccl, c->stream),
                              "ncclAllGather(split members)", err);
    if (status == SC_OK)
        status = nccl__sync(&c->base, err);
    if (status == SC_OK)
        status =
            nccl__cuda(c, cudaMemcpy(all, d_all, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy", err);
    cudaFree(d_all);
    return status;
}

/* World ranks of the members of `color` in child rank order: by key, then parent rank (NCCL's
 * and MPI's rule). all holds (color, key, world rank) per parent rank. */
static void nccl__order_members(const int *all, int parent_size, int color, int *members)
{
    int n = 0;
    for (int p = 0; p < parent_size; p++)
        if (all[3 * p] == color)
            members[n++] = p;
    /* Insertion sort by key: stable, so equal keys keep parent order. */
    for (int i = 1; i < n; i++) {
        int p = members[i], j = i;
        while (j > 0 && all[3 * members[j - 1] + 1] > all[3 * p + 1]) {
            members[j] = members[j - 1];
            j--;
        }
        members[j] = p;
    }
    for (int i = 0; i < n; i++)
        members[i] = all[3 * members[i] + 2];
}

static sc_status_t nccl__split(sc_comm_t *comm, int color, int key, sc_comm_t **out, sc_err_t *err)
{
    nccl__comm_t *parent = nccl__of(comm);
    *out = NULL;
    int *all = malloc(3 * sizeof(int) * (size_t)comm->size);
    int *members = malloc(sizeof(int) * (size_t)comm->size);
    sc_status_t status = (all && members) ? nccl__gather_members(parent, color, key, all, err)
                                          : sc_err_set(err, SC_ERR_NOMEM, "no memory for a split");
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclComm_t child = NULL;
    if (status == SC_OK)
        status = nccl__settle(parent,
                              ncclCommSplit(parent->nccl, color < 0 ? NCCL_SPLIT_NOCOLOR : color,
                                            key, &child, &config),
                              "ncclCommSplit", err);
    nccl__comm_t *c = NULL;
    if (status == SC_OK && child != NULL) {
        int rank = 0, size = 0;
        ncclCommUserRank(child, &rank);
        ncclCommCount(child, &size);
        nccl__order_members(all, comm->size, color, members);
        c = nccl__new(comm->rte, parent->device, parent->timeout_s);
        status = c ? sc_comm_init_base(&c->base, &sc_backend_nccl_ops, comm->rte, rank, size,
                                       members, err)
                   : sc_err_set(err, SC_ERR_NOMEM, "no memory for a split");
        if (c != NULL) {
            c->nccl = child;
            if (status == SC_OK)
                status = nccl__resources(c, err);
            if (status != SC_OK)
                nccl__close(&c->base);
            else
                *out = &c->base;
        }
    }
    free(all);
    free(members);
    return status;
}

static const char *nccl__version(sc_comm_t *comm)
{
    return nccl__of(comm)->version;
}

extern char **environ;

static json_t *nccl__describe(sc_comm_t *comm)
{
    nccl__comm_t *c = nccl__of(comm);
    int lib = 0, runtime = 0, driver = 0;
    ncclGetVersion(&lib);
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    json_t *env = json_object();
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "NCCL_", 5) == 0 && eq != NULL) {
            char name[128];
            snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
            json_object_set_new(env, name, json_string(eq + 1));
        }
    }
    return json_pack("{s:i, s:i, s:i, s:i, s:s, s:i, s:o}", "nccl_version_header",
                     NCCL_VERSION_CODE, "nccl_version_library", lib, "cuda_runtime", runtime,
                     "cuda_driver", driver, "gpu", c->gpu, "device", c->device, "nccl_env", env);
}

void sc_backend_nccl_versions(char *buf, size_t len)
{
    int lib = 0, runtime = 0, driver = 0;
    ncclGetVersion(&lib);
    cudaRuntimeGetVersion(&runtime);
    cudaError_t rc = cudaDriverGetVersion(&driver);
    snprintf(buf, len, "nccl: %d.%d.%d (header %d)\ncuda runtime: %d\ncuda driver: %d%s",
             lib / 10000, lib / 100 % 100, lib % 100, NCCL_VERSION_CODE, runtime, driver,
             rc != cudaSuccess || driver == 0 ? " (no driver)" : "");
}

const sc_backend_ops_t sc_backend_nccl_ops = {
    .name = "nccl",
    .open = nccl__open,
    .close = nccl__close,
    .version = nccl__version,
    .describe = nccl__describe,
    .alloc = nccl__alloc,
    .free = nccl__free,
    .to_host = nccl__to_host,
    .from_host = nccl__from_host,
    .fill_bytes = nccl__fill_bytes,
    .check_fill = nccl__check_fill,
    .check_count = nccl__check_count,
    .supports = nccl__supports,
    .timer_start = nccl__timer_start,
    .timer_stop = nccl__timer_stop,
    .timer_read = nccl__timer_read,
    .graph_begin = nccl__graph_begin,
    .graph_end = nccl__graph_end,
    .graph_launch = nccl__graph_launch,
    .graph_destroy = nccl__graph_destroy,
    .split = nccl__split,
    .compute_spin = nccl__compute_spin,
    .compute_gemm = nccl__compute_gemm,
    .sync = nccl__sync,
    .barrier = nccl__barrier,
    .allreduce = nccl__allreduce,
    .allgather = nccl__allgather,
    .reducescatter = nccl__reducescatter,
    .broadcast = nccl__broadcast,
    .reduce = nccl__reduce,
    .alltoall = nccl__alltoall,
    .sendrecv = nccl__sendrecv,
    .gather = nccl__gather,
    .scatter = nccl__scatter,
};
