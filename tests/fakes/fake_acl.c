/* fake_acl.c - the emulated Ascend NPU's ACL runtime (libascendcl.so, CANN's: no version in the
 * soname): the aclrt* entry points the Ascend module uses, each served by the emulated CUDA
 * runtime beside it (fake_cudart.c, linked), whose streams, events, memory rules and copy model
 * it shares, and each checked as ACL's reference documents it (acl_rt.h, acl_base_rt.h): nothing
 * before aclInit (ACL_ERROR_UNINITIALIZE), aclInit once (ACL_ERROR_REPEAT_INITIALIZE), a copy or
 * memset larger than its destination's stated bound (ACL_ERROR_INVALID_PARAM), the stream's state
 * as a status, ACL's error numbers (rt_error_codes.h) for CUDA's.
 *
 * The devices are the emulated machine's Huawei processing accelerators (19e5, class 1200) where
 * a tree is given; the SoC is FAKE_ASCEND_SOC's (default "Ascend910B3"); the version CANN 8.0.0's.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"

typedef int aclError;
#define ACL__EXPORT __attribute__((visibility("default")))
enum {
    ACL__SUCCESS = 0,
    ACL__INVALID_PARAM = 100000,
    ACL__UNINITIALIZE = 100001,
    ACL__REPEAT_INITIALIZE = 100002,
    ACL__RT_PARAM_INVALID = 107000,
    ACL__RT_INVALID_DEVICEID = 107001,
    ACL__RT_FEATURE_NOT_SUPPORT = 207000,
    ACL__RT_MEMORY_ALLOCATION = 207001,
    ACL__RT_INTERNAL_ERROR = 507899,
};

__attribute__((constructor)) static void acl__identity(void)
{
    fakecuda_set_pci_identity(0x19e5, 0x1200);
}

static int acl__initialized;
static _Thread_local char acl__recent[256];

static aclError acl__said(aclError rc, const char *call, const char *why)
{
    if (rc != ACL__SUCCESS)
        snprintf(acl__recent, sizeof(acl__recent), "EE1001: %s: %s", call, why);
    return rc;
}

/* The emulated CUDA runtime's answer as ACL's number. */
static aclError acl__from(cudaError_t rc, const char *call)
{
    switch (rc) {
    case cudaSuccess:
        return ACL__SUCCESS;
    case cudaErrorInvalidDevice:
        return acl__said(ACL__RT_INVALID_DEVICEID, call, "invalid device id");
    case cudaErrorMemoryAllocation:
        return acl__said(ACL__RT_MEMORY_ALLOCATION, call, "out of memory");
    case cudaErrorNotSupported:
        return acl__said(ACL__RT_FEATURE_NOT_SUPPORT, call, "feature not supported");
    case cudaErrorInvalidValue:
    case cudaErrorInvalidResourceHandle:
        return acl__said(ACL__RT_PARAM_INVALID, call, cudaGetErrorString(rc));
    default:
        return acl__said(ACL__RT_INTERNAL_ERROR, call, cudaGetErrorString(rc));
    }
}

#define ACL__READY(call)                                                                           \
    if (!__atomic_load_n(&acl__initialized, __ATOMIC_ACQUIRE))                                     \
        return acl__said(ACL__UNINITIALIZE, call, "aclInit has not been called");

ACL__EXPORT aclError aclInit(const char *config)
{
    if (config != NULL && config[0] != '\0') {
        FILE *f = fopen(config, "r");
        if (f == NULL)
            return acl__said(ACL__INVALID_PARAM, __func__, "the configuration file is missing");
        fclose(f);
    }
    if (__atomic_exchange_n(&acl__initialized, 1, __ATOMIC_ACQ_REL))
        return ACL__REPEAT_INITIALIZE;
    return ACL__SUCCESS;
}

/* Read and cleared, as ACL's reference says: the thread's last error's description. */
ACL__EXPORT const char *aclGetRecentErrMsg(void)
{
    static _Thread_local char said[sizeof(acl__recent)];
    if (acl__recent[0] == '\0')
        return NULL;
    memcpy(said, acl__recent, sizeof(said));
    acl__recent[0] = '\0';
    return said;
}

