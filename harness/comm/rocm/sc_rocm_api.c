/* sc_rocm_api.c - the AMD module's CUDA runtime, NCCL and cuBLAS names (the headers beside
 * this file) forwarded to HIP, RCCL and rocBLAS, which are loaded here at run time by their
 * sonames: no ROCm is needed to build, and one module serves ROCm 5, 6 and 7. Each name is the
 * module's own (hidden: the module exports only its entry). */
#include "comm/rocm/sc_rocm_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cublas_v2.h"
#include "cuda_runtime.h"
#include "nccl.h"
#include "sc_shadow.h"

/* X(cuda name, hip name, parameters, arguments): every one returns hipError_t. */
#define SC_HIP_CALLS(X)                                                                            \
    X(cudaMalloc, hipMalloc, (void **p, size_t n), (p, n))                                         \
    X(cudaFree, hipFree, (void *p), (p))                                                           \
    X(cudaHostAlloc, hipHostMalloc, (void **p, size_t n, unsigned int f), (p, n, f))               \
    X(cudaFreeHost, hipHostFree, (void *p), (p))                                                   \
    X(cudaMemcpyAsync, hipMemcpyAsync,                                                             \
      (void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st),                  \
      (d, s, n, k, st))                                                                            \
    X(cudaMemsetAsync, hipMemsetAsync, (void *p, int v, size_t n, cudaStream_t st), (p, v, n, st)) \
    X(cudaMemset, hipMemset, (void *p, int v, size_t n), (p, v, n))                                \
    X(cudaMemcpyPeerAsync, hipMemcpyPeerAsync,                                                     \
      (void *d, int dd, const void *s, int sd, size_t n, cudaStream_t st), (d, dd, s, sd, n, st))  \
    X(cudaMemGetInfo, hipMemGetInfo, (size_t * f, size_t * t), (f, t))                             \
    X(cudaSetDevice, hipSetDevice, (int d), (d))                                                   \
    X(cudaGetDeviceCount, hipGetDeviceCount, (int *n), (n))                                        \
    X(cudaDeviceGetPCIBusId, hipDeviceGetPCIBusId, (char *b, int n, int d), (b, n, d))             \
    X(cudaDeviceGetAttribute, hipDeviceGetAttribute, (int *v, enum cudaDeviceAttr a, int d),       \
      (v, a, d))                                                                                   \
    X(cudaDeviceSynchronize, hipDeviceSynchronize, (void), ())                                     \
    X(cudaDeviceCanAccessPeer, hipDeviceCanAccessPeer, (int *c, int d, int p), (c, d, p))          \
    X(cudaDeviceEnablePeerAccess, hipDeviceEnablePeerAccess, (int p, unsigned int f), (p, f))      \
    X(cudaDeviceDisablePeerAccess, hipDeviceDisablePeerAccess, (int p), (p))                       \
    X(cudaStreamCreate, hipStreamCreate, (cudaStream_t * s), (s))                                  \
    X(cudaStreamCreateWithFlags, hipStreamCreateWithFlags, (cudaStream_t * s, unsigned int f),     \
      (s, f))                                                                                      \
    X(cudaStreamDestroy, hipStreamDestroy, (cudaStream_t s), (s))                                  \
    X(cudaStreamQuery, hipStreamQuery, (cudaStream_t s), (s))                                      \
    X(cudaStreamSynchronize, hipStreamSynchronize, (cudaStream_t s), (s))                          \
    X(cudaStreamBeginCapture, hipStreamBeginCapture,                                               \
      (cudaStream_t s, enum cudaStreamCaptureMode m), (s, m))                                      \
    X(cudaStreamEndCapture, hipStreamEndCapture, (cudaStream_t s, cudaGraph_t * g), (s, g))        \
    X(cudaGraphInstantiate, hipGraphInstantiateWithFlags,                                          \
      (cudaGraphExec_t * e, cudaGraph_t g, unsigned long long f), (e, g, f))                       \
    X(cudaGraphLaunch, hipGraphLaunch, (cudaGraphExec_t e, cudaStream_t s), (e, s))                \
    X(cudaGraphExecDestroy, hipGraphExecDestroy, (cudaGraphExec_t e), (e))                         \
    X(cudaGraphDestroy, hipGraphDestroy, (cudaGraph_t g), (g))                                     \
    X(cudaEventCreate, hipEventCreate, (cudaEvent_t * e), (e))                                     \
    X(cudaEventRecord, hipEventRecord, (cudaEvent_t e, cudaStream_t s), (e, s))                    \
    X(cudaEventSynchronize, hipEventSynchronize, (cudaEvent_t e), (e))                             \
    X(cudaEventElapsedTime, hipEventElapsedTime, (float *ms, cudaEvent_t a, cudaEvent_t b),        \
      (ms, a, b))                                                                                  \
    X(cudaEventDestroy, hipEventDestroy, (cudaEvent_t e), (e))                                     \
    X(cudaGetLastError, hipGetLastError, (void), ())                                               \
    X(cudaRuntimeGetVersion, hipRuntimeGetVersion, (int *v), (v))                                  \
    X(cudaDriverGetVersion, hipDriverGetVersion, (int *v), (v))                                    \
    X(cudaLaunchHostFunc, hipLaunchHostFunc, (cudaStream_t s, void (*fn)(void *), void *d),        \
      (s, fn, d))

