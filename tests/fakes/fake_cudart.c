/* fake_cudart.c - an emulated CUDA runtime (soname libcudart.so.13) that the real GPU plugin
 * loads in place of NVIDIA's where no GPU is (tests/fakes/README.md). Semantics follow the
 * CUDA Runtime API documentation, and where it allows a choice the stricter one is taken:
 * - every stream is a thread of its own; work runs in stream order, asynchronously to the host;
 * - device memory is host memory that the runtime knows: copies and kernels check that their
 *   device pointers lie inside an allocation, and the copy's kind matches its pointers;
 * - events complete when the stream reaches them; cudaEventElapsedTime on an event not recorded
 *   is cudaErrorInvalidResourceHandle, on one not yet complete cudaErrorNotReady; they read the
 *   stream's clock, which a copy timed by the link model stops (fake_cudart_copy.c);
 * - pinned host memory, peer access and copies by a declared link model: fake_cudart_copy.c;
 * - host functions (cudaLaunchHostFunc) run on one callback thread shared by all streams, so a
 *   host function that blocks delays every other stream's host functions; a CUDA call from
 *   inside one is cudaErrorNotPermitted;
 * - capture (cudaStreamBeginCapture) records work into a graph instead of running it; querying
 *   or synchronising a capturing stream invalidates the capture;
 * - CUDA_LAUNCH_BLOCKING=1 makes every enqueue wait until its work is done;
 * - kernels run as host code: the plugin's kernels are recognised by name (fake_kernels.c);
 *   another kernel is cudaErrorInvalidDeviceFunction.
 * FAKE_CUDA_DEVICES (default 1; 0: no device), FAKE_CUDA_MEM_MB (each device's memory, default
 * 2048), FAKE_CUDA_NAME (the device name) and FAKE_CUDA_BUS_BASE set the machine; faults for
 * the verdicts' failing twins: FAKE_CUDA_EVENT_SCALE (events measure this times the time),
 * FAKE_CUDA_SPIN_SCALE (the spin kernel runs this times long), FAKE_CUBLAS_FAIL=1 (cuBLAS's
 * GEMM fails). FAKE_GPU_CALLS=DIR: every entry point's calls, written at exit. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_cudart.h"
#include "fake_kernels.h"

/* ---- the machine ---- */

int fc__env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? atoi(v) : fallback;
}

int fc__devices(void)
{
    return fc__env_int("FAKE_CUDA_DEVICES", 1);
}

size_t fc__device_mem(void)
{
    return (size_t)fc__env_int("FAKE_CUDA_MEM_MB", 2048) << 20;
}

_Thread_local int fc__device;
_Thread_local cudaError_t fc__last_error;
_Thread_local int fc__in_host_fn;

cudaError_t fc__ret(cudaError_t rc)
{
    if (rc != cudaSuccess) {
        fc__last_error = rc;
        fakecuda_write_calls();
    }
    return rc;
}

/* Every entry point counts its calls (FAKE_GPU_CALLS=DIR: written there at exit, one file a
 * process), so that a test can tell which of the plugin's call sites ran. */
static struct {
    pthread_mutex_t lock;
    const char *name[256];
    unsigned long count[256];
    int n;
} fc__calls = {.lock = PTHREAD_MUTEX_INITIALIZER};

void fakecuda_count(const char *name)
{
    pthread_mutex_lock(&fc__calls.lock);
    int i = 0;
    while (i < fc__calls.n && strcmp(fc__calls.name[i], name) != 0)
        i++;
    if (i == fc__calls.n && fc__calls.n < 256)
        fc__calls.name[fc__calls.n++] = name;
    if (i < 256)
        fc__calls.count[i]++;
    pthread_mutex_unlock(&fc__calls.lock);
}

/* Written at exit, and on every error: a process that ends by MPI_Abort or _exit runs no
 * destructor, and its error paths are the calls a test most wants to see. */
__attribute__((destructor)) void fakecuda_write_calls(void)
{
    const char *dir = getenv("FAKE_GPU_CALLS");
    if (dir == NULL || dir[0] == '\0')
        return;
    char path[4096];
    snprintf(path, sizeof(path), "%s/calls-%d.txt", dir, (int)getpid());
    FILE *out = fopen(path, "w");
    pthread_mutex_lock(&fc__calls.lock);
    for (int i = 0; out != NULL && i < fc__calls.n; i++)
        fprintf(out, "%s %lu\n", fc__calls.name[i], fc__calls.count[i]);
    pthread_mutex_unlock(&fc__calls.lock);
    if (out != NULL)
        fclose(out);
}

