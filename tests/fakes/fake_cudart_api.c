/* fake_cudart_api.c - the emulated CUDA runtime's events, graphs, devices, errors and launch entry
 * points (fake_cudart.c says what it emulates). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_cudart.h"
#include "fake_kernels.h"

/* ---- events ---- */

struct CUevent_st {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned long recorded, completed; /* generations */
    double ms;                         /* when the stream reached the last completed record */
    unsigned flags;
    unsigned magic;
};
#define FC_EVENT_MAGIC 0xe7e47u

typedef struct {
    fc_work_t base;
    cudaEvent_t event;
    unsigned long generation;
    cudaStream_t stream; /* whose clock it reads */
} fc_event_work_t;

static void fc__event_run(fc_work_t *w)
{
    fc_event_work_t *e = (fc_event_work_t *)w;
    pthread_mutex_lock(&e->event->lock);
    /* the stream's clock: the host's, less what modelled copies stopped (fake_cudart_copy.c) */
    e->event->ms = fc__now_ms() - e->stream->frozen_ms;
    if (e->generation > e->event->completed)
        e->event->completed = e->generation;
    pthread_cond_broadcast(&e->event->changed);
    pthread_mutex_unlock(&e->event->lock);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags)
{
    FC_API();
    cudaEvent_t e = calloc(1, sizeof(*e));
    if (e == NULL)
        return fc__ret(cudaErrorMemoryAllocation);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->changed, NULL);
    e->flags = flags;
    e->magic = FC_EVENT_MAGIC;
    *event = e;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    fakecuda_count(__func__);
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

/* Waits until every record of e ran; called with e->lock held. */
static void fc__event_wait_locked(cudaEvent_t e)
{
    while (e->completed < e->recorded)
        pthread_cond_wait(&e->changed, &e->lock);
}

cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    FC_API();
    if (e == NULL || e->magic != FC_EVENT_MAGIC)
        return fc__ret(cudaErrorInvalidResourceHandle);
    /* CUDA lets an event be destroyed while recorded work is pending; the emulation keeps it
     * until the record ran, so that the stream thread never writes freed memory */
    pthread_mutex_lock(&e->lock);
    fc__event_wait_locked(e);
    e->magic = 0;
    pthread_mutex_unlock(&e->lock);
    pthread_cond_destroy(&e->changed);
    pthread_mutex_destroy(&e->lock);
    free(e);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t stream)
{
    FC_API();
    cudaStream_t s = fc__stream_of(stream);
    if (e == NULL || e->magic != FC_EVENT_MAGIC || s == NULL)
        return fc__ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&s->lock);
    int capturing = s->capture != NULL;
    pthread_mutex_unlock(&s->lock);
    if (capturing) /* not emulated: the plugin records no event inside a capture */
        return fc__ret(cudaErrorStreamCaptureUnsupported);
    fc_event_work_t *w = calloc(1, sizeof(*w));
    if (w == NULL)
        return fc__ret(cudaErrorMemoryAllocation);
    w->base = (fc_work_t){.run = fc__event_run, .destroy = fc__free_work, .what = "event"};
    atomic_init(&w->base.refs, 1);
    w->event = e;
    w->stream = s;
    pthread_mutex_lock(&e->lock);
    w->generation = ++e->recorded;
    pthread_mutex_unlock(&e->lock);
    return fakecuda_enqueue(s, &w->base);
}

cudaError_t cudaEventQuery(cudaEvent_t e)
{
    FC_API();
    if (e == NULL || e->magic != FC_EVENT_MAGIC)
        return fc__ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&e->lock);
    int done = e->completed == e->recorded;
    pthread_mutex_unlock(&e->lock);
    return done ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    FC_API();
    if (e == NULL || e->magic != FC_EVENT_MAGIC)
        return fc__ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&e->lock);
    fc__event_wait_locked(e);
    pthread_mutex_unlock(&e->lock);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    FC_API();
    if (ms == NULL)
        return fc__ret(cudaErrorInvalidValue);
    cudaEvent_t ev[2] = {start, stop};
    double at[2] = {0, 0};
    cudaError_t rc = cudaSuccess;
    for (int i = 0; i < 2 && rc == cudaSuccess; i++) {
        if (ev[i] == NULL || ev[i]->magic != FC_EVENT_MAGIC ||
            (ev[i]->flags & cudaEventDisableTiming))
            return fc__ret(cudaErrorInvalidResourceHandle);
        pthread_mutex_lock(&ev[i]->lock);
        if (ev[i]->recorded == 0)
            rc = cudaErrorInvalidResourceHandle;
        else if (ev[i]->completed < ev[i]->recorded)
            rc = cudaErrorNotReady;
        at[i] = ev[i]->ms;
        pthread_mutex_unlock(&ev[i]->lock);
    }
    if (rc != cudaSuccess)
        return fc__ret(rc);
    const char *scale = getenv("FAKE_CUDA_EVENT_SCALE"); /* a device clock that runs off */
    *ms = (float)((at[1] - at[0]) * (scale != NULL ? atof(scale) : 1.0));
    return cudaSuccess;
}

