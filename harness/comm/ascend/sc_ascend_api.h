/* sc_ascend_api.h - the Ascend module's libraries, loaded at run time (sc_ascend_rt.c): the ACL
 * runtime (libascendcl.so), HCCL (libhccl.so) and the operator API's matrix product
 * (libopapi.so, its tensors libnnopbase.so), by the C API Huawei's public headers declare
 * (CANN: acl/acl_rt.h, acl/acl_base_rt.h, hccl/hccl.h, hccl/hccl_comm.h, hccl/hccl_types.h,
 * aclnn/acl_meta.h, aclnnop/aclnn_batch_matmul.h; docs/REFERENCE.md §7.2). The prototypes are
 * declared here, with the values the module uses: no CANN is needed to build. */
#ifndef SC_ASCEND_API_H
#define SC_ASCEND_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int acl_error_t; /* aclError: 0 success */
typedef void *acl_stream_t;
typedef void *acl_event_t;
typedef int hccl_result_t; /* HcclResult: 0 success */
typedef void *hccl_comm_t;

enum {
    SC_ACL_SUCCESS = 0,
    SC_ACL_ERROR_INVALID_PARAM = 100000,     /* acl_base_rt.h */
    SC_ACL_ERROR_REPEAT_INITIALIZE = 100002, /* aclInit called twice */
    SC_ACL_ERROR_RT_PARAM_INVALID = 107000,  /* rt_error_codes.h */
    SC_ACL_ERROR_RT_INVALID_DEVICEID = 107001,
    SC_ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000,
    SC_ACL_ERROR_RT_MEMORY_ALLOCATION = 207001,
    SC_ACL_MEM_MALLOC_HUGE_FIRST = 0, /* aclrtMemMallocPolicy */
    SC_ACL_HBM_MEM = 1,               /* aclrtMemAttr */
    SC_ACL_STREAM_STATUS_COMPLETE = 0,
    SC_ACL_FLOAT = 0, /* aclDataType */
    SC_ACL_FLOAT16 = 1,
};

/* HcclDataType's and HcclReduceOp's values (hccl_types.h). */
enum {
    SC_HCCL_INT8 = 0,
    SC_HCCL_INT16 = 1,
    SC_HCCL_INT32 = 2,
    SC_HCCL_FP16 = 3,
    SC_HCCL_FP32 = 4,
    SC_HCCL_INT64 = 5,
    SC_HCCL_UINT64 = 6,
    SC_HCCL_UINT8 = 7,
    SC_HCCL_UINT16 = 8,
    SC_HCCL_UINT32 = 9,
    SC_HCCL_FP64 = 10,
    SC_HCCL_BFP16 = 11,
    SC_HCCL_REDUCE_SUM = 0,
    SC_HCCL_REDUCE_PROD = 1,
    SC_HCCL_REDUCE_MAX = 2,
    SC_HCCL_REDUCE_MIN = 3,
    SC_HCCL_ROOT_INFO_BYTES = 4108,
};
typedef struct {
    char internal[SC_HCCL_ROOT_INFO_BYTES];
} sc_hccl_root_info_t;
/* HcclSendRecvItem (hccl_types.h): one send or receive of HcclBatchSendRecv. */
typedef struct {
    int kind; /* HCCL_SEND 0, HCCL_RECV 1 */
    void *buf;
    uint64_t count;
    int type;
    uint32_t remote_rank;
} sc_hccl_item_t;

