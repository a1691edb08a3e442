/* fake_hip.c - the emulated AMD device's HIP runtime (soname libamdhip64.so.7): HIP's entry
 * points that the AMD module uses, each served by the emulated CUDA runtime beside it
 * (fake_cudart.c, linked), whose streams, events, graphs, memory rules and copy model it
 * shares. HIP keeps CUDA's semantics for these calls and CUDA's numbers for their errors
 * (hip/hip_runtime_api.h), so a result passes through unchanged; what HIP spells differently is
 * translated here, as strictly as HIP's documentation: hipHostMalloc's flags, the device
 * attributes' values, hipDeviceGetName's arguments.
 *
 * The device is an AMD one: its name is FAKE_HIP_NAME's (default "AMD Instinct MI250X/MI250"),
 * the runtime's version HIP 7.2's (ROCm 7.2: RCCL 2.27.7, rocBLAS 5). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"

typedef int hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaGraph_t hipGraph_t;
typedef cudaGraphExec_t hipGraphExec_t;

#define HIP__EXPORT __attribute__((visibility("default")))

/* The emulated machine's GPUs are its AMD GCDs (display controllers, 1002:xxxx): set as the
 * library loads, before the CUDA stand-in reads the tree. */
__attribute__((constructor)) static void hip__identity(void)
{
    fakecuda_set_pci_identity(0x1002, 0x0380);
}
/* HIP_VERSION of ROCm 7.2: major * 10^7 + minor * 10^5 + patch (7.2.53211) */
#define HIP__VERSION 70253211
enum { HIP__SUCCESS = 0, HIP__INVALID_VALUE = 1 };

/* hipHostMalloc's documented flags: Default, Portable, Mapped, WriteCombined (CUDA's values),
 * NumaUser, Coherent, NonCoherent (HIP's own; coherence is the emulated memory's anyway). */
#define HIP__HOST_CUDA_FLAGS 0x7u
#define HIP__HOST_HIP_FLAGS  (0x20000000u | 0x40000000u | 0x80000000u)