/* ---- graphs ---- */

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    FC_API();
    (void)mode;
    cudaStream_t s = fc__stream_of(stream);
    if (s == NULL || s == fc__legacy) /* the legacy stream cannot be captured */
        return fc__ret(s == NULL ? cudaErrorInvalidResourceHandle
                                 : cudaErrorStreamCaptureUnsupported);
    cudaGraph_t g = calloc(1, sizeof(*g));
    if (g == NULL)
        return fc__ret(cudaErrorMemoryAllocation);
    pthread_mutex_lock(&s->lock);
    cudaError_t rc = s->capture != NULL ? cudaErrorIllegalState : cudaSuccess;
    if (rc == cudaSuccess) {
        s->capture = g;
        s->capture_invalid = 0;
    }
    pthread_mutex_unlock(&s->lock);
    if (rc != cudaSuccess)
        free(g);
    return fc__ret(rc);
}

cudaError_t cudaGraphDestroy(cudaGraph_t g)
{
    FC_API();
    if (g == NULL)
        return fc__ret(cudaErrorInvalidValue);
    for (fc_node_t *n = g->head, *next; n != NULL; n = next) {
        next = n->next;
        fakecuda_work_release(n->work);
        free(n);
    }
    free(g);
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
    FC_API();
    cudaStream_t s = fc__stream_of(stream);
    if (s == NULL)
        return fc__ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&s->lock);
    cudaGraph_t g = s->capture;
    int invalid = s->capture_invalid;
    s->capture = NULL;
    pthread_mutex_unlock(&s->lock);
    *graph = NULL;
    if (g == NULL)
        return fc__ret(cudaErrorIllegalState);
    if (invalid) {
        cudaGraphDestroy(g);
        return fc__ret(cudaErrorStreamCaptureInvalidated);
    }
    *graph = g;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t g, unsigned long long flags)
{
    FC_API();
    (void)flags;
    if (g == NULL || exec == NULL)
        return fc__ret(cudaErrorInvalidValue);
    cudaGraphExec_t e = calloc(1, sizeof(*e));
    e->work = calloc(g->nodes ? g->nodes : 1, sizeof(*e->work));
    for (fc_node_t *n = g->head; n != NULL; n = n->next) {
        atomic_fetch_add(&n->work->refs, 1);
        e->work[e->n++] = n->work;
    }
    *exec = e;
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    FC_API();
    if (exec == NULL)
        return fc__ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < exec->n; i++) {
        atomic_fetch_add(&exec->work[i]->refs, 1);
        cudaError_t rc = fakecuda_enqueue(stream, exec->work[i]);
        if (rc != cudaSuccess)
            return rc;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    FC_API();
    if (exec == NULL)
        return fc__ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < exec->n; i++)
        fakecuda_work_release(exec->work[i]);
    free(exec->work);
    free(exec);
    return cudaSuccess;
}

/* ---- devices and versions ---- */