/* X(return type, name, parameters): the entry points, each required. */
#define SC_ACL_CALLS(X)                                                                            \
    X(acl_error_t, aclInit, (const char *config))                                                  \
    X(acl_error_t, aclrtSetDevice, (int32_t device))                                               \
    X(acl_error_t, aclrtGetDeviceCount, (uint32_t * count))                                        \
    X(acl_error_t, aclrtMalloc, (void **ptr, size_t size, int policy))                             \
    X(acl_error_t, aclrtFree, (void *ptr))                                                         \
    X(acl_error_t, aclrtMallocHost, (void **ptr, size_t size))                                     \
    X(acl_error_t, aclrtFreeHost, (void *ptr))                                                     \
    X(acl_error_t, aclrtMemcpy, (void *dst, size_t max, const void *src, size_t n, int kind))      \
    X(acl_error_t, aclrtMemcpyAsync,                                                               \
      (void *dst, size_t max, const void *src, size_t n, int kind, acl_stream_t s))                \
    X(acl_error_t, aclrtMemset, (void *ptr, size_t max, int32_t value, size_t n))                  \
    X(acl_error_t, aclrtMemsetAsync,                                                               \
      (void *ptr, size_t max, int32_t value, size_t n, acl_stream_t s))                            \
    X(acl_error_t, aclrtGetMemInfo, (int attr, size_t *free_bytes, size_t *total_bytes))           \
    X(acl_error_t, aclrtSynchronizeDevice, (void))                                                 \
    X(acl_error_t, aclrtDeviceCanAccessPeer, (int32_t * can, int32_t device, int32_t peer))        \
    X(acl_error_t, aclrtDeviceEnablePeerAccess, (int32_t peer, uint32_t flags))                    \
    X(acl_error_t, aclrtDeviceDisablePeerAccess, (int32_t peer))                                   \
    X(acl_error_t, aclrtCreateStream, (acl_stream_t * s))                                          \
    X(acl_error_t, aclrtDestroyStream, (acl_stream_t s))                                           \
    X(acl_error_t, aclrtStreamQuery, (acl_stream_t s, int *status))                                \
    X(acl_error_t, aclrtSynchronizeStream, (acl_stream_t s))                                       \
    X(acl_error_t, aclrtCreateEvent, (acl_event_t * e))                                            \
    X(acl_error_t, aclrtDestroyEvent, (acl_event_t e))                                             \
    X(acl_error_t, aclrtRecordEvent, (acl_event_t e, acl_stream_t s))                              \
    X(acl_error_t, aclrtSynchronizeEvent, (acl_event_t e))                                         \
    X(acl_error_t, aclrtEventElapsedTime, (float *ms, acl_event_t start, acl_event_t end))         \
    X(acl_error_t, aclrtGetVersion, (int32_t * major, int32_t * minor, int32_t * patch))           \
    X(acl_error_t, aclrtLaunchHostFunc, (acl_stream_t s, void (*fn)(void *), void *args))          \
    X(const char *, aclrtGetSocName, (void))                                                       \
    X(const char *, aclGetRecentErrMsg, (void))

#define SC_HCCL_CALLS(X)                                                                           \
    X(hccl_result_t, HcclGetRootInfo, (sc_hccl_root_info_t * root))                                \
    X(hccl_result_t, HcclCommInitRootInfo,                                                         \
      (uint32_t nranks, const sc_hccl_root_info_t *root, uint32_t rank, hccl_comm_t *comm))        \
    X(hccl_result_t, HcclCommDestroy, (hccl_comm_t comm))                                          \
    X(hccl_result_t, HcclGetRankSize, (hccl_comm_t comm, uint32_t * size))                         \
    X(hccl_result_t, HcclGetRankId, (hccl_comm_t comm, uint32_t * rank))                           \
    X(hccl_result_t, HcclGetCommAsyncError, (hccl_comm_t comm, hccl_result_t * error))             \
    X(const char *, HcclGetErrorString, (hccl_result_t code))                                      \
    X(hccl_result_t, HcclAllReduce,                                                                \
      (void *send, void *recv, uint64_t count, int type, int op, hccl_comm_t comm,                 \
       acl_stream_t s))                                                                            \
    X(hccl_result_t, HcclBroadcast,                                                                \
      (void *buf, uint64_t count, int type, uint32_t root, hccl_comm_t comm, acl_stream_t s))      \
    X(hccl_result_t, HcclReduce,                                                                   \
      (void *send, void *recv, uint64_t count, int type, int op, uint32_t root, hccl_comm_t comm,  \
       acl_stream_t s))                                                                            \
    X(hccl_result_t, HcclAllGather,                                                                \
      (void *send, void *recv, uint64_t count, int type, hccl_comm_t comm, acl_stream_t s))        \
    X(hccl_result_t, HcclReduceScatter,                                                            \
      (void *send, void *recv, uint64_t count, int type, int op, hccl_comm_t comm,                 \
       acl_stream_t s))                                                                            \
    X(hccl_result_t, HcclSend,                                                                     \
      (void *buf, uint64_t count, int type, uint32_t peer, hccl_comm_t comm, acl_stream_t s))      \
    X(hccl_result_t, HcclRecv,                                                                     \
      (void *buf, uint64_t count, int type, uint32_t peer, hccl_comm_t comm, acl_stream_t s))      \
    X(hccl_result_t, HcclBatchSendRecv,                                                            \
      (sc_hccl_item_t * items, uint32_t n, hccl_comm_t comm, acl_stream_t s))

