/* sc_ascend_hccl.c - NCCL's names (comm/shadow/nccl.h) served by HCCL (sc_ascend_api.h), with
 * the contract the backend holds NCCL to where HCCL's own differs (docs/REFERENCE.md §7.2):
 * - creation: HcclCommInitRootInfo blocks, so a non-blocking config runs it on a thread of its
 *   own and the communicator answers ncclInProgress until it is done; one abandoned by an abort
 *   is destroyed by that thread when (if ever) the creation returns;
 * - splits: HCCL has no colour split, so the parent's ranks gather (colour, key) and their
 *   leaders' root infos with HcclAllGather over the parent and each colour creates its own
 *   communicator from its leader's root info, on a thread as above;
 * - abort: HCCL has none; the communicator is destroyed (HcclCommDestroy);
 * - broadcast: HCCL's is in place (the root's data is copied to the output first);
 * - average: HCCL has sum, prod, max, min: the average is the sum divided on the host in the
 *   element type (copied down and up again on the stream, so its time is in the row);
 * - grouped send/recv: gathered per communicator and stream and issued as one
 *   HcclBatchSendRecv at ncclGroupEnd. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/ascend/sc_ascend_api.h"
#include "cuda_runtime.h"
#include "nccl.h"
#include "util/sc_dtype.h"
#include "util/sc_dtype_core.h"

struct ncclComm {
    hccl_comm_t hccl;
    int device, nranks, rank;
    atomic_int state; /* ncclInProgress while its thread runs, then ncclSuccess or the error */
    bool abandoned;   /* aborted while its thread ran: the thread destroys and frees it */
    hccl_result_t last;
    char last_call[40];
    char last_detail[200];    /* aclGetRecentErrMsg at the failure: how CANN reports HCCL's cause */
    sc_hccl_root_info_t root; /* creation's */
    struct ncclComm *parent;  /* a split's */
    int color, key;
    ncclComm_t *child_slot;
    void *scratch; /* host memory for the average's division, grown on demand */
    size_t scratch_bytes;
};

static pthread_mutex_t hccl__lock = PTHREAD_MUTEX_INITIALIZER;

static ncclResult_t hccl__result(hccl_result_t rc)
{
    switch (rc) {
    case 0:
        return ncclSuccess;
    case 1: /* HCCL_E_PARA */
    case 2: /* HCCL_E_PTR */
    case 5: /* HCCL_E_NOT_SUPPORT */
        return ncclInvalidArgument;
    case 3: /* HCCL_E_MEMORY */
    case 8: /* HCCL_E_SYSCALL */
        return ncclSystemError;
    case 9:  /* HCCL_E_TIMEOUT */
    case 11: /* HCCL_E_TCP_CONNECT */
    case 12: /* HCCL_E_ROCE_CONNECT */
    case 13: /* HCCL_E_TCP_TRANSFER */
    case 14: /* HCCL_E_ROCE_TRANSFER */
    case 19: /* HCCL_E_NETWORK */
    case 21: /* HCCL_E_REMOTE */
        return ncclRemoteError;
    case 15: /* HCCL_E_RUNTIME */
    case 16: /* HCCL_E_DRV */
        return ncclUnhandledCudaError;
    default:
        return ncclInternalError;
    }
}

/* An HCCL call's answer, kept on the communicator for ncclGetLastError. */
static ncclResult_t hccl__note(ncclComm_t comm, hccl_result_t rc, const char *call)
{
    const sc_ascend_api_t *api = sc_ascend();
    if (rc != 0 && comm != NULL) {
        const char *recent = api != NULL ? api->aclGetRecentErrMsg() : NULL;
        comm->last = rc;
        snprintf(comm->last_call, sizeof(comm->last_call), "%s", call);
        snprintf(comm->last_detail, sizeof(comm->last_detail), "%s", recent ? recent : "");
    }
    return hccl__result(rc);
}

#define HCCL__API()                                                                                \
    const sc_ascend_api_t *api = sc_ascend();                                                      \
    if (api == NULL)                                                                               \
        return ncclSystemError;                                                                    \
    (void)0