double fc__now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- device memory ---- */

typedef struct {
    char *ptr;
    size_t bytes;
    int device;
} fc_alloc_t;

static struct {
    pthread_mutex_t lock;
    fc_alloc_t *list;
    size_t n, cap;
    size_t used[64];
} fc__mem = {.lock = PTHREAD_MUTEX_INITIALIZER};

int fakecuda_is_device(const void *ptr, size_t bytes)
{
    const char *p = ptr;
    int inside = 0;
    pthread_mutex_lock(&fc__mem.lock);
    for (size_t i = 0; i < fc__mem.n && !inside; i++)
        inside = p >= fc__mem.list[i].ptr && bytes <= fc__mem.list[i].bytes &&
                 (size_t)(p - fc__mem.list[i].ptr) <= fc__mem.list[i].bytes - bytes;
    pthread_mutex_unlock(&fc__mem.lock);
    return inside;
}

int fakecuda_device_of(const void *ptr, size_t bytes)
{
    const char *p = ptr;
    int device = -1;
    pthread_mutex_lock(&fc__mem.lock);
    for (size_t i = 0; i < fc__mem.n && device < 0; i++)
        if (p >= fc__mem.list[i].ptr && bytes <= fc__mem.list[i].bytes &&
            (size_t)(p - fc__mem.list[i].ptr) <= fc__mem.list[i].bytes - bytes)
            device = fc__mem.list[i].device;
    pthread_mutex_unlock(&fc__mem.lock);
    return device;
}

int fakecuda_current_device(void)
{
    return fc__device;
}

cudaError_t cudaMalloc(void **ptr, size_t bytes)
{
    FC_API();
    if (ptr == NULL)
        return fc__ret(cudaErrorInvalidValue);
    *ptr = NULL;
    if (fc__devices() <= 0)
        return fc__ret(cudaErrorNoDevice);
    int d = fc__device & 63;
    pthread_mutex_lock(&fc__mem.lock);
    cudaError_t rc = cudaSuccess;
    if (fc__mem.used[d] + bytes > fc__device_mem())
        rc = cudaErrorMemoryAllocation;
    else if (fc__mem.n == fc__mem.cap) {
        size_t cap = fc__mem.cap ? 2 * fc__mem.cap : 64;
        fc_alloc_t *list = realloc(fc__mem.list, cap * sizeof(*list));
        if (list == NULL)
            rc = cudaErrorMemoryAllocation;
        else {
            fc__mem.list = list;
            fc__mem.cap = cap;
        }
    }
    char *mem = rc == cudaSuccess ? aligned_alloc(256, (bytes + 255) / 256 * 256 + 256) : NULL;
    if (rc == cudaSuccess && mem == NULL)
        rc = cudaErrorMemoryAllocation;
    if (rc == cudaSuccess) {
        memset(mem, 0xa5, bytes); /* device memory is not zeroed: never read it unwritten */
        fc__mem.list[fc__mem.n++] = (fc_alloc_t){mem, bytes, d};
        fc__mem.used[d] += bytes;
        *ptr = mem;
    }
    pthread_mutex_unlock(&fc__mem.lock);
    return fc__ret(rc);
}

static void fc__device_synchronize(void);

cudaError_t cudaFree(void *ptr)
{
    FC_API();
    if (ptr == NULL)
        return cudaSuccess;
    fc__device_synchronize(); /* CUDA's cudaFree waits for the device's work first */
    pthread_mutex_lock(&fc__mem.lock);
    size_t i = 0;
    while (i < fc__mem.n && fc__mem.list[i].ptr != ptr)
        i++;
    int found = i < fc__mem.n;
    if (found) {
        fc__mem.used[fc__mem.list[i].device] -= fc__mem.list[i].bytes;
        fc__mem.list[i] = fc__mem.list[--fc__mem.n];
    }
    pthread_mutex_unlock(&fc__mem.lock);
    if (!found)
        return fc__ret(cudaErrorInvalidValue);
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    FC_API();
    if (fc__devices() <= 0)
        return fc__ret(cudaErrorNoDevice);
    pthread_mutex_lock(&fc__mem.lock);
    *total = fc__device_mem();
    *free_bytes = *total - fc__mem.used[fc__device & 63];
    pthread_mutex_unlock(&fc__mem.lock);
    return cudaSuccess;
}

/* ---- work, streams and the callback thread ---- */

