/* fake_hccl.c - the emulated Ascend NPU's HCCL (libhccl.so, CANN's): the Hccl* entry points the
 * Ascend module uses, each served by the emulated NCCL beside it (fake_nccl.c, linked), which
 * moves the data between ranks and holds the faults (FAKE_NCCL_*), and each checked as HCCL's
 * headers document it (hccl.h, hccl_comm.h, hccl_types.h): the root info is HcclRootInfo's 4108
 * bytes and must be one HcclGetRootInfo made; creation blocks; the reduce operations are sum,
 * prod, max and min (no average); broadcast is in place; counts are uint64; a batch's items are
 * sends or receives; HcclResult's numbers for NCCL's; no call before ACL has a device set on the
 * calling thread (HCCL works on the current device). HCCL_DATA_TYPE_INT16/UINT16/INT128, which
 * NCCL lacks, are not emulated (HCCL_E_NOT_SUPPORT, loudly). */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int HcclResult;
typedef ncclComm_t HcclComm;
#define HCCL__EXPORT __attribute__((visibility("default")))
enum {
    H__SUCCESS = 0,
    H__E_PARA = 1,
    H__E_PTR = 2,
    H__E_INTERNAL = 4,
    H__E_NOT_SUPPORT = 5,
    H__E_RUNTIME = 15,
    H__E_REMOTE = 21,
    H__ROOT_INFO_BYTES = 4108,
};
typedef struct {
    char internal[H__ROOT_INFO_BYTES];
} HcclRootInfo;
/* What the stand-in writes after NCCL's id, so that a root info it did not make is refused. */
static const char h__mark[] = "fake-hccl-root-info";

typedef struct {
    int kind; /* HCCL_SEND 0, HCCL_RECV 1 */
    void *buf;
    uint64_t count;
    int type;
    uint32_t remote;
} HcclSendRecvItem;

void fakeacl_report(const char *code, const char *what); /* fake_acl.c */

static HcclResult h__from(ncclResult_t rc)
{
    switch (rc) {
    case ncclSuccess:
        return H__SUCCESS;
    case ncclInvalidArgument:
    case ncclInvalidUsage:
        return H__E_PARA;
    case ncclRemoteError:
        return H__E_REMOTE;
    case ncclUnhandledCudaError:
        return H__E_RUNTIME;
    default:
        return H__E_INTERNAL;
    }
}

/* HcclDataType as NCCL's; -1 where NCCL has none. */
static int h__type(int t)
{
    static const int table[] = {ncclInt8,        ncclInt8 /* int16: none */,
                                ncclInt32,       ncclFloat16,
                                ncclFloat32,     ncclInt64,
                                ncclUint64,      ncclUint8,
                                -1 /* uint16 */, ncclUint32,
                                ncclFloat64,     ncclBfloat16};
    if (t == 1 || t < 0 || t >= (int)(sizeof(table) / sizeof(table[0])) || table[t] < 0) {
        fprintf(stderr, "fake HCCL: data type %d is not emulated\n", t);
        return -1;
    }
    return table[t];
}

/* HCCL has sum (0), prod (1), max (2), min (3): NCCL's numbers for the four. */
static int h__op(int op)
{
    return op >= 0 && op <= 3 ? op : -1;
}

/* HCCL works on the thread's current device: one must have been set (aclrtSetDevice). */
static int h__device_set(void)
{
    int d = -1;
    return cudaGetDevice(&d) == cudaSuccess && d >= 0;
}

/* A communicator's failure, its cause reported as CANN reports HCCL's (EI: HCCL's error codes). */
static HcclResult h__on(HcclComm comm, ncclResult_t rc)
{
    const char *why = rc != ncclSuccess && rc != ncclInProgress ? ncclGetLastError(comm) : NULL;
    if (why != NULL && why[0] != '\0')
        fakeacl_report("EI9999", why);
    return h__from(rc);
}

HCCL__EXPORT const char *HcclGetErrorString(HcclResult code)
{
    static const char *const text[] = {"success",
                                       "parameter error",
                                       "empty pointer",
                                       "memory error",
                                       "internal error",
                                       "not support feature",
                                       "not found specific resource",
                                       "resource unavailable",
                                       "call system interface error",
                                       "timeout",
                                       "open file fail",
                                       "tcp connect fail",
                                       "roce connect fail",
                                       "tcp transfer fail",
                                       "roce transfer fail",
                                       "call runtime api fail",
                                       "call driver api fail",
                                       "call profiling api fail",
                                       "call cce api fail",
                                       "call network api fail",
                                       "try again",
                                       "error cqe",
                                       "error communicator suspending"};
    return code >= 0 && code < (int)(sizeof(text) / sizeof(text[0])) ? text[code] : "unknown error";
}

HCCL__EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *root)
{
    if (root == NULL)
        return H__E_PTR;
    memset(root, 0, sizeof(*root));
    ncclUniqueId id;
    HcclResult rc = h__from(ncclGetUniqueId(&id));
    memcpy(root->internal, &id, sizeof(id));
    memcpy(root->internal + sizeof(id), h__mark, sizeof(h__mark));
    return rc;
}

HCCL__EXPORT HcclResult HcclCommInitRootInfo(uint32_t nranks, const HcclRootInfo *root,
                                             uint32_t rank, HcclComm *comm)
{
    if (root == NULL || comm == NULL)
        return H__E_PTR;
    if (nranks == 0 || rank >= nranks ||
        memcmp(root->internal + sizeof(ncclUniqueId), h__mark, sizeof(h__mark)) != 0)
        return H__E_PARA;
    if (!h__device_set())
        return H__E_RUNTIME;
    ncclUniqueId id;
    memcpy(&id, root->internal, sizeof(id));
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1; /* HCCL's creation blocks */
    return h__from(ncclCommInitRankConfig(comm, (int)nranks, id, (int)rank, &config));
}