/* X(name, parameters, arguments): NCCL's names, RCCL's too; every one returns ncclResult_t. */
#define SC_RCCL_CALLS(X)                                                                           \
    X(ncclGetVersion, (int *v), (v))                                                               \
    X(ncclGetUniqueId, (ncclUniqueId * id), (id))                                                  \
    X(ncclCommInitRankConfig, (ncclComm_t * c, int n, ncclUniqueId id, int r, ncclConfig_t *cf),   \
      (c, n, id, r, cf))                                                                           \
    X(ncclCommSplit, (ncclComm_t c, int color, int key, ncclComm_t *out, ncclConfig_t *cf),        \
      (c, color, key, out, cf))                                                                    \
    X(ncclCommFinalize, (ncclComm_t c), (c))                                                       \
    X(ncclCommDestroy, (ncclComm_t c), (c))                                                        \
    X(ncclCommAbort, (ncclComm_t c), (c))                                                          \
    X(ncclCommGetAsyncError, (ncclComm_t c, ncclResult_t * e), (c, e))                             \
    X(ncclCommCount, (const ncclComm_t c, int *n), (c, n))                                         \
    X(ncclCommUserRank, (const ncclComm_t c, int *r), (c, r))                                      \
    X(ncclGroupStart, (void), ())                                                                  \
    X(ncclGroupEnd, (void), ())                                                                    \
    X(ncclAllReduce,                                                                               \
      (const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t o, ncclComm_t c,            \
       cudaStream_t st),                                                                           \
      (s, r, n, t, o, c, st))                                                                      \
    X(ncclBroadcast,                                                                               \
      (const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c,                 \
       cudaStream_t st),                                                                           \
      (s, r, n, t, root, c, st))                                                                   \
    X(ncclReduce,                                                                                  \
      (const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t o, int root, ncclComm_t c,  \
       cudaStream_t st),                                                                           \
      (s, r, n, t, o, root, c, st))                                                                \
    X(ncclAllGather,                                                                               \
      (const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st),         \
      (s, r, n, t, c, st))                                                                         \
    X(ncclReduceScatter,                                                                           \
      (const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t o, ncclComm_t c,            \
       cudaStream_t st),                                                                           \
      (s, r, n, t, o, c, st))                                                                      \
    X(ncclSend, (const void *s, size_t n, ncclDataType_t t, int p, ncclComm_t c, cudaStream_t st), \
      (s, n, t, p, c, st))                                                                         \
    X(ncclRecv, (void *r, size_t n, ncclDataType_t t, int p, ncclComm_t c, cudaStream_t st),       \
      (r, n, t, p, c, st))

/* The sonames each library has gone by (ROCm 7, 6, 5); SCALECHECK_ROCM_LIB_DIR, if set, is
 * tried first (a ROCm outside the loader's path, /opt/rocm/lib). */
static const char *const rocm__hip_names[] = {"libamdhip64.so.7", "libamdhip64.so.6",
                                              "libamdhip64.so.5", "libamdhip64.so"};
static const char *const rocm__rccl_names[] = {"librccl.so.1", "librccl.so"};
static const char *const rocm__blas_names[] = {"librocblas.so.5", "librocblas.so.4",
                                               "librocblas.so.3", "librocblas.so"};

static struct {
    pthread_once_t once;
    bool ok;
    char why[512];
    void *hip, *rccl, *blas;
    const char *(*hip_error_string)(cudaError_t);
    const char *(*rccl_error_string)(ncclResult_t);
    const char *(*rccl_last_error)(ncclComm_t);
    int (*hip_device_name)(char *name, int len, int device);
    cublasStatus_t (*blas_create)(cublasHandle_t *h);
    cublasStatus_t (*blas_destroy)(cublasHandle_t h);
    cublasStatus_t (*blas_set_stream)(cublasHandle_t h, cudaStream_t s);
    sc_rocblas_gemm_sb_fn gemm_sb;
#define SC_HIP_FIELD(cuda, hip_name, params, args) cudaError_t(*cuda) params;
    SC_HIP_CALLS(SC_HIP_FIELD)
#define SC_RCCL_FIELD(name, params, args) ncclResult_t(*name) params;
    SC_RCCL_CALLS(SC_RCCL_FIELD)
} rocm__api = {.once = PTHREAD_ONCE_INIT};