void fakecuda_work_release(fc_work_t *work)
{
    if (atomic_fetch_sub(&work->refs, 1) == 1)
        work->destroy(work);
}

/* Host functions: one thread for all streams, as CUDA has. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_once_t once;
    void (*fn)(void *);
    void *arg;
    unsigned long posted, done;
} fc__cb = {.lock = PTHREAD_MUTEX_INITIALIZER,
            .changed = PTHREAD_COND_INITIALIZER,
            .once = PTHREAD_ONCE_INIT};

static void *fc__callback_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&fc__cb.lock);
    for (;;) {
        while (fc__cb.fn == NULL)
            pthread_cond_wait(&fc__cb.changed, &fc__cb.lock);
        void (*fn)(void *) = fc__cb.fn;
        void *arg = fc__cb.arg;
        pthread_mutex_unlock(&fc__cb.lock);
        fc__in_host_fn = 1;
        fn(arg);
        fc__in_host_fn = 0;
        pthread_mutex_lock(&fc__cb.lock);
        fc__cb.fn = NULL;
        fc__cb.done++;
        pthread_cond_broadcast(&fc__cb.changed);
    }
    return NULL;
}

static void fc__callback_start(void)
{
    pthread_t t;
    pthread_create(&t, NULL, fc__callback_main, NULL);
    pthread_detach(t);
}

/* Runs fn(arg) on the callback thread and waits for it (the stream waits behind it). */
static void fc__run_on_callback_thread(void (*fn)(void *), void *arg)
{
    pthread_once(&fc__cb.once, fc__callback_start);
    pthread_mutex_lock(&fc__cb.lock);
    while (fc__cb.fn != NULL) /* another stream's host function is running */
        pthread_cond_wait(&fc__cb.changed, &fc__cb.lock);
    fc__cb.fn = fn;
    fc__cb.arg = arg;
    unsigned long ticket = ++fc__cb.posted;
    pthread_cond_broadcast(&fc__cb.changed);
    while (fc__cb.done < ticket)
        pthread_cond_wait(&fc__cb.changed, &fc__cb.lock);
    pthread_mutex_unlock(&fc__cb.lock);
}

/* The live streams: cudaFree waits for them, as CUDA's does (it synchronises the device). */
static struct {
    pthread_mutex_t lock;
    cudaStream_t list[256];
    int n;
} fc__streams = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void fc__streams_add(cudaStream_t s)
{
    pthread_mutex_lock(&fc__streams.lock);
    if (fc__streams.n < 256)
        fc__streams.list[fc__streams.n++] = s;
    pthread_mutex_unlock(&fc__streams.lock);
}

static void fc__streams_remove(const struct CUstream_st *s)
{
    pthread_mutex_lock(&fc__streams.lock);
    for (int i = 0; i < fc__streams.n; i++)
        if (fc__streams.list[i] == s)
            fc__streams.list[i] = fc__streams.list[--fc__streams.n];
    pthread_mutex_unlock(&fc__streams.lock);
}

void fc__stream_wait_idle(cudaStream_t s);

static void fc__device_synchronize(void)
{
    pthread_mutex_lock(&fc__streams.lock);
    for (int i = 0; i < fc__streams.n; i++)
        fc__stream_wait_idle(fc__streams.list[i]);
    pthread_mutex_unlock(&fc__streams.lock);
}

static _Thread_local cudaStream_t fc__running; /* a stream's own thread: that stream */

cudaStream_t fakecuda_running_stream(void)
{
    return fc__running;
}

static void *fc__stream_main(void *arg)
{
    cudaStream_t s = arg;
    fc__running = s;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (s->head == NULL && !s->destroying)
            pthread_cond_wait(&s->changed, &s->lock);
        if (s->head == NULL)
            break; /* destroying, and drained */
        fc_node_t *node = s->head;
        s->busy = 1;
        pthread_mutex_unlock(&s->lock);
        node->work->enqueued_ms = node->enqueued_ms; /* this run's, on the thread that runs it */
        node->work->run(node->work);
        s->last_end_ms = fc__now_ms();
        if (s->copy_done_ms > 0) { /* after a modelled copy the host's bookkeeping is not the
                                    * device's time (fake_cudart_copy.c) */
            s->frozen_ms += s->last_end_ms - s->copy_done_ms;
            s->copy_done_ms = 0;
        }
        fakecuda_work_release(node->work);
        pthread_mutex_lock(&s->lock);
        s->head = node->next;
        if (s->head == NULL)
            s->tail = NULL;
        free(node);
        s->busy = 0;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    /* cudaStreamDestroy returns at once; the stream's resources go once its work is done */
    fc__streams_remove(s);
    s->magic = 0;
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
}

