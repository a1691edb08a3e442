/* sc_ascend_rt.c - the Ascend module's libraries, loaded here at run time (sc_ascend_api.h), and
 * the CUDA runtime's and cuBLAS's names (comm/shadow/) served by ACL: each adapted to ACL's
 * calling convention (aclrtMemcpyAsync's destination bound, aclrtStreamQuery's status, ACL's
 * error numbers as CUDA's). What ACL has no call for answers cudaErrorNotSupported (graphs: ACL's
 * capture, aclmdlRICapture*, is not used yet), or is read elsewhere: a device's PCI address from
 * sysfs, since ACL names devices by logical id only. */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/ascend/sc_ascend_api.h"
#include "cublas_v2.h"
#include "cuda_runtime.h"
#include "sc_shadow.h"

/* SCALECHECK_ASCEND_LIB_DIR, if set, is tried first (CANN's lib64 outside the loader's path). */
static const char *const ascend__names[4] = {"libascendcl.so", "libhccl.so", "libnnopbase.so",
                                             "libopapi.so"};

static struct {
    pthread_once_t once;
    bool ok;
    char why[512];
    sc_ascend_api_t api;
} ascend__lib = {.once = PTHREAD_ONCE_INIT};

static _Thread_local int ascend__device;
/* The last ACL call that failed on this thread, for cudaGetErrorString. */
static _Thread_local const char *ascend__last_call;
static _Thread_local acl_error_t ascend__last_code;