HIP__EXPORT hipError_t hipMalloc(void **p, size_t n)
{
    return cudaMalloc(p, n);
}
HIP__EXPORT hipError_t hipFree(void *p)
{
    return cudaFree(p);
}
HIP__EXPORT hipError_t hipHostMalloc(void **p, size_t n, unsigned int flags)
{
    if ((flags & ~(HIP__HOST_CUDA_FLAGS | HIP__HOST_HIP_FLAGS)) != 0 ||
        (flags & 0x40000000u && flags & 0x80000000u)) /* coherent and not */
        return HIP__INVALID_VALUE;
    return cudaHostAlloc(p, n, flags & HIP__HOST_CUDA_FLAGS);
}
HIP__EXPORT hipError_t hipHostFree(void *p)
{
    return cudaFreeHost(p);
}
HIP__EXPORT hipError_t hipMemcpyAsync(void *d, const void *s, size_t n, int kind, hipStream_t st)
{
    return cudaMemcpyAsync(d, s, n, (enum cudaMemcpyKind)kind, st);
}
HIP__EXPORT hipError_t hipMemsetAsync(void *p, int v, size_t n, hipStream_t st)
{
    return cudaMemsetAsync(p, v, n, st);
}
HIP__EXPORT hipError_t hipMemset(void *p, int v, size_t n)
{
    return cudaMemset(p, v, n);
}
HIP__EXPORT hipError_t hipMemcpyPeerAsync(void *d, int dd, const void *s, int sd, size_t n,
                                          hipStream_t st)
{
    return cudaMemcpyPeerAsync(d, dd, s, sd, n, st);
}
HIP__EXPORT hipError_t hipMemGetInfo(size_t *f, size_t *t)
{
    return cudaMemGetInfo(f, t);
}
HIP__EXPORT hipError_t hipSetDevice(int d)
{
    return cudaSetDevice(d);
}
HIP__EXPORT hipError_t hipGetDevice(int *d)
{
    return cudaGetDevice(d);
}
HIP__EXPORT hipError_t hipGetDeviceCount(int *n)
{
    return cudaGetDeviceCount(n);
}
HIP__EXPORT hipError_t hipDeviceGetPCIBusId(char *b, int n, int d)
{
    return cudaDeviceGetPCIBusId(b, n, d);
}
/* hipDeviceAttribute_t's values (HIP's, not CUDA's): the three the module asks. */
HIP__EXPORT hipError_t hipDeviceGetAttribute(int *v, int attr, int d)
{
    static const struct {
        int hip;
        enum cudaDeviceAttr cuda;
    } attrs[] = {{59, cudaDevAttrGlobalMemoryBusWidth},
                 {60, cudaDevAttrMemoryClockRate},
                 {63, cudaDevAttrMultiProcessorCount}};
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
        if (attrs[i].hip == attr)
            return cudaDeviceGetAttribute(v, attrs[i].cuda, d);
    fprintf(stderr, "fake HIP: hipDeviceGetAttribute(%d) is not emulated\n", attr);
    return HIP__INVALID_VALUE;
}
HIP__EXPORT hipError_t hipDeviceGetName(char *name, int len, int d)
{
    struct cudaDeviceProp prop;
    if (name == NULL || len <= 0)
        return HIP__INVALID_VALUE;
    cudaError_t rc = cudaGetDeviceProperties(&prop, d);
    if (rc != cudaSuccess)
        return rc;
    const char *named = getenv("FAKE_HIP_NAME");
    snprintf(name, (size_t)len, "%s", named != NULL ? named : "AMD Instinct MI250X/MI250");
    return HIP__SUCCESS;
}
HIP__EXPORT hipError_t hipDeviceSynchronize(void)
{
    return cudaDeviceSynchronize();
}
HIP__EXPORT hipError_t hipDeviceCanAccessPeer(int *c, int d, int p)
{
    return cudaDeviceCanAccessPeer(c, d, p);
}
HIP__EXPORT hipError_t hipDeviceEnablePeerAccess(int p, unsigned int f)
{
    return cudaDeviceEnablePeerAccess(p, f);
}
HIP__EXPORT hipError_t hipDeviceDisablePeerAccess(int p)
{
    return cudaDeviceDisablePeerAccess(p);
}
HIP__EXPORT hipError_t hipStreamCreate(hipStream_t *s)
{
    return cudaStreamCreate(s);
}
HIP__EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned int f)
{
    return cudaStreamCreateWithFlags(s, f);
}
HIP__EXPORT hipError_t hipStreamDestroy(hipStream_t s)
{
    return cudaStreamDestroy(s);
}
HIP__EXPORT hipError_t hipStreamQuery(hipStream_t s)
{
    return cudaStreamQuery(s);
}
HIP__EXPORT hipError_t hipStreamSynchronize(hipStream_t s)
{
    return cudaStreamSynchronize(s);
}
HIP__EXPORT hipError_t hipStreamBeginCapture(hipStream_t s, int mode)
{
    return cudaStreamBeginCapture(s, (enum cudaStreamCaptureMode)mode);
}
HIP__EXPORT hipError_t hipStreamEndCapture(hipStream_t s, hipGraph_t *g)
{
    return cudaStreamEndCapture(s, g);
}
HIP__EXPORT hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *e, hipGraph_t g,
                                                    unsigned long long f)
{
    return cudaGraphInstantiate(e, g, f);
}
HIP__EXPORT hipError_t hipGraphLaunch(hipGraphExec_t e, hipStream_t s)
{
    return cudaGraphLaunch(e, s);
}
HIP__EXPORT hipError_t hipGraphExecDestroy(hipGraphExec_t e)
{
    return cudaGraphExecDestroy(e);
}
HIP__EXPORT hipError_t hipGraphDestroy(hipGraph_t g)
{
    return cudaGraphDestroy(g);
}
HIP__EXPORT hipError_t hipEventCreate(hipEvent_t *e)
{
    return cudaEventCreate(e);
}
HIP__EXPORT hipError_t hipEventRecord(hipEvent_t e, hipStream_t s)
{
    return cudaEventRecord(e, s);
}
HIP__EXPORT hipError_t hipEventSynchronize(hipEvent_t e)
{
    return cudaEventSynchronize(e);
}
HIP__EXPORT hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b)
{
    return cudaEventElapsedTime(ms, a, b);
}
HIP__EXPORT hipError_t hipEventDestroy(hipEvent_t e)
{
    return cudaEventDestroy(e);
}
HIP__EXPORT hipError_t hipGetLastError(void)
{
    return cudaGetLastError();
}
HIP__EXPORT const char *hipGetErrorString(hipError_t e)
{
    return cudaGetErrorString((cudaError_t)e);
}
HIP__EXPORT hipError_t hipRuntimeGetVersion(int *v)
{
    if (v == NULL)
        return HIP__INVALID_VALUE;
    *v = HIP__VERSION;
    return HIP__SUCCESS;
}
/* On AMD's platform the driver's version is HIP's (hipDriverGetVersion's documentation). */
HIP__EXPORT hipError_t hipDriverGetVersion(int *v)
{
    return hipRuntimeGetVersion(v);
}
HIP__EXPORT hipError_t hipLaunchHostFunc(hipStream_t s, void (*fn)(void *), void *data)
{
    return cudaLaunchHostFunc(s, fn, data);
}