static int hccl__type(ncclDataType_t t)
{
    static const int table[] = {
        [ncclInt8] = SC_HCCL_INT8,     [ncclUint8] = SC_HCCL_UINT8,  [ncclInt32] = SC_HCCL_INT32,
        [ncclUint32] = SC_HCCL_UINT32, [ncclInt64] = SC_HCCL_INT64,  [ncclUint64] = SC_HCCL_UINT64,
        [ncclFloat16] = SC_HCCL_FP16,  [ncclFloat32] = SC_HCCL_FP32, [ncclFloat64] = SC_HCCL_FP64,
        [ncclBfloat16] = SC_HCCL_BFP16};
    return (unsigned)t < sizeof(table) / sizeof(table[0]) ? table[t] : -1;
}

static sc_dtype_t hccl__dtype(ncclDataType_t t)
{
    static const sc_dtype_t table[] = {
        [ncclInt8] = SC_DTYPE_int8,      [ncclUint8] = SC_DTYPE_uint8,
        [ncclInt32] = SC_DTYPE_int32,    [ncclUint32] = SC_DTYPE_uint32,
        [ncclInt64] = SC_DTYPE_int64,    [ncclUint64] = SC_DTYPE_uint64,
        [ncclFloat16] = SC_DTYPE_fp16,   [ncclFloat32] = SC_DTYPE_float,
        [ncclFloat64] = SC_DTYPE_double, [ncclBfloat16] = SC_DTYPE_bf16};
    return table[t];
}

static int hccl__op(ncclRedOp_t op)
{
    return op == ncclProd  ? SC_HCCL_REDUCE_PROD
           : op == ncclMax ? SC_HCCL_REDUCE_MAX
           : op == ncclMin ? SC_HCCL_REDUCE_MIN
                           : SC_HCCL_REDUCE_SUM; /* sum, and the average's sum */
}

ncclResult_t ncclGetVersion(int *version)
{
    HCCL__API();
    int32_t major = 0, minor = 0, patch = 0;
    api->aclrtGetVersion(&major, &minor, &patch); /* HCCL is CANN's: it has CANN's version */
    *version = major * 10000 + minor * 100 + patch;
    return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    HCCL__API();
    _Static_assert(sizeof(ncclUniqueId) == sizeof(sc_hccl_root_info_t), "the root info's size");
    return hccl__result(api->HcclGetRootInfo((sc_hccl_root_info_t *)id));
}

static ncclComm_t hccl__new(int nranks, int rank)
{
    ncclComm_t c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->device = sc_ascend_current_device();
    c->nranks = nranks;
    c->rank = rank;
    atomic_init(&c->state, ncclInProgress);
    return c;
}

/* The end of a creation's thread: its outcome published, or (abandoned) everything freed. */
static void hccl__settled(ncclComm_t c, ncclResult_t outcome)
{
    const sc_ascend_api_t *api = sc_ascend();
    pthread_mutex_lock(&hccl__lock);
    bool abandoned = c->abandoned;
    if (!abandoned)
        atomic_store(&c->state, outcome);
    pthread_mutex_unlock(&hccl__lock);
    if (abandoned) {
        if (c->hccl != NULL)
            api->HcclCommDestroy(c->hccl);
        free(c);
    }
}

static void *hccl__init_thread(void *arg)
{
    ncclComm_t c = arg;
    const sc_ascend_api_t *api = sc_ascend();
    hccl_result_t rc = api->aclrtSetDevice(c->device) == SC_ACL_SUCCESS ? 0 : 15;
    if (rc == 0)
        rc = api->HcclCommInitRootInfo((uint32_t)c->nranks, &c->root, (uint32_t)c->rank, &c->hccl);
    hccl__settled(c, hccl__note(c, rc, "HcclCommInitRootInfo"));
    return NULL;
}