static void ascend__load_once(void)
{
    char *why = ascend__lib.why;
    size_t len = sizeof(ascend__lib.why);
    void *lib[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        if ((i == 0 || lib[i - 1] != NULL) &&
            (lib[i] = sc_shadow_open("SCALECHECK_ASCEND_LIB_DIR", &ascend__names[i], 1, why,
                                     len)) == NULL)
            return;
    sc_ascend_api_t *api = &ascend__lib.api;
    bool ok = true;
#define SC_ACL_RESOLVE(ret, name, params)                                                          \
    ok = ok && sc_shadow_sym(lib[0], ascend__names[0], #name, &api->name, why, len);
    SC_ACL_CALLS(SC_ACL_RESOLVE)
#define SC_HCCL_RESOLVE(ret, name, params)                                                         \
    ok = ok && sc_shadow_sym(lib[1], ascend__names[1], #name, &api->name, why, len);
    SC_HCCL_CALLS(SC_HCCL_RESOLVE)
    /* the tensors from libnnopbase, the product from libopapi */
#define SC_ACLNN_RESOLVE(ret, name, params)                                                        \
    ok = ok && sc_shadow_sym(lib[strncmp(#name, "aclnn", 5) == 0 ? 3 : 2],                         \
                             ascend__names[strncmp(#name, "aclnn", 5) == 0 ? 3 : 2], #name,        \
                             &api->name, why, len);
    SC_ACLNN_CALLS(SC_ACLNN_RESOLVE)
    if (!ok)
        return;
    acl_error_t rc = api->aclInit(NULL);
    if (rc != SC_ACL_SUCCESS && rc != SC_ACL_ERROR_REPEAT_INITIALIZE) {
        snprintf(why, len, "aclInit: ACL error %d: %s", rc, api->aclGetRecentErrMsg());
        return;
    }
    ascend__lib.ok = true;
}

bool sc_ascend_load(char *why, size_t len)
{
    pthread_once(&ascend__lib.once, ascend__load_once);
    if (!ascend__lib.ok)
        snprintf(why, len, "%s", ascend__lib.why);
    return ascend__lib.ok;
}

const sc_ascend_api_t *sc_ascend(void)
{
    return ascend__lib.ok ? &ascend__lib.api : NULL;
}

int sc_ascend_current_device(void)
{
    return ascend__device;
}

/* ACL's answer as the CUDA runtime's number (the call kept for the message). */
static cudaError_t ascend__rt(acl_error_t rc, const char *call)
{
    if (rc == SC_ACL_SUCCESS)
        return cudaSuccess;
    ascend__last_call = call;
    ascend__last_code = rc;
    switch (rc) {
    case SC_ACL_ERROR_RT_MEMORY_ALLOCATION:
        return cudaErrorMemoryAllocation;
    case SC_ACL_ERROR_RT_INVALID_DEVICEID:
        return cudaErrorInvalidDevice;
    case SC_ACL_ERROR_RT_FEATURE_NOT_SUPPORT:
        return cudaErrorNotSupported;
    default:
        return cudaErrorInvalidValue;
    }
}

#define ASCEND__API(call)                                                                          \
    const sc_ascend_api_t *api = sc_ascend();                                                      \
    if (api == NULL)                                                                               \
        return cudaErrorNotSupported;                                                              \
    (void)0

const char *cudaGetErrorString(cudaError_t error)
{
    static _Thread_local char text[384];
    const sc_ascend_api_t *api = sc_ascend();
    if (error == cudaSuccess)
        return "no error";
    if (api == NULL)
        return "the Ascend libraries are not loaded";
    if (ascend__last_call == NULL)
        return error == cudaErrorNotSupported ? "not supported by the ACL runtime" : "ACL error";
    const char *recent = api->aclGetRecentErrMsg();
    snprintf(text, sizeof(text), "%s: ACL error %d%s%.250s", ascend__last_call, ascend__last_code,
             recent != NULL && recent[0] != '\0' ? ": " : "", recent != NULL ? recent : "");
    return text;
}

cudaError_t cudaGetLastError(void)
{
    return cudaSuccess; /* ACL keeps no sticky error: each call answers for itself */
}

cudaError_t cudaMalloc(void **ptr, size_t bytes)
{
    ASCEND__API();
    return ascend__rt(api->aclrtMalloc(ptr, bytes, SC_ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
}
cudaError_t cudaFree(void *ptr)
{
    ASCEND__API();
    return ptr == NULL ? cudaSuccess : ascend__rt(api->aclrtFree(ptr), "aclrtFree");
}
cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    (void)flags; /* ACL's host memory is pinned and seen by every device */
    ASCEND__API();
    return ascend__rt(api->aclrtMallocHost(ptr, bytes), "aclrtMallocHost");
}
cudaError_t cudaFreeHost(void *ptr)
{
    ASCEND__API();
    return ascend__rt(api->aclrtFreeHost(ptr), "aclrtFreeHost");
}
/* aclrtMemcpyKind keeps cudaMemcpyKind's numbers for the five kinds (ACL_MEMCPY_DEFAULT: 4). */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    ASCEND__API();
    if (bytes == 0)
        return cudaSuccess; /* ACL refuses a zero count; CUDA does nothing */
    return ascend__rt(api->aclrtMemcpyAsync(dst, bytes, src, bytes, (int)kind, stream),
                      "aclrtMemcpyAsync");
}
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t stream)
{
    ASCEND__API();
    return bytes == 0 ? cudaSuccess
                      : ascend__rt(api->aclrtMemsetAsync(ptr, bytes, value, bytes, stream),
                                   "aclrtMemsetAsync");
}
cudaError_t cudaMemset(void *ptr, int value, size_t bytes)
{
    ASCEND__API();
    return bytes == 0 ? cudaSuccess
                      : ascend__rt(api->aclrtMemset(ptr, bytes, value, bytes), "aclrtMemset");
}
/* Between devices ACL copies device to device once peer access is on. */
cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device,
                                size_t bytes, cudaStream_t stream)
{
    (void)dst_device;
    (void)src_device;
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream);
}
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    ASCEND__API();
    return ascend__rt(api->aclrtGetMemInfo(SC_ACL_HBM_MEM, free_bytes, total_bytes),
                      "aclrtGetMemInfo");
}
cudaError_t cudaSetDevice(int device)
{
    ASCEND__API();
    cudaError_t rc = ascend__rt(api->aclrtSetDevice(device), "aclrtSetDevice");
    if (rc == cudaSuccess)
        ascend__device = device;
    return rc;
}
cudaError_t cudaGetDeviceCount(int *count)
{
    ASCEND__API();
    uint32_t n = 0;
    cudaError_t rc = ascend__rt(api->aclrtGetDeviceCount(&n), "aclrtGetDeviceCount");
    *count = rc == cudaSuccess ? (int)n : 0;
    return rc;
}

/* The logical device's physical id: its place in ASCEND_RT_VISIBLE_DEVICES where that is set. */
static int ascend__physical(int device)
{
    const char *visible = getenv("ASCEND_RT_VISIBLE_DEVICES");
    if (visible == NULL || visible[0] == '\0')
        return device;
    const char *p = visible;
    for (int i = 0; i < device && p != NULL; i++)
        p = strchr(p, ',') != NULL ? strchr(p, ',') + 1 : NULL;
    return p != NULL ? atoi(p) : device;
}

static int ascend__by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The NPUs' PCI functions (Huawei 19e5, class 1200: processing accelerators) in address order,
 * which is the driver's physical numbering on the Atlas servers. */
cudaError_t cudaDeviceGetPCIBusId(char *bus, int len, int device)
{
    const char *root = getenv("SCALECHECK_SYS_ROOT");
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/bus/pci/devices", root != NULL ? root : "/sys");
    DIR *d = opendir(dir);
    char found[64][16];
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && n < 64;) {
        char path[1400], vendor[16] = "", cls[16] = "";
        FILE *f;
        snprintf(path, sizeof(path), "%s/%s/vendor", dir, e->d_name);
        if (e->d_name[0] == '.' || (f = fopen(path, "r")) == NULL)
            continue;
        bool read = fgets(vendor, sizeof(vendor), f) != NULL;
        fclose(f);
        snprintf(path, sizeof(path), "%s/%s/class", dir, e->d_name);
        if (!read || (f = fopen(path, "r")) == NULL)
            continue;
        read = fgets(cls, sizeof(cls), f) != NULL;
        fclose(f);
        if (read && strtol(vendor, NULL, 16) == 0x19e5 && strtol(cls, NULL, 16) >> 8 == 0x1200)
            snprintf(found[n++], sizeof(found[0]), "%.15s", e->d_name);
    }
    if (d != NULL)
        closedir(d);
    qsort(found, (size_t)n, sizeof(found[0]), ascend__by_name);
    int physical = ascend__physical(device);
    if (physical >= 0 && physical < n)
        snprintf(bus, (size_t)len, "%s", found[physical]);
    else
        snprintf(bus, (size_t)len, "npu:%d", physical); /* unique on the host all the same */
    return cudaSuccess;
}
/* ACL reports none of the three the backend asks for (SMs, for the kernels' copies the Ascend
 * module does not have; the memory's clock and width, for its peak): 0, "not known", so that
 * the HBM's peak comes from the topology. */
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    (void)attr;
    (void)device;
    *value = 0;
    return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    ASCEND__API();
    (void)device; /* one kind of NPU a server */
    const char *soc = api->aclrtGetSocName();
    snprintf(prop->name, sizeof(prop->name), "%s", soc != NULL ? soc : "Ascend");
    return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void)
{
    ASCEND__API();
    return ascend__rt(api->aclrtSynchronizeDevice(), "aclrtSynchronizeDevice");
}
cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer)
{
    ASCEND__API();
    int32_t yes = 0;
    cudaError_t rc =
        ascend__rt(api->aclrtDeviceCanAccessPeer(&yes, device, peer), "aclrtDeviceCanAccessPeer");
    *can = yes;
    return rc;
}
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags)
{
    ASCEND__API();
    return ascend__rt(api->aclrtDeviceEnablePeerAccess(peer, flags), "aclrtDeviceEnablePeerAccess");
}
cudaError_t cudaDeviceDisablePeerAccess(int peer)
{
    ASCEND__API();
    return ascend__rt(api->aclrtDeviceDisablePeerAccess(peer), "aclrtDeviceDisablePeerAccess");
}
cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    ASCEND__API();
    acl_stream_t s = NULL;
    cudaError_t rc = ascend__rt(api->aclrtCreateStream(&s), "aclrtCreateStream");
    *stream = (cudaStream_t)s;
    return rc;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    (void)flags; /* ACL's streams do not wait for a legacy default stream */
    return cudaStreamCreate(stream);
}
cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    ASCEND__API();
    return ascend__rt(api->aclrtDestroyStream(stream), "aclrtDestroyStream");
}
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    ASCEND__API();
    int status = SC_ACL_STREAM_STATUS_COMPLETE;
    cudaError_t rc = ascend__rt(api->aclrtStreamQuery(stream, &status), "aclrtStreamQuery");
    return rc != cudaSuccess || status == SC_ACL_STREAM_STATUS_COMPLETE ? rc : cudaErrorNotReady;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    ASCEND__API();
    return ascend__rt(api->aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
}
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    (void)stream;
    (void)mode;
    return cudaErrorNotSupported;
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
    (void)stream;
    *graph = NULL;
    return cudaErrorNotSupported;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long f)
{
    (void)graph;
    (void)f;
    *exec = NULL;
    return cudaErrorNotSupported;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    (void)exec;
    (void)stream;
    return cudaErrorNotSupported;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    (void)exec;
    return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    (void)graph;
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    ASCEND__API();
    acl_event_t e = NULL;
    cudaError_t rc = ascend__rt(api->aclrtCreateEvent(&e), "aclrtCreateEvent");
    *event = (cudaEvent_t)e;
    return rc;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    ASCEND__API();
    return ascend__rt(api->aclrtRecordEvent(event, stream), "aclrtRecordEvent");
}
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    ASCEND__API();
    return ascend__rt(api->aclrtSynchronizeEvent(event), "aclrtSynchronizeEvent");
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    ASCEND__API();
    return ascend__rt(api->aclrtEventElapsedTime(ms, start, stop), "aclrtEventElapsedTime");
}
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    ASCEND__API();
    return ascend__rt(api->aclrtDestroyEvent(event), "aclrtDestroyEvent");
}
/* ACL's version (aclrtGetVersion) as major * 10000 + minor * 100 + patch; ACL has no separate
 * driver version, so the driver answers the same. */
