/* fake_kernels.c - the plugin's kernels as host code (fake_kernels.h). The data check's kernels
 * use sc_check_core.h, as the CUDA ones do, so the emulated device computes what the GPU would;
 * the spin waits on the host clock; fill_random fills as compute_cuda.cu does. A kernel the
 * plugin gains without an emulation here fails its launch, loudly. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/sc_check_core.h"
#include "fake_cudart.h"
#include "fake_kernels.h"

typedef enum { FK_UNKNOWN, FK_FILL, FK_COUNT, FK_SPIN, FK_FILL_RANDOM, FK_COPY } fk_kind_t;

struct fake_kernel {
    const void *host_fun;
    fk_kind_t kind;
    char name[160];
};

static struct {
    pthread_mutex_t lock;
    fake_kernel_t list[64];
    int n;
} fk__registry = {.lock = PTHREAD_MUTEX_INITIALIZER};

static fk_kind_t fk__kind_of(const char *mangled)
{
    static const struct {
        const char *name;
        fk_kind_t kind;
    } known[] = {{"fill_kernel", FK_FILL},
                 {"count_kernel", FK_COUNT},
                 {"spin_kernel", FK_SPIN},
                 {"fill_random", FK_FILL_RANDOM},
                 {"sm_copy_kernel", FK_COPY}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strstr(mangled, known[i].name) != NULL)
            return known[i].kind;
    return FK_UNKNOWN;
}

void fake_kernels_register(const void *host_fun, const char *device_name)
{
    pthread_mutex_lock(&fk__registry.lock);
    if (fk__registry.n < 64) {
        fake_kernel_t *k = &fk__registry.list[fk__registry.n++];
        k->host_fun = host_fun;
        k->kind = fk__kind_of(device_name);
        snprintf(k->name, sizeof(k->name), "%s", device_name);
    }
    pthread_mutex_unlock(&fk__registry.lock);
}

const fake_kernel_t *fake_kernels_find(const void *host_fun)
{
    const fake_kernel_t *found = NULL;
    pthread_mutex_lock(&fk__registry.lock);
    for (int i = 0; i < fk__registry.n && found == NULL; i++)
        if (fk__registry.list[i].host_fun == host_fun)
            found = &fk__registry.list[i];
    pthread_mutex_unlock(&fk__registry.lock);
    return found;
}

typedef struct {
    fc_work_t base;
    fk_kind_t kind;
    void *buf;
    sc_check_spec_t spec;
    sc_src_t src;
    int rank, type;
    size_t count;
    uint64_t ns;
    unsigned long long *wrong;
    const void *from; /* an SM copy's source (buf its destination, count its 16-byte words) */
} fk_work_t;

static void fk__spin(uint64_t ns)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t gone = (uint64_t)(now.tv_sec - start.tv_sec) * 1000000000ull +
                        (uint64_t)now.tv_nsec - (uint64_t)start.tv_nsec;
        if (gone >= ns)
            return;
        if (ns - gone > 300000) { /* sleep most of it: 8 emulated GPUs share 2 cores */
            struct timespec nap = {0, (long)(ns - gone - 200000)};
            if (nap.tv_nsec >= 1000000000L) {
                nap.tv_sec = nap.tv_nsec / 1000000000L;
                nap.tv_nsec %= 1000000000L;
            }
            nanosleep(&nap, NULL);
        } else {
            sched_yield();
        }
    }
}

static void fk__fill_random(void *buf, size_t count, int type)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        double v = (double)(h % 2048) / 1024.0 - 1.0;
        sc_dtype_store(type == 2   ? SC_DTYPE_fp16
                       : type == 3 ? SC_DTYPE_bf16
                                   : SC_DTYPE_float,
                       buf, i, v);
    }
}

/* An SM copy, timed by the link model as a copy engine's (FAKE_CUDA_COPY_MODEL=1): NVLink
 * between peers, the memory's rate within a device. */
static void fk__sm_copy(const fk_work_t *k)
{
    size_t bytes = k->count * 16;
    fc_copy_model_t model;
    fakecuda_copy_model(k->buf, k->from, bytes, &model);
    double t0 = fakecuda_now_ms();
    memmove(k->buf, k->from, bytes);
    if (model.GBps > 0)
        fakecuda_stream_modelled(fakecuda_running_stream(), k->base.enqueued_ms, t0,
                                 (double)bytes / (model.GBps * 1e9) * 1e3);
}