cudaError_t cudaGetDeviceCount(int *count)
{
    FC_API();
    *count = fc__devices() > 0 ? fc__devices() : 0;
    return *count > 0 ? cudaSuccess : fc__ret(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device)
{
    FC_API();
    if (device < 0 || device >= fc__devices())
        return fc__ret(cudaErrorInvalidDevice);
    fc__device = device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    fakecuda_count(__func__);
    *device = fc__device;
    return cudaSuccess;
}

/* The device's bus: its place in the emulated machine's tree, else FAKE_CUDA_BUS_BASE + d. */
static int fc__bus(int device)
{
    int in_tree = fakecuda_tree_bus(device);
    return in_tree >= 0 ? in_tree : fc__env_int("FAKE_CUDA_BUS_BASE", 0x1b) + device;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    FC_API();
    if (device < 0 || device >= fc__devices())
        return fc__ret(cudaErrorInvalidDevice);
    memset(prop, 0, sizeof(*prop));
    const char *name = getenv("FAKE_CUDA_NAME");
    snprintf(prop->name, sizeof(prop->name), "%s",
             name != NULL ? name : "Emulated GPU (scalecheck fake CUDA)");
    prop->totalGlobalMem = fc__device_mem();
    prop->major = 9;
    prop->minor = 0;
    prop->multiProcessorCount = 132;
    prop->pciBusID = fc__bus(device);
    return cudaSuccess;
}

/* The attributes the plugin asks (an H100 SXM's HBM3 unless told: FAKE_CUDA_MEM_CLOCK_KHZ,
 * FAKE_CUDA_MEM_BUS_BITS); another is cudaErrorInvalidValue, loudly, as an unemulated kernel. */
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    FC_API();
    if (value == NULL)
        return fc__ret(cudaErrorInvalidValue);
    if (device < 0 || device >= fc__devices())
        return fc__ret(cudaErrorInvalidDevice);
    if (attr == cudaDevAttrMemoryClockRate)
        *value = fc__env_int("FAKE_CUDA_MEM_CLOCK_KHZ", 2619000);
    else if (attr == cudaDevAttrGlobalMemoryBusWidth)
        *value = fc__env_int("FAKE_CUDA_MEM_BUS_BITS", 5120);
    else if (attr == cudaDevAttrMultiProcessorCount)
        *value = 132; /* an H100 SXM's, as cudaGetDeviceProperties says */
    else {
        fprintf(stderr, "fake CUDA: cudaDeviceGetAttribute(%d) is not emulated\n", (int)attr);
        return fc__ret(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *bus, int len, int device)
{
    FC_API();
    if (device < 0 || device >= fc__devices())
        return fc__ret(cudaErrorInvalidDevice);
    snprintf(bus, (size_t)len, "0000:%02x:00.0", fc__bus(device));
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
    fakecuda_count(__func__);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
    fakecuda_count(__func__);
    *v = fc__devices() > 0 ? CUDART_VERSION : 0;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    fakecuda_count(__func__);
    cudaError_t rc = fc__last_error;
    fc__last_error = cudaSuccess;
    return rc;
}

cudaError_t cudaPeekAtLastError(void)
{
    fakecuda_count(__func__);
    return fc__last_error;
}

const char *cudaGetErrorString(cudaError_t rc)
{
    fakecuda_count(__func__);
    fakecuda_write_calls(); /* asked on error paths, which may end in MPI_Abort */
    switch (rc) {
    case cudaSuccess:
        return "no error";
    case cudaErrorInvalidValue:
        return "invalid argument";
    case cudaErrorMemoryAllocation:
        return "out of memory";
    case cudaErrorNoDevice:
        return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
        return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
        return "invalid resource handle";
    case cudaErrorNotReady:
        return "device not ready";
    case cudaErrorNotPermitted:
        return "operation not permitted";
    case cudaErrorStreamCaptureUnsupported:
        return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
        return "operation failed due to a previous error during capture";
    case cudaErrorInvalidDeviceFunction:
        return "invalid device function";
    case cudaErrorIllegalState:
        return "the operation cannot be performed in the present state";
    default:
        return "unknown error (fake CUDA)";
    }
}

const char *cudaGetErrorName(cudaError_t rc)
{
    return cudaGetErrorString(rc);
}

/* ---- what nvcc's launch code calls (crt/host_runtime.h) ---- */

typedef struct {
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
} fc_config_t;

static _Thread_local fc_config_t fc__configs[8];
static _Thread_local int fc__nconfigs;

void **__cudaRegisterFatBinary(void *fat)
{
    static void *handle[2];
    handle[0] = fat;
    return handle;
}

char __cudaInitModule(void **handle) /* what a debug build's module constructor asks */
{
    (void)handle;
    return 1;
}

void __cudaRegisterFatBinaryEnd(void **handle)
{
    (void)handle;
}

void __cudaUnregisterFatBinary(void **handle)
{
    (void)handle;
}

void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                            const char *device_name, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bdim, dim3 *gdim, int *wsize)
{
    (void)handle, (void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)bdim;
    (void)gdim, (void)wsize;
    fake_kernels_register(host_fun, device_name);
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, cudaStream_t stream)
{
    fakecuda_count(__func__);
    if (fc__nconfigs < 8)
        fc__configs[fc__nconfigs++] = (fc_config_t){grid, block, shared, stream};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream)
{
    fakecuda_count(__func__);
    if (fc__nconfigs == 0)
        return fc__ret(cudaErrorInvalidConfiguration);
    fc_config_t c = fc__configs[--fc__nconfigs];
    *grid = c.grid;
    *block = c.block;
    *shared = c.shared;
    *(cudaStream_t *)stream = c.stream;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *host_fun)
{
    fakecuda_count(__func__);
    *kernel = (cudaKernel_t)fake_kernels_find(host_fun);
    return *kernel != NULL ? cudaSuccess : fc__ret(cudaErrorInvalidDeviceFunction);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                               size_t shared, cudaStream_t stream)
{
    FC_API();
    (void)shared;
    if (grid.x == 0 || block.x == 0 || block.x * block.y * block.z > 1024)
        return fc__ret(cudaErrorInvalidConfiguration);
    fc_work_t *work = NULL;
    cudaError_t rc = fake_kernels_make((const fake_kernel_t *)kernel, args, &work);
    return fc__ret(rc == cudaSuccess ? fakecuda_enqueue(stream, work) : rc);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                    size_t shared, cudaStream_t stream)
{
    return __cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

cudaError_t cudaLaunchKernel(const void *fun, dim3 grid, dim3 block, void **args, size_t shared,
                             cudaStream_t stream)
{
    cudaKernel_t k = NULL;
    cudaError_t rc = __cudaGetKernel(&k, fun);
    return rc == cudaSuccess ? __cudaLaunchKernel(k, grid, block, args, shared, stream) : rc;
}