cudaError_t cudaRuntimeGetVersion(int *version)
{
    ASCEND__API();
    int32_t major = 0, minor = 0, patch = 0;
    cudaError_t rc = ascend__rt(api->aclrtGetVersion(&major, &minor, &patch), "aclrtGetVersion");
    *version = major * 10000 + minor * 100 + patch;
    return rc;
}
cudaError_t cudaDriverGetVersion(int *version)
{
    return cudaRuntimeGetVersion(version);
}
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, void (*fn)(void *data), void *data)
{
    ASCEND__API();
    return ascend__rt(api->aclrtLaunchHostFunc(stream, fn, data), "aclrtLaunchHostFunc");
}

/* cuBLAS's handle: the operator API has none; the products' stream, and their workspace (grown
 * as a product asks for more, after the stream's earlier products are done with it). */
struct sc_shadow_blas {
    cudaStream_t stream;
    void *workspace;
    size_t workspace_bytes;
};
cublasStatus_t cublasCreate(cublasHandle_t *handle)
{
    *handle = calloc(1, sizeof(**handle));
    return *handle != NULL ? CUBLAS_STATUS_SUCCESS : 1;
}
cublasStatus_t cublasDestroy(cublasHandle_t handle)
{
    if (handle->workspace != NULL)
        cudaFree(handle->workspace);
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream)
{
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}
/* The handle's stream into *stream, and into *workspace device memory of bytes for its next
 * product; false where that memory cannot be had. */