/* Whether a kernel on the current device may touch [ptr, ptr + bytes): its own memory, or a
 * peer's it has peer access to (else a GPU faults: an illegal address). */
static int fk__reachable(const void *ptr, size_t bytes)
{
    int owner = fakecuda_device_of(ptr, bytes), here = fakecuda_current_device();
    return owner >= 0 && (owner == here || fakecuda_peer_enabled(here, owner));
}

static void fk__run(fc_work_t *w)
{
    fk_work_t *k = (fk_work_t *)w;
    switch (k->kind) {
    case FK_FILL:
        for (size_t i = 0; i < k->count; i++)
            sc_dtype_store(k->spec.dtype, k->buf, i, sc_check_value(&k->spec, k->rank, i));
        break;
    case FK_COUNT: {
        unsigned long long wrong = 0;
        for (size_t j = 0; j < k->count; j++)
            wrong += !sc_check_matches(&k->spec, sc_dtype_load(k->spec.dtype, k->buf, j),
                                       sc_check_expected(&k->spec, &k->src, j));
        __atomic_fetch_add(k->wrong, wrong, __ATOMIC_RELAXED);
        break;
    }
    case FK_SPIN: {
        const char *scale = getenv("FAKE_CUDA_SPIN_SCALE");
        fk__spin((uint64_t)((double)k->ns * (scale != NULL ? atof(scale) : 1.0)));
        break;
    }
    case FK_FILL_RANDOM:
        fk__fill_random(k->buf, k->count, k->type);
        break;
    case FK_COPY:
        fk__sm_copy(k);
        break;
    default:
        break;
    }
}

static void fk__destroy(fc_work_t *w)
{
    free(w);
}

static size_t fk__elem(int type)
{
    return type == 2 || type == 3 ? 2 : 4;
}

cudaError_t fake_kernels_make(const fake_kernel_t *kernel, void **args, fc_work_t **work)
{
    if (kernel == NULL || kernel->kind == FK_UNKNOWN) {
        fprintf(stderr, "fake CUDA: no host emulation for kernel %s\n",
                kernel ? kernel->name : "(unregistered)");
        return cudaErrorInvalidDeviceFunction;
    }
    fk_work_t *k = calloc(1, sizeof(*k));
    if (k == NULL)
        return cudaErrorMemoryAllocation;
    k->base = (fc_work_t){.run = fk__run, .destroy = fk__destroy, .what = kernel->name};
    atomic_init(&k->base.refs, 1);
    k->kind = kernel->kind;
    int device_ok = 1;
    switch (k->kind) {
    case FK_FILL:
        k->buf = *(void **)args[0];
        k->spec = *(sc_check_spec_t *)args[1];
        k->rank = *(int *)args[2];
        k->count = *(size_t *)args[3];
        device_ok = fakecuda_is_device(k->buf, k->count * FAKE_DTYPE_SIZE(k->spec.dtype));
        break;
    case FK_COUNT:
        k->buf = *(void **)args[0];
        k->spec = *(sc_check_spec_t *)args[1];
        k->src = *(sc_src_t *)args[2];
        k->count = *(size_t *)args[3];
        k->wrong = *(unsigned long long **)args[4];
        device_ok = fakecuda_is_device(k->buf, k->count * FAKE_DTYPE_SIZE(k->spec.dtype)) &&
                    fakecuda_is_device(k->wrong, sizeof(*k->wrong));
        break;
    case FK_SPIN:
        k->ns = *(uint64_t *)args[0];
        break;
    case FK_COPY:
        k->from = *(const void **)args[0];
        k->buf = *(void **)args[1];
        k->count = *(size_t *)args[2];
        device_ok = fk__reachable(k->from, k->count * 16) && fk__reachable(k->buf, k->count * 16);
        break;
    default:
        k->buf = *(void **)args[0];
        k->count = *(size_t *)args[1];
        k->type = *(int *)args[2];
        device_ok = fakecuda_is_device(k->buf, k->count * fk__elem(k->type));
        break;
    }
    if (!device_ok) { /* a GPU would fault (an illegal address): refused at launch here */
        fprintf(stderr,
                "fake CUDA: kernel %s given a buffer that is not device memory (or a peer's "
                "without peer access)\n",
                kernel->name);
        free(k);
        return cudaErrorInvalidValue;
    }
    *work = &k->base;
    return cudaSuccess;
}