/* Ends the communicator's work first (what NCCL's abort does), then frees it. */
HCCL__EXPORT HcclResult HcclCommDestroy(HcclComm comm)
{
    return comm == NULL ? H__E_PTR : h__from(ncclCommAbort(comm));
}

HCCL__EXPORT HcclResult HcclGetRankSize(HcclComm comm, uint32_t *size)
{
    int n = 0;
    if (comm == NULL || size == NULL)
        return H__E_PTR;
    HcclResult rc = h__from(ncclCommCount(comm, &n));
    *size = (uint32_t)n;
    return rc;
}

HCCL__EXPORT HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    int r = 0;
    if (comm == NULL || rank == NULL)
        return H__E_PTR;
    HcclResult rc = h__from(ncclCommUserRank(comm, &r));
    *rank = (uint32_t)r;
    return rc;
}

HCCL__EXPORT HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *error)
{
    ncclResult_t state = ncclSuccess;
    if (comm == NULL || error == NULL)
        return H__E_PTR;
    ncclResult_t rc = ncclCommGetAsyncError(comm, &state);
    *error = state == ncclInProgress ? H__SUCCESS : h__on(comm, state);
    return h__from(rc);
}

#define H__ARGS(type, op_ok)                                                                       \
    int nt = h__type(type);                                                                        \
    if (comm == NULL)                                                                              \
        return H__E_PTR;                                                                           \
    if (nt < 0)                                                                                    \
        return H__E_NOT_SUPPORT;                                                                   \
    if (!(op_ok))                                                                                  \
        return H__E_PARA;                                                                          \
    if (!h__device_set())                                                                          \
    return H__E_RUNTIME

HCCL__EXPORT HcclResult HcclAllReduce(void *send, void *recv, uint64_t count, int type, int op,
                                      HcclComm comm, cudaStream_t s)
{
    H__ARGS(type, h__op(op) >= 0);
    return h__on(comm,
                 ncclAllReduce(send, recv, count, (ncclDataType_t)nt, (ncclRedOp_t)op, comm, s));
}

HCCL__EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, int type, uint32_t root,
                                      HcclComm comm, cudaStream_t s)
{
    H__ARGS(type, true);
    return h__on(comm, ncclBroadcast(buf, buf, count, (ncclDataType_t)nt, (int)root, comm, s));
}

HCCL__EXPORT HcclResult HcclReduce(void *send, void *recv, uint64_t count, int type, int op,
                                   uint32_t root, HcclComm comm, cudaStream_t s)
{
    H__ARGS(type, h__op(op) >= 0);
    return h__on(comm, ncclReduce(send, recv, count, (ncclDataType_t)nt, (ncclRedOp_t)op, (int)root,
                                  comm, s));
}

HCCL__EXPORT HcclResult HcclAllGather(void *send, void *recv, uint64_t count, int type,
                                      HcclComm comm, cudaStream_t s)
{
    H__ARGS(type, true);
    return h__on(comm, ncclAllGather(send, recv, count, (ncclDataType_t)nt, comm, s));
}

HCCL__EXPORT HcclResult HcclReduceScatter(void *send, void *recv, uint64_t count, int type, int op,
                                          HcclComm comm, cudaStream_t s)
{
    H__ARGS(type, h__op(op) >= 0);
    return h__on(
        comm, ncclReduceScatter(send, recv, count, (ncclDataType_t)nt, (ncclRedOp_t)op, comm, s));
}

HCCL__EXPORT HcclResult HcclSend(void *buf, uint64_t count, int type, uint32_t peer, HcclComm comm,
                                 cudaStream_t s)
{
    H__ARGS(type, true);
    return h__on(comm, ncclSend(buf, count, (ncclDataType_t)nt, (int)peer, comm, s));
}

HCCL__EXPORT HcclResult HcclRecv(void *buf, uint64_t count, int type, uint32_t peer, HcclComm comm,
                                 cudaStream_t s)
{
    H__ARGS(type, true);
    return h__on(comm, ncclRecv(buf, count, (ncclDataType_t)nt, (int)peer, comm, s));
}

HCCL__EXPORT HcclResult HcclBatchSendRecv(HcclSendRecvItem *items, uint32_t n, HcclComm comm,
                                          cudaStream_t s)
{
    if (items == NULL || comm == NULL)
        return H__E_PTR;
    for (uint32_t i = 0; i < n; i++)
        if ((items[i].kind != 0 && items[i].kind != 1) || h__type(items[i].type) < 0)
            return H__E_PARA;
    if (!h__device_set())
        return H__E_RUNTIME;
    ncclResult_t rc = ncclGroupStart();
    for (uint32_t i = 0; i < n && rc == ncclSuccess; i++) {
        ncclDataType_t t = (ncclDataType_t)h__type(items[i].type);
        rc = items[i].kind == 0
                 ? ncclSend(items[i].buf, items[i].count, t, (int)items[i].remote, comm, s)
                 : ncclRecv(items[i].buf, items[i].count, t, (int)items[i].remote, comm, s);
    }
    ncclResult_t end = ncclGroupEnd();
    return h__on(comm, rc != ncclSuccess ? rc : end);
}