bool sc_ascend_blas_stream(cublasHandle_t handle, size_t bytes, cudaStream_t *stream,
                           void **workspace);
bool sc_ascend_blas_stream(cublasHandle_t handle, size_t bytes, cudaStream_t *stream,
                           void **workspace)
{
    *stream = handle->stream;
    *workspace = NULL;
    if (bytes > handle->workspace_bytes) {
        if (handle->workspace != NULL && (cudaStreamSynchronize(handle->stream) != cudaSuccess ||
                                          cudaFree(handle->workspace) != cudaSuccess))
            return false;
        handle->workspace = NULL;
        handle->workspace_bytes = 0;
        if (cudaMalloc(&handle->workspace, bytes) != cudaSuccess)
            return false;
        handle->workspace_bytes = bytes;
    }
    *workspace = bytes > 0 ? handle->workspace : NULL;
    return true;
}

const char *sc_ascend_call_name(const char *what, char *buf, size_t len)
{
    static const sc_shadow_name_t names[] = {{"cudaMalloc", "aclrtMalloc"},
                                             {"cudaFree", "aclrtFree"},
                                             {"cudaMemcpy", "aclrtMemcpy"},
                                             {"cudaMemset", "aclrtMemset"},
                                             {"cudaStream", "aclrtStream"},
                                             {"cudaEvent", "aclrtEvent"},
                                             {"cudaSetDevice", "aclrtSetDevice"},
                                             {"cuda", "aclrt"},
                                             {"ncclComm", "HcclComm"},
                                             {"nccl", "Hccl"},
                                             {"cuBLAS", "aclnn"},
                                             {"CUDA", "ACL"},
                                             {"NCCL", "HCCL"}};
    return sc_shadow_rename(what, names, sizeof(names) / sizeof(names[0]), buf, len);
}