/* The emulated HCCL's way in (not ACL's API): CANN's libraries report their errors' causes
 * through the one error manager aclGetRecentErrMsg reads. */
ACL__EXPORT void fakeacl_report(const char *code, const char *what)
{
    snprintf(acl__recent, sizeof(acl__recent), "%s: %s", code, what);
}

ACL__EXPORT const char *aclrtGetSocName(void)
{
    const char *soc = getenv("FAKE_ASCEND_SOC");
    return acl__initialized ? (soc != NULL ? soc : "Ascend910B3") : NULL;
}

ACL__EXPORT aclError aclrtGetVersion(int32_t *major, int32_t *minor, int32_t *patch)
{
    ACL__READY(__func__);
    *major = 8;
    *minor = 0;
    *patch = 0;
    return ACL__SUCCESS;
}

ACL__EXPORT aclError aclrtSetDevice(int32_t device)
{
    ACL__READY(__func__);
    return acl__from(cudaSetDevice(device), __func__);
}

ACL__EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    ACL__READY(__func__);
    int n = 0;
    aclError rc = acl__from(cudaGetDeviceCount(&n), __func__);
    *count = (uint32_t)n;
    return rc;
}

/* aclrtMemMallocPolicy: the huge-page and P2P policies 0..7, with the bandwidth flags. */
ACL__EXPORT aclError aclrtMalloc(void **ptr, size_t size, int policy)
{
    ACL__READY(__func__);
    if (ptr == NULL || size == 0 || (policy & 0xff) > 7)
        return acl__said(ACL__INVALID_PARAM, __func__, "a null pointer, size 0 or no such policy");
    return acl__from(cudaMalloc(ptr, size), __func__);
}

ACL__EXPORT aclError aclrtFree(void *ptr)
{
    ACL__READY(__func__);
    if (ptr == NULL)
        return acl__said(ACL__INVALID_PARAM, __func__, "a null pointer");
    return acl__from(cudaFree(ptr), __func__);
}

ACL__EXPORT aclError aclrtMallocHost(void **ptr, size_t size)
{
    ACL__READY(__func__);
    if (ptr == NULL || size == 0)
        return acl__said(ACL__INVALID_PARAM, __func__, "a null pointer or size 0");
    return acl__from(cudaHostAlloc(ptr, size, cudaHostAllocPortable), __func__);
}

ACL__EXPORT aclError aclrtFreeHost(void *ptr)
{
    ACL__READY(__func__);
    return acl__from(cudaFreeHost(ptr), __func__);
}

/* The copies: the count within the destination's bound, ACL's kinds 0..4 (CUDA's numbers). */
static aclError acl__copy_args(size_t max, size_t count, int kind, const char *call)
{
    if (count > max)
        return acl__said(ACL__INVALID_PARAM, call, "count exceeds the destination's maximum");
    if (kind < 0 || kind > 4)
        return acl__said(ACL__INVALID_PARAM, call, "no such copy kind");
    return ACL__SUCCESS;
}

ACL__EXPORT aclError aclrtMemcpy(void *dst, size_t max, const void *src, size_t count, int kind)
{
    ACL__READY(__func__);
    aclError rc = acl__copy_args(max, count, kind, __func__);
    return rc != ACL__SUCCESS
               ? rc
               : acl__from(cudaMemcpy(dst, src, count, (enum cudaMemcpyKind)kind), __func__);
}

ACL__EXPORT aclError aclrtMemcpyAsync(void *dst, size_t max, const void *src, size_t count,
                                      int kind, cudaStream_t s)
{
    ACL__READY(__func__);
    aclError rc = acl__copy_args(max, count, kind, __func__);
    return rc != ACL__SUCCESS
               ? rc
               : acl__from(cudaMemcpyAsync(dst, src, count, (enum cudaMemcpyKind)kind, s),
                           __func__);
}

ACL__EXPORT aclError aclrtMemset(void *ptr, size_t max, int32_t value, size_t count)
{
    ACL__READY(__func__);
    if (count > max)
        return acl__said(ACL__INVALID_PARAM, __func__, "count exceeds the maximum");
    return acl__from(cudaMemset(ptr, value, count), __func__);
}

