/* cuda_runtime.h (the AMD and Ascend builds) - the CUDA runtime's names that the GPU module's
 * sources use, declared as the module's own. The AMD module (libscalecheck-rocm.so) and the Ascend
 * one (libscalecheck-ascend.so) are the NVIDIA module's sources built with their vendor's folder
 * (comm/rocm/, comm/ascend/) and this one first on the include path: the vendor's sources define
 * each name (sc_rocm_api.c forwards to the HIP runtime, sc_ascend_rt.c adapts ACL's calls), over
 * the libraries they load at run time, so neither build needs the vendor's SDK.
 *
 * Values are HIP's, from its public header hip/hip_runtime_api.h (ROCm 5.2, Debian's
 * libamdhip64-dev; unchanged since for the names here): HIP keeps CUDA's numbers for the
 * errors, copy kinds and flags, its own for the device attributes. The Ascend adapter answers
 * the same numbers (ACL's own are translated there). */
#ifndef SC_SHADOW_CUDA_RUNTIME_H
#define SC_SHADOW_CUDA_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int cudaError_t; /* hipError_t */
enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorPeerAccessAlreadyEnabled = 704,
    cudaErrorNotSupported = 801,
};

typedef struct sc_shadow_stream *cudaStream_t;        /* hipStream_t */
typedef struct sc_shadow_event *cudaEvent_t;          /* hipEvent_t */
typedef struct sc_shadow_graph *cudaGraph_t;          /* hipGraph_t */
typedef struct sc_shadow_graph_exec *cudaGraphExec_t; /* hipGraphExec_t */

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};
enum { cudaStreamNonBlocking = 1 }; /* hipStreamNonBlocking */
enum { cudaHostAllocPortable = 1 }; /* hipHostMallocPortable */
enum cudaStreamCaptureMode { cudaStreamCaptureModeThreadLocal = 1 };
/* hipDeviceAttribute_t's values */
enum cudaDeviceAttr {
    cudaDevAttrGlobalMemoryBusWidth = 59,
    cudaDevAttrMemoryClockRate = 60,
    cudaDevAttrMultiProcessorCount = 63,
};
/* What the module reads of a device's properties: its name (hipDeviceGetName; HIP's own
 * properties record changed its layout between ROCm 5 and 6). */
struct cudaDeviceProp {
    char name[256];
};

cudaError_t cudaMalloc(void **ptr, size_t bytes);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device,
                                size_t bytes, cudaStream_t stream);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaDeviceGetPCIBusId(char *bus, int len, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer);
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peer);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaGetLastError(void);
const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaRuntimeGetVersion(int *version);
cudaError_t cudaDriverGetVersion(int *version);
/* fn(data) on the host once the stream reaches it (the compute spin): hipLaunchHostFunc,
 * aclrtLaunchHostFunc. */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, void (*fn)(void *data), void *data);

#ifdef __cplusplus
}
#endif

#endif