/* Runs fn on a thread of its own (non-blocking) or here; ncclInProgress or its outcome. */
static ncclResult_t hccl__start(ncclComm_t c, void *(*fn)(void *), const ncclConfig_t *config)
{
    bool blocking = config == NULL || config->blocking != 0;
    pthread_t thread;
    if (blocking) {
        fn(c);
        return (ncclResult_t)atomic_load(&c->state);
    }
    if (pthread_create(&thread, NULL, fn, c) != 0)
        return ncclSystemError;
    pthread_detach(thread);
    return ncclInProgress;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t *config)
{
    HCCL__API();
    (void)api;
    ncclComm_t c = hccl__new(nranks, rank);
    if (c == NULL)
        return ncclSystemError;
    memcpy(&c->root, &id, sizeof(c->root));
    *comm = c;
    return hccl__start(c, hccl__init_thread, config);
}

/* Host memory of the split's gathers: device buffers copied down, synchronously (its thread). */
static hccl_result_t hccl__gather(const sc_ascend_api_t *api, ncclComm_t parent, acl_stream_t s,
                                  const void *mine, void *all, size_t bytes)
{
    void *d = NULL;
    size_t total = bytes * (size_t)(parent->nranks + 1);
    if (api->aclrtMalloc(&d, total, SC_ACL_MEM_MALLOC_HUGE_FIRST) != SC_ACL_SUCCESS)
        return 3;
    char *d_mine = (char *)d + bytes * (size_t)parent->nranks;
    hccl_result_t rc =
        api->aclrtMemcpy(d_mine, bytes, mine, bytes, 1 /* host to device */) == SC_ACL_SUCCESS
            ? api->HcclAllGather(d_mine, d, bytes, SC_HCCL_INT8, parent->hccl, s)
            : 15;
    if (rc == 0 && api->aclrtSynchronizeStream(s) != SC_ACL_SUCCESS)
        rc = 15;
    if (rc == 0 &&
        api->aclrtMemcpy(all, bytes * (size_t)parent->nranks, d, bytes * (size_t)parent->nranks,
                         2 /* device to host */) != SC_ACL_SUCCESS)
        rc = 15;
    api->aclrtFree(d);
    return rc;
}

/* The child's members in rank order (by key, then parent rank: NCCL's rule), from the gathered
 * (colour, key) pairs; how many, and this rank's place in *me. */
static int hccl__members(const int *pairs, int parent_size, int color, int self, int *members,
                         int *me)
{
    int n = 0;
    for (int p = 0; p < parent_size; p++)
        if (pairs[2 * p] == color) {
            int j = n++;
            while (j > 0 && pairs[2 * members[j - 1] + 1] > pairs[2 * p + 1]) {
                members[j] = members[j - 1];
                j--;
            }
            members[j] = p;
        }
    for (int i = 0; i < n; i++)
        if (members[i] == self)
            *me = i;
    return n;
}

static hccl_result_t hccl__split_run(const sc_ascend_api_t *api, ncclComm_t c, acl_stream_t s)
{
    ncclComm_t parent = c->parent;
    int n = parent->nranks, me = 0;
    int *pairs = malloc(2 * sizeof(int) * (size_t)n), *members = malloc(sizeof(int) * (size_t)n);
    sc_hccl_root_info_t *roots = malloc(sizeof(*roots) * (size_t)n), *own = calloc(1, sizeof(*own));
    hccl_result_t rc = pairs && members && roots && own ? 0 : 3;
    if (rc == 0) {
        int mine[2] = {c->color, c->key};
        rc = hccl__gather(api, parent, s, mine, pairs, sizeof(mine));
    }
    int size = rc == 0 ? hccl__members(pairs, n, c->color, parent->rank, members, &me) : 0;
    bool leader = c->color != NCCL_SPLIT_NOCOLOR && me == 0;
    if (rc == 0 && leader)
        rc = api->HcclGetRootInfo(own);
    if (rc == 0)
        rc = hccl__gather(api, parent, s, own, roots, sizeof(*own));
    if (rc == 0 && c->color != NCCL_SPLIT_NOCOLOR) {
        c->nranks = size;
        c->rank = me;
        rc = api->HcclCommInitRootInfo((uint32_t)size, &roots[members[0]], (uint32_t)me, &c->hccl);
    }
    free(pairs);
    free(members);
    free(roots);
    free(own);
    return rc;
}