static cudaStream_t fc__stream_new(void)
{
    cudaStream_t s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    s->device = fc__device;
    s->magic = FC_STREAM_MAGIC;
    if (pthread_create(&s->thread, NULL, fc__stream_main, s) != 0) {
        free(s);
        return NULL;
    }
    pthread_detach(s->thread);
    fc__streams_add(s);
    return s;
}

/* The legacy default stream (stream 0), made on first use. */
cudaStream_t fc__legacy;
static pthread_once_t fc__legacy_once = PTHREAD_ONCE_INIT;
static void fc__legacy_make(void)
{
    fc__legacy = fc__stream_new();
}

cudaStream_t fc__stream_of(cudaStream_t s)
{
    if (s == NULL || s == cudaStreamLegacy) {
        pthread_once(&fc__legacy_once, fc__legacy_make);
        return fc__legacy;
    }
    return s->magic == FC_STREAM_MAGIC ? s : NULL;
}

static int fc__launch_blocking(void)
{
    const char *v = getenv("CUDA_LAUNCH_BLOCKING");
    return v != NULL && strcmp(v, "1") == 0;
}

void fc__stream_wait_idle(cudaStream_t s)
{
    pthread_mutex_lock(&s->lock);
    while (s->head != NULL || s->busy)
        pthread_cond_wait(&s->changed, &s->lock);
    pthread_mutex_unlock(&s->lock);
}