static bool rocm__resolve(char *why, size_t len)
{
    bool ok = true;
#define SC_HIP_RESOLVE(cuda, hip_name, params, args)                                               \
    ok = ok && sc_shadow_sym(rocm__api.hip, "libamdhip64", #hip_name, &rocm__api.cuda, why, len);
    SC_HIP_CALLS(SC_HIP_RESOLVE)
#define SC_RCCL_RESOLVE(name, params, args)                                                        \
    ok = ok && sc_shadow_sym(rocm__api.rccl, "librccl", #name, &rocm__api.name, why, len);
    SC_RCCL_CALLS(SC_RCCL_RESOLVE)
    /* the entry points not forwarded by name: each with the field it fills */
    const struct {
        void *lib;
        const char *lib_name, *name;
        void *slot;
    } others[] = {
        {rocm__api.hip, "libamdhip64", "hipGetErrorString", &rocm__api.hip_error_string},
        {rocm__api.hip, "libamdhip64", "hipDeviceGetName", &rocm__api.hip_device_name},
        {rocm__api.rccl, "librccl", "ncclGetErrorString", &rocm__api.rccl_error_string},
        {rocm__api.rccl, "librccl", "ncclGetLastError", &rocm__api.rccl_last_error},
        {rocm__api.blas, "librocblas", "rocblas_create_handle", &rocm__api.blas_create},
        {rocm__api.blas, "librocblas", "rocblas_destroy_handle", &rocm__api.blas_destroy},
        {rocm__api.blas, "librocblas", "rocblas_set_stream", &rocm__api.blas_set_stream},
        {rocm__api.blas, "librocblas", "rocblas_gemm_strided_batched_ex", &rocm__api.gemm_sb},
    };
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]) && ok; i++)
        ok = sc_shadow_sym(others[i].lib, others[i].lib_name, others[i].name, others[i].slot, why,
                           len);
    return ok;
}

static void rocm__load_once(void)
{
    char *why = rocm__api.why;
    size_t len = sizeof(rocm__api.why);
    rocm__api.hip = sc_shadow_open("SCALECHECK_ROCM_LIB_DIR", rocm__hip_names,
                                   sizeof(rocm__hip_names) / sizeof(char *), why, len);
    if (rocm__api.hip != NULL)
        rocm__api.rccl = sc_shadow_open("SCALECHECK_ROCM_LIB_DIR", rocm__rccl_names,
                                        sizeof(rocm__rccl_names) / sizeof(char *), why, len);
    if (rocm__api.rccl != NULL)
        rocm__api.blas = sc_shadow_open("SCALECHECK_ROCM_LIB_DIR", rocm__blas_names,
                                        sizeof(rocm__blas_names) / sizeof(char *), why, len);
    rocm__api.ok = rocm__api.blas != NULL && rocm__resolve(why, len);
}

bool sc_rocm_load(char *why, size_t len)
{
    pthread_once(&rocm__api.once, rocm__load_once);
    if (!rocm__api.ok)
        snprintf(why, len, "%s", rocm__api.why);
    return rocm__api.ok;
}

void *sc_rocm_rccl_handle(void)
{
    return rocm__api.ok ? rocm__api.rccl : NULL;
}

/* Not loaded: what HIP answers before a device is found, and NCCL for a system's failure. */
#define SC_HIP_FORWARD(cuda, hip_name, params, args)                                               \
    cudaError_t cuda params                                                                        \
    {                                                                                              \
        return rocm__api.ok ? rocm__api.cuda args : cudaErrorNotSupported;                         \
    }
SC_HIP_CALLS(SC_HIP_FORWARD)
#define SC_RCCL_FORWARD(name, params, args)                                                        \
    ncclResult_t name params                                                                       \
    {                                                                                              \
        return rocm__api.ok ? rocm__api.name args : ncclSystemError;                               \
    }
SC_RCCL_CALLS(SC_RCCL_FORWARD)

const char *cudaGetErrorString(cudaError_t error)
{
    return rocm__api.ok ? rocm__api.hip_error_string(error) : "the HIP runtime is not loaded";
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (!rocm__api.ok)
        return cudaErrorNotSupported;
    return rocm__api.hip_device_name(prop->name, (int)sizeof(prop->name), device);
}

const char *ncclGetErrorString(ncclResult_t result)
{
    return rocm__api.ok ? rocm__api.rccl_error_string(result) : "RCCL is not loaded";
}

const char *ncclGetLastError(ncclComm_t comm)
{
    return rocm__api.ok ? rocm__api.rccl_last_error(comm) : "RCCL is not loaded";
}

cublasStatus_t cublasCreate(cublasHandle_t *handle)
{
    return rocm__api.ok ? rocm__api.blas_create(handle) : 1;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle)
{
    return rocm__api.ok ? rocm__api.blas_destroy(handle) : 1;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream)
{
    return rocm__api.ok ? rocm__api.blas_set_stream(handle, stream) : 1;
}

sc_rocblas_gemm_sb_fn sc_rocblas_gemm_strided_batched_ex(void)
{
    return rocm__api.ok ? rocm__api.gemm_sb : NULL;
}

const char *sc_rocm_call_name(const char *what, char *buf, size_t len)
{
    static const sc_shadow_name_t names[] = {{"cublasCreate", "rocblas_create_handle"},
                                             {"cublasSetStream", "rocblas_set_stream"},
                                             {"cuBLAS", "rocBLAS"},
                                             {"cuda", "hip"},
                                             {"CUDA", "HIP"}};
    return sc_shadow_rename(what, names, sizeof(names) / sizeof(names[0]), buf, len);
}