static void *hccl__split_thread(void *arg)
{
    ncclComm_t c = arg;
    const sc_ascend_api_t *api = sc_ascend();
    acl_stream_t s = NULL;
    hccl_result_t rc = api->aclrtSetDevice(c->device) == SC_ACL_SUCCESS &&
                               api->aclrtCreateStream(&s) == SC_ACL_SUCCESS
                           ? 0
                           : 15;
    if (rc == 0)
        rc = hccl__split_run(api, c, s);
    if (s != NULL)
        api->aclrtDestroyStream(s);
    ncclResult_t outcome = hccl__note(c, rc, "HcclCommInitRootInfo (split)");
    ncclComm_t parent = c->parent;
    if (outcome == ncclSuccess && c->color != NCCL_SPLIT_NOCOLOR) {
        atomic_store(&c->state, ncclSuccess); /* complete before anyone can see it */
        __atomic_store_n(c->child_slot, c, __ATOMIC_RELEASE);
    } else {
        free(c); /* no colour, or failed: no child was handed out */
    }
    hccl__settled(parent, outcome); /* the parent's state, or its abandoned end */
    return NULL;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *child,
                           ncclConfig_t *config)
{
    HCCL__API();
    (void)api;
    ncclComm_t c = hccl__new(0, 0);
    if (c == NULL)
        return ncclSystemError;
    c->parent = comm;
    c->color = color;
    c->key = key;
    c->device = comm->device;
    c->child_slot = child;
    *child = NULL;
    atomic_store(&comm->state, ncclInProgress); /* the parent is busy with it, as in NCCL */
    bool blocking = config == NULL || config->blocking != 0;
    if (blocking) {
        hccl__split_thread(c);
        return (ncclResult_t)atomic_load(&comm->state);
    }
    pthread_t thread;
    if (pthread_create(&thread, NULL, hccl__split_thread, c) != 0) {
        atomic_store(&comm->state, ncclSuccess);
        free(c);
        return ncclSystemError;
    }
    pthread_detach(thread);
    return ncclInProgress;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    (void)comm; /* HCCL's destroy finalizes */
    return ncclSuccess;
}

static ncclResult_t hccl__destroy(ncclComm_t comm)
{
    HCCL__API();
    if (comm == NULL)
        return ncclSuccess;
    pthread_mutex_lock(&hccl__lock);
    bool running = atomic_load(&comm->state) == ncclInProgress;
    if (running)
        comm->abandoned = true; /* its creation's (or split's) thread frees it */
    pthread_mutex_unlock(&hccl__lock);
    if (running)
        return ncclSuccess;
    hccl_result_t rc = comm->hccl != NULL ? api->HcclCommDestroy(comm->hccl) : 0;
    if (comm->scratch != NULL)
        api->aclrtFreeHost(comm->scratch);
    free(comm);
    return hccl__result(rc);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    return hccl__destroy(comm);
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    return hccl__destroy(comm); /* HCCL has no abort: destroying it ends its work */
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *async_error)
{
    HCCL__API();
    ncclResult_t state = (ncclResult_t)atomic_load(&comm->state);
    if (state != ncclSuccess || comm->hccl == NULL) {
        *async_error = state;
        return ncclSuccess;
    }
    hccl_result_t rc = 0;
    if (api->HcclGetCommAsyncError(comm->hccl, &rc) != 0)
        return ncclInternalError;
    *async_error = hccl__note(comm, rc, "HcclGetCommAsyncError");
    return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    *count = comm->nranks;
    return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    *rank = comm->rank;
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result)
{
    static const char *const text[] = {"no error",       "runtime error (ACL)",  "system error",
                                       "internal error", "invalid argument",     "invalid usage",
                                       "remote error",   "operation in progress"};
    return (unsigned)result < sizeof(text) / sizeof(text[0]) ? text[result] : "unknown result";
}