cudaError_t fakecuda_enqueue(cudaStream_t stream, fc_work_t *work)
{
    cudaStream_t s = fc__stream_of(stream);
    if (s == NULL || fc__in_host_fn) {
        fakecuda_work_release(work);
        return fc__ret(s == NULL ? cudaErrorInvalidResourceHandle : cudaErrorNotPermitted);
    }
    fc_node_t *node = calloc(1, sizeof(*node));
    if (node == NULL) {
        fakecuda_work_release(work);
        return fc__ret(cudaErrorMemoryAllocation);
    }
    node->work = work;
    node->enqueued_ms = fc__now_ms();
    pthread_mutex_lock(&s->lock);
    int captured = s->capture != NULL;
    if (captured) { /* recorded, not run */
        cudaGraph_t g = s->capture;
        if (g->tail)
            g->tail->next = node;
        else
            g->head = node;
        g->tail = node;
        g->nodes++;
    } else {
        if (s->tail)
            s->tail->next = node;
        else
            s->head = node;
        s->tail = node;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    if (!captured && fc__launch_blocking())
        fc__stream_wait_idle(s);
    return cudaSuccess;
}

/* A capturing stream may not be queried or synchronised: the capture is invalidated. */
cudaError_t fc__not_while_capturing(cudaStream_t s)
{
    pthread_mutex_lock(&s->lock);
    int capturing = s->capture != NULL;
    if (capturing)
        s->capture_invalid = 1;
    pthread_mutex_unlock(&s->lock);
    return capturing ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags)
{
    FC_API();
    (void)flags;
    if (fc__devices() <= 0)
        return fc__ret(cudaErrorNoDevice);
    *stream = fc__stream_new();
    return *stream ? cudaSuccess : fc__ret(cudaErrorMemoryAllocation);
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    return cudaStreamCreateWithFlags(stream, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    FC_API();
    cudaStream_t s = fc__stream_of(stream);
    if (s == NULL || s == fc__legacy)
        return fc__ret(cudaErrorInvalidResourceHandle);
    pthread_mutex_lock(&s->lock);
    s->destroying = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return cudaSuccess;
}

/* The stream a query or a wait names: one, and not capturing (the capture is then invalid). */
static cudaError_t fc__stream_to_wait_on(cudaStream_t stream, cudaStream_t *s)
{
    *s = fc__stream_of(stream);
    if (*s == NULL)
        return fc__ret(cudaErrorInvalidResourceHandle);
    if (fc__not_while_capturing(*s) != cudaSuccess)
        return fc__ret(cudaErrorStreamCaptureUnsupported);
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    FC_API();
    cudaStream_t s;
    cudaError_t rc = fc__stream_to_wait_on(stream, &s);
    if (rc != cudaSuccess)
        return rc;
    pthread_mutex_lock(&s->lock);
    int idle = s->head == NULL && !s->busy;
    pthread_mutex_unlock(&s->lock);
    return idle ? cudaSuccess : cudaErrorNotReady; /* not an error: not recorded as the last */
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    FC_API();
    cudaStream_t s;
    cudaError_t rc = fc__stream_to_wait_on(stream, &s);
    if (rc != cudaSuccess)
        return rc;
    fc__stream_wait_idle(s);
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    FC_API();
    fc__stream_of(NULL); /* the legacy stream exists, and is waited for with the others */
    fc__device_synchronize();
    return cudaSuccess;
}

/* ---- host functions ---- */

typedef struct {
    fc_work_t base;
    cudaHostFn_t fn;
    void *arg;
} fc_host_work_t;

static void fc__host_run(fc_work_t *w)
{
    fc_host_work_t *h = (fc_host_work_t *)w;
    fc__run_on_callback_thread(h->fn, h->arg);
}

void fc__free_work(fc_work_t *w)
{
    free(w);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *arg)
{
    FC_API();
    fc_host_work_t *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return fc__ret(cudaErrorMemoryAllocation);
    h->base = (fc_work_t){.run = fc__host_run, .destroy = fc__free_work, .what = "host function"};
    atomic_init(&h->base.refs, 1);
    h->fn = fn;
    h->arg = arg;
    return fakecuda_enqueue(stream, &h->base);
}

/* ---- copies and memset ---- */

typedef struct {
    fc_work_t base;
    void *dst;
    const void *src;
    size_t bytes;
    int byte; /* memset: the value; copy: -1 */
} fc_copy_work_t;

static void fc__copy_run(fc_work_t *w)
{
    fc_copy_work_t *c = (fc_copy_work_t *)w;
    if (c->byte >= 0)
        memset(c->dst, c->byte, c->bytes);
    else
        memmove(c->dst, c->src, c->bytes);
}

/* The kind must match the pointers (the runtime cannot tell a host pointer from a device one
 * only under cudaMemcpyDefault, where it infers the direction). */
static cudaError_t fc__check_kind(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k)
{
    int d = fakecuda_is_device(dst, bytes), s = fakecuda_is_device(src, bytes);
    int ok = k == cudaMemcpyDefault || (k == cudaMemcpyHostToDevice && d && !s) ||
             (k == cudaMemcpyDeviceToHost && !d && s) ||
             (k == cudaMemcpyDeviceToDevice && d && s) || (k == cudaMemcpyHostToHost && !d && !s);
    return ok ? cudaSuccess : cudaErrorInvalidValue;
}

static cudaError_t fc__enqueue_copy(void *dst, const void *src, size_t bytes, int byte,
                                    cudaStream_t stream)
{
    fc_copy_work_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return fc__ret(cudaErrorMemoryAllocation);
    c->base = (fc_work_t){
        .run = fc__copy_run, .destroy = fc__free_work, .what = byte >= 0 ? "memset" : "memcpy"};
    atomic_init(&c->base.refs, 1);
    c->dst = dst;
    c->src = src;
    c->bytes = bytes;
    c->byte = byte;
    return fakecuda_enqueue(stream, &c->base);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    FC_API();
    if (bytes == 0)
        return cudaSuccess;
    if (fc__check_kind(dst, src, bytes, kind) != cudaSuccess)
        return fc__ret(cudaErrorInvalidValue);
    fc_copy_model_t model; /* pinned host memory, within a device, between devices */
    fakecuda_copy_model(dst, src, bytes, &model);
    if (model.GBps > 0)
        return fakecuda_enqueue_model_copy(dst, src, bytes, &model, stream);
    return fc__enqueue_copy(dst, src, bytes, -1, stream);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    fakecuda_count(__func__);
    cudaError_t rc = cudaMemcpyAsync(dst, src, bytes, kind, NULL);
    if (rc == cudaSuccess)
        fc__stream_wait_idle(fc__stream_of(NULL));
    return rc;
}

cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t stream)
{
    FC_API();
    if (bytes == 0)
        return cudaSuccess;
    if (!fakecuda_is_device(dst, bytes))
        return fc__ret(cudaErrorInvalidValue);
    return fc__enqueue_copy(dst, NULL, bytes, value & 0xff, stream);
}

cudaError_t cudaMemset(void *dst, int value, size_t bytes)
{
    fakecuda_count(__func__);
    cudaError_t rc = cudaMemsetAsync(dst, value, bytes, NULL);
    if (rc == cudaSuccess)
        fc__stream_wait_idle(fc__stream_of(NULL));
    return rc;
}