ACL__EXPORT aclError aclrtMemsetAsync(void *ptr, size_t max, int32_t value, size_t count,
                                      cudaStream_t s)
{
    ACL__READY(__func__);
    if (count > max)
        return acl__said(ACL__INVALID_PARAM, __func__, "count exceeds the maximum");
    return acl__from(cudaMemsetAsync(ptr, value, count, s), __func__);
}

ACL__EXPORT aclError aclrtGetMemInfo(int attr, size_t *free_bytes, size_t *total_bytes)
{
    ACL__READY(__func__);
    if (attr < 0 || attr > 17)
        return acl__said(ACL__INVALID_PARAM, __func__, "no such memory attribute");
    return acl__from(cudaMemGetInfo(free_bytes, total_bytes), __func__);
}

ACL__EXPORT aclError aclrtSynchronizeDevice(void)
{
    ACL__READY(__func__);
    return acl__from(cudaDeviceSynchronize(), __func__);
}

ACL__EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *can, int32_t device, int32_t peer)
{
    ACL__READY(__func__);
    int yes = 0;
    aclError rc = acl__from(cudaDeviceCanAccessPeer(&yes, device, peer), __func__);
    *can = yes;
    return rc;
}

ACL__EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peer, uint32_t flags)
{
    ACL__READY(__func__);
    if (flags != 0)
        return acl__said(ACL__INVALID_PARAM, __func__, "flags must be 0");
    return acl__from(cudaDeviceEnablePeerAccess(peer, 0), __func__);
}

ACL__EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peer)
{
    ACL__READY(__func__);
    return acl__from(cudaDeviceDisablePeerAccess(peer), __func__);
}

ACL__EXPORT aclError aclrtCreateStream(cudaStream_t *s)
{
    ACL__READY(__func__);
    return acl__from(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking), __func__);
}

ACL__EXPORT aclError aclrtDestroyStream(cudaStream_t s)
{
    ACL__READY(__func__);
    return acl__from(cudaStreamDestroy(s), __func__);
}

/* aclrtStreamStatus: 0 complete, 1 not ready. */
ACL__EXPORT aclError aclrtStreamQuery(cudaStream_t s, int *status)
{
    ACL__READY(__func__);
    cudaError_t rc = cudaStreamQuery(s);
    *status = rc == cudaErrorNotReady ? 1 : 0;
    return rc == cudaErrorNotReady ? ACL__SUCCESS : acl__from(rc, __func__);
}

ACL__EXPORT aclError aclrtSynchronizeStream(cudaStream_t s)
{
    ACL__READY(__func__);
    return acl__from(cudaStreamSynchronize(s), __func__);
}

ACL__EXPORT aclError aclrtCreateEvent(cudaEvent_t *e)
{
    ACL__READY(__func__);
    return acl__from(cudaEventCreate(e), __func__);
}

ACL__EXPORT aclError aclrtDestroyEvent(cudaEvent_t e)
{
    ACL__READY(__func__);
    return acl__from(cudaEventDestroy(e), __func__);
}

ACL__EXPORT aclError aclrtRecordEvent(cudaEvent_t e, cudaStream_t s)
{
    ACL__READY(__func__);
    return acl__from(cudaEventRecord(e, s), __func__);
}

ACL__EXPORT aclError aclrtSynchronizeEvent(cudaEvent_t e)
{
    ACL__READY(__func__);
    return acl__from(cudaEventSynchronize(e), __func__);
}

ACL__EXPORT aclError aclrtEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    ACL__READY(__func__);
    return acl__from(cudaEventElapsedTime(ms, start, end), __func__);
}

ACL__EXPORT aclError aclrtLaunchHostFunc(cudaStream_t s, void (*fn)(void *), void *args)
{
    ACL__READY(__func__);
    if (fn == NULL)
        return acl__said(ACL__INVALID_PARAM, __func__, "a null function");
    return acl__from(cudaLaunchHostFunc(s, fn, args), __func__);
}