const char *ncclGetLastError(ncclComm_t comm)
{
    static _Thread_local char text[400];
    const sc_ascend_api_t *api = sc_ascend();
    if (comm == NULL || comm->last == 0 || api == NULL)
        return "";
    snprintf(text, sizeof(text), "%s: %s (HcclResult %d)%s%s", comm->last_call,
             api->HcclGetErrorString(comm->last), comm->last, comm->last_detail[0] ? ": " : "",
             comm->last_detail);
    return text;
}

/* ---- the average: the sum, divided on the host in the element type ---- */

typedef struct {
    void *host;
    size_t count;
    sc_dtype_t dtype;
    int ranks;
} hccl__divide_t;

static void hccl__divide(void *arg)
{
    hccl__divide_t *d = arg;
    for (size_t i = 0; i < d->count; i++) {
        double v = sc_dtype_load(d->dtype, d->host, i) / d->ranks;
        sc_dtype_store(d->dtype, d->host, i,
                       sc_dtype_core_is_float(d->dtype) ? v : (double)(long long)v);
    }
    free(d);
}

static ncclResult_t hccl__average(ncclComm_t c, void *buf, size_t count, ncclDataType_t type,
                                  cudaStream_t stream)
{
    HCCL__API();
    size_t bytes = count * sc_dtype_size(hccl__dtype(type));
    if (bytes > c->scratch_bytes) { /* the stream's earlier averages may still use the old one */
        if (c->scratch != NULL && (api->aclrtSynchronizeStream(stream) != SC_ACL_SUCCESS ||
                                   api->aclrtFreeHost(c->scratch) != SC_ACL_SUCCESS))
            return ncclUnhandledCudaError;
        c->scratch = NULL;
        c->scratch_bytes = 0;
        if (api->aclrtMallocHost(&c->scratch, bytes) != SC_ACL_SUCCESS)
            return ncclSystemError;
        c->scratch_bytes = bytes;
    }
    hccl__divide_t *d = malloc(sizeof(*d));
    if (d == NULL)
        return ncclSystemError;
    *d = (hccl__divide_t){c->scratch, count, hccl__dtype(type), c->nranks};
    if (api->aclrtMemcpyAsync(c->scratch, bytes, buf, bytes, 2, stream) != SC_ACL_SUCCESS ||
        api->aclrtLaunchHostFunc(stream, hccl__divide, d) != SC_ACL_SUCCESS) {
        free(d);
        return ncclUnhandledCudaError;
    }
    /* d is the host function's now: it frees it */
    // cppcheck-suppress memleak
    return api->aclrtMemcpyAsync(buf, bytes, c->scratch, bytes, 1, stream) == SC_ACL_SUCCESS
               ? ncclSuccess
               : ncclUnhandledCudaError;
}

/* ---- collectives ---- */

#define HCCL__TYPE(t)                                                                              \
    int htype = hccl__type(t);                                                                     \
    if (htype < 0)                                                                                 \
        return ncclInvalidArgument;                                                                \
    (void)0

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    HCCL__API();
    HCCL__TYPE(type);
    ncclResult_t rc = hccl__note(
        comm,
        api->HcclAllReduce((void *)send, recv, count, htype, hccl__op(op), comm->hccl, stream),
        "HcclAllReduce");
    return rc == ncclSuccess && op == ncclAvg ? hccl__average(comm, recv, count, type, stream) : rc;
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t type,
                           int root, ncclComm_t comm, cudaStream_t stream)
{
    HCCL__API();
    HCCL__TYPE(type);
    size_t bytes = count * sc_dtype_size(hccl__dtype(type));
    if (comm->rank == root && send != recv && bytes > 0 &&
        api->aclrtMemcpyAsync(recv, bytes, send, bytes, 3, stream) != SC_ACL_SUCCESS)
        return ncclUnhandledCudaError;
    return hccl__note(comm,
                      api->HcclBroadcast(recv, count, htype, (uint32_t)root, comm->hccl, stream),
                      "HcclBroadcast");
}