/* The operator API's batched product (aclnnop/aclnn_batch_matmul.h, libopapi.so) and its
 * tensors (aclnn/acl_meta.h, libnnopbase.so): row-major ND tensors over device memory, a
 * workspace sized by the first call, an executor the second consumes. */
typedef struct sc_acl_tensor sc_acl_tensor_t;
typedef struct sc_acl_executor sc_acl_executor_t;
#define SC_ACLNN_CALLS(X)                                                                          \
    X(sc_acl_tensor_t *, aclCreateTensor,                                                          \
      (const int64_t *dims, uint64_t ndims, int type, const int64_t *strides, int64_t offset,      \
       int format, const int64_t *storage_dims, uint64_t storage_ndims, void *data))               \
    X(int, aclDestroyTensor, (const sc_acl_tensor_t *tensor))                                      \
    X(int, aclnnBatchMatMulGetWorkspaceSize,                                                       \
      (const sc_acl_tensor_t *self, const sc_acl_tensor_t *mat2, sc_acl_tensor_t *out,             \
       int8_t cube_math, uint64_t *workspace, sc_acl_executor_t **executor))                       \
    X(int, aclnnBatchMatMul,                                                                       \
      (void *workspace, uint64_t workspace_size, sc_acl_executor_t *executor, acl_stream_t s))
enum {
    SC_ACL_BF16 = 27,      /* aclDataType */
    SC_ACL_FORMAT_ND = 2,  /* aclFormat */
    SC_ACL_KEEP_DTYPE = 0, /* cubeMathType: the inputs' type */
    SC_ACL_USE_HF32 = 3,   /* fp32 inputs, HF32 (TF32's counterpart) in the cube */
};

typedef struct {
#define SC_ASCEND_FIELD(ret, name, params) ret(*name) params;
    SC_ACL_CALLS(SC_ASCEND_FIELD)
    SC_HCCL_CALLS(SC_ASCEND_FIELD)
    SC_ACLNN_CALLS(SC_ASCEND_FIELD)
#undef SC_ASCEND_FIELD
} sc_ascend_api_t;

/* Loads the four (once per process) and initialises ACL (aclInit); false with what is missing
 * in why. */
bool sc_ascend_load(char *why, size_t len);
/* The loaded entry points; NULL before a successful sc_ascend_load. */
const sc_ascend_api_t *sc_ascend(void);
/* A call's name as the Ascend libraries call it ("cudaMalloc" -> "aclrtMalloc", "nccl" ->
 * "Hccl", "cuBLAS" -> "aclnn"), for messages. */
const char *sc_ascend_call_name(const char *what, char *buf, size_t len);
/* The calling thread's device (cudaSetDevice), which threads the adapter starts set again. */
int sc_ascend_current_device(void);

#endif