ncclResult_t ncclReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)
{
    HCCL__API();
    HCCL__TYPE(type);
    ncclResult_t rc = hccl__note(comm,
                                 api->HcclReduce((void *)send, recv, count, htype, hccl__op(op),
                                                 (uint32_t)root, comm->hccl, stream),
                                 "HcclReduce");
    return rc == ncclSuccess && op == ncclAvg && comm->rank == root
               ? hccl__average(comm, recv, count, type, stream)
               : rc;
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t send_count, ncclDataType_t type,
                           ncclComm_t comm, cudaStream_t stream)
{
    HCCL__API();
    HCCL__TYPE(type);
    return hccl__note(comm,
                      api->HcclAllGather((void *)send, recv, send_count, htype, comm->hccl, stream),
                      "HcclAllGather");
}

ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t recv_count, ncclDataType_t type,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    HCCL__API();
    HCCL__TYPE(type);
    ncclResult_t rc = hccl__note(comm,
                                 api->HcclReduceScatter((void *)send, recv, recv_count, htype,
                                                        hccl__op(op), comm->hccl, stream),
                                 "HcclReduceScatter");
    return rc == ncclSuccess && op == ncclAvg ? hccl__average(comm, recv, recv_count, type, stream)
                                              : rc;
}

/* ---- point to point: grouped sends and receives as one HcclBatchSendRecv each ---- */

#define HCCL__GROUP_MAX 256
typedef struct {
    ncclComm_t comm;
    cudaStream_t stream;
    sc_hccl_item_t item;
} hccl__pending_t;
static _Thread_local int hccl__depth, hccl__pending_n;
static _Thread_local hccl__pending_t hccl__pending[HCCL__GROUP_MAX];

ncclResult_t ncclGroupStart(void)
{
    hccl__depth++;
    return ncclSuccess;
}

static ncclResult_t hccl__p2p(bool send, void *buf, size_t count, ncclDataType_t type, int peer,
                              ncclComm_t comm, cudaStream_t stream)
{
    HCCL__API();
    HCCL__TYPE(type);
    if (hccl__depth > 0) {
        if (hccl__pending_n == HCCL__GROUP_MAX)
            return ncclInvalidUsage;
        hccl__pending[hccl__pending_n++] =
            (hccl__pending_t){comm, stream, {send ? 0 : 1, buf, count, htype, (uint32_t)peer}};
        return ncclSuccess;
    }
    hccl_result_t rc = send ? api->HcclSend(buf, count, htype, (uint32_t)peer, comm->hccl, stream)
                            : api->HcclRecv(buf, count, htype, (uint32_t)peer, comm->hccl, stream);
    return hccl__note(comm, rc, send ? "HcclSend" : "HcclRecv");
}

ncclResult_t ncclSend(const void *send, size_t count, ncclDataType_t type, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    return hccl__p2p(true, (void *)send, count, type, peer, comm, stream);
}

ncclResult_t ncclRecv(void *recv, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    return hccl__p2p(false, recv, count, type, peer, comm, stream);
}

ncclResult_t ncclGroupEnd(void)
{
    HCCL__API();
    if (hccl__depth == 0)
        return ncclInvalidUsage;
    if (--hccl__depth > 0)
        return ncclSuccess;
    ncclResult_t result = ncclSuccess;
    sc_hccl_item_t items[HCCL__GROUP_MAX];
    /* one batch per (communicator, stream), in the order they were first named */
    for (int i = 0; i < hccl__pending_n; i++) {
        ncclComm_t comm = hccl__pending[i].comm;
        cudaStream_t stream = hccl__pending[i].stream;
        if (comm == NULL)
            continue;
        uint32_t n = 0;
        for (int j = i; j < hccl__pending_n; j++)
            if (hccl__pending[j].comm == comm && hccl__pending[j].stream == stream) {
                items[n++] = hccl__pending[j].item;
                hccl__pending[j].comm = NULL;
            }
        ncclResult_t rc = hccl__note(comm, api->HcclBatchSendRecv(items, n, comm->hccl, stream),
                                     "HcclBatchSendRecv");
        if (result == ncclSuccess)
            result = rc;
    }
    hccl__pending_n = 0;
    return result;
}
