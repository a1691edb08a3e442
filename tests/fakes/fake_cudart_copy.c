/* fake_cudart_copy.c - the emulated device's copy engines (fake_cudart.c says what the runtime
 * emulates): pinned host memory, peer access, and copies timed by a declared link model.
 *
 * Pinned memory as the CUDA Runtime API documents it: cudaHostAlloc's flags (Portable, Mapped,
 * WriteCombined) and no other; cudaFreeHost only on what cudaHostAlloc or cudaMallocHost gave;
 * cudaHostRegister of a range that overlaps a registered one is
 * cudaErrorHostMemoryAlreadyRegistered, cudaHostUnregister of a pointer that is not a
 * registered range's start cudaErrorHostMemoryNotRegistered.
 * Peer access: cudaDeviceCanAccessPeer answers per pair (never a device to itself);
 * cudaDeviceEnablePeerAccess with flags other than 0 is cudaErrorInvalidValue, to the current
 * device cudaErrorInvalidDevice, to a peer it cannot reach cudaErrorPeerAccessUnsupported, twice
 * cudaErrorPeerAccessAlreadyEnabled; disabling one not enabled cudaErrorPeerAccessNotEnabled.
 * cudaMemcpyPeerAsync needs its pointers on the devices it names.
 *
 * The link model (what a copy's time is), with FAKE_CUDA_COPY_MODEL=1 (else a copy takes the
 * host's memmove, and events agree with the host's clock, as on a GPU):
 * - PCIe: device d is the d-th NVIDIA GPU, in bus order, of the emulated machine's sysfs
 *   (SCALECHECK_SYS_ROOT: a recorded tree, tests/fakes/trees), at its current link's generation
 *   and width there (Gen5 x16 where there is no tree); a copy between pinned host memory and the
 *   device moves at FC__PCIE_EFFICIENCY of the link's raw rate, which the devices under one root
 *   port share while they copy at once. A copy to or from pageable memory is not modelled.
 * - device memory: a copy within a device reads and writes its bytes at FC__HBM_EFFICIENCY of
 *   the peak its attributes give (memory clock x 2 x bus width: an H100 SXM's 3352 GB/s unless
 *   told); FAKE_CUDA_HBM_SLOW=D:F device D at F of it.
 * - between devices: FAKE_CUDA_NVLINK_GBPS each way between every pair (default 0: no NVLink,
 *   through the host at half the slower PCIe link's rate, and no peer access);
 *   FAKE_CUDA_NVLINK_SLOW=A-B:F the pair A, B at F of it (a degraded link); FAKE_CUDA_NO_PEER=1:
 *   no pair reaches another.
 * - a device has one copy engine: its copies run one at a time.
 * The stream's clock: a modelled copy lasts at least its modelled time (the stream sleeps the
 * rest); where the host's own memmove outlasts it, or the stream's thread comes to the copy
 * after it was ready (enqueued, the work before it ended, the engine free), the stream's clock
 * stops meanwhile (CUstream_st.frozen_ms), so that events on it time the copy as the model says
 * (a real GPU's copy engines outrun the host's memmove). Events on other streams keep the
 * host's time: a collective beside a copy is not sped up. */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_cudart.h"

/* what a healthy Gen5 x16 link moves in practice: about 55 of its 63 GB/s */
#define FC__PCIE_EFFICIENCY 0.87
/* what a copy within an HBM3 device reaches of its peak (a stream copy: about 0.9) */
#define FC__HBM_EFFICIENCY 0.9
#define FC__DEVICES        64

/* ---- the machine's links ---- */

typedef struct {
    double pcie_GBps; /* the link's raw rate x FC__PCIE_EFFICIENCY */
    char root_port[32];
} fc_link_t;

static struct {
    pthread_once_t once;
    fc_link_t dev[FC__DEVICES];
    int bus[FC__DEVICES];            /* the tree's bus number of each device, -1: no tree */
    atomic_int copying[FC__DEVICES]; /* per root port index: devices copying over it now */
    int port_of[FC__DEVICES];
} fc__links = {.once = PTHREAD_ONCE_INIT};

static double fc__raw_GBps(double gts, int width)
{
    double encoding = gts < 8 ? 0.8 : gts < 64 ? 128.0 / 130.0 : 242.0 / 256.0;
    return gts * encoding * width / 8.0;
}

static int fc__read_text(const char *dir, const char *name, char *out, size_t len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    return ok;
}

static int fc__by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tree's NVIDIA GPUs (class 0x0302), in bus order, into names: how many. */
/* Which devices of the tree are this runtime's: NVIDIA's 3D controllers, or (the emulated HIP
 * says so as it loads: fakecuda_set_pci_identity) AMD's display controllers, the GCDs. */
static struct {
    long vendor, class_code;
} fc__pci = {0x10de, 0x0302};

void fakecuda_set_pci_identity(long vendor, long class_code)
{
    fc__pci.vendor = vendor;
    fc__pci.class_code = class_code;
}

static int fc__tree_gpus(const char *devices, char names[][64], int max)
{
    DIR *d = opendir(devices);
    char *found[FC__DEVICES];
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && n < FC__DEVICES;) {
        char dir[1024], vendor[32] = "", cls[32] = "";
        snprintf(dir, sizeof(dir), "%s/%s", devices, e->d_name);
        if (e->d_name[0] == '.' || !fc__read_text(dir, "vendor", vendor, sizeof(vendor)) ||
            !fc__read_text(dir, "class", cls, sizeof(cls)))
            continue;
        if (strtol(vendor, NULL, 16) == fc__pci.vendor &&
            (strtol(cls, NULL, 16) >> 8) == fc__pci.class_code)
            found[n++] = strdup(e->d_name);
    }
    if (d != NULL)
        closedir(d);
    qsort(found, (size_t)n, sizeof(*found), fc__by_name);
    for (int i = 0; i < n; i++) {
        if (i < max)
            snprintf(names[i], 64, "%s", found[i]);
        free(found[i]);
    }
    return n < max ? n : max;
}

/* The root port above a device: the first bridge below the host bridge in its sysfs path. */
static void fc__root_port(const char *devices, const char *bus, char *out, size_t len)
{
    char link[1024], real[4096];
    snprintf(link, sizeof(link), "%s/%s", devices, bus);
    snprintf(out, len, "%s", bus);
    if (realpath(link, real) == NULL)
        return;
    const char *host = strstr(real, "/pci0000:");
    if (host == NULL)
        host = strstr(real, "/pci");
    const char *port = host != NULL ? strchr(host + 1, '/') : NULL;
    if (port == NULL)
        return;
    snprintf(out, len, "%.*s", (int)strcspn(port + 1, "/"), port + 1);
}

static void fc__links_load(void)
{
    const char *root = getenv("SCALECHECK_SYS_ROOT");
    char devices[1024], names[FC__DEVICES][64];
    snprintf(devices, sizeof(devices), "%s/bus/pci/devices", root != NULL ? root : "/sys");
    int gpus = fc__tree_gpus(devices, names, FC__DEVICES);
    char ports[FC__DEVICES][32];
    int nports = 0;
    for (int d = 0; d < FC__DEVICES; d++) {
        fc_link_t *l = &fc__links.dev[d];
        double gts = 32.0;
        int width = 16;
        snprintf(l->root_port, sizeof(l->root_port), "device %d", d);
        if (d < gpus) {
            char dir[1024], speed[64] = "", w[16] = "";
            snprintf(dir, sizeof(dir), "%s/%s", devices, names[d]);
            if (fc__read_text(dir, "current_link_speed", speed, sizeof(speed)) && atof(speed) > 0)
                gts = atof(speed);
            if (fc__read_text(dir, "current_link_width", w, sizeof(w)) && atoi(w) > 0)
                width = atoi(w);
            fc__root_port(devices, names[d], l->root_port, sizeof(l->root_port));
        }
        l->pcie_GBps = fc__raw_GBps(gts, width) * FC__PCIE_EFFICIENCY;
        unsigned domain = 0, bus = 0;
        fc__links.bus[d] =
            d < gpus && sscanf(names[d], "%x:%x", &domain, &bus) == 2 ? (int)bus : -1;
        int p = 0;
        while (p < nports && strcmp(ports[p], l->root_port) != 0)
            p++;
        if (p == nports && nports < FC__DEVICES)
            snprintf(ports[nports++], sizeof(ports[0]), "%s", l->root_port);
        fc__links.port_of[d] = p < FC__DEVICES ? p : 0;
    }
}

static const fc_link_t *fc__link(int device)
{
    pthread_once(&fc__links.once, fc__links_load);
    return &fc__links.dev[device & (FC__DEVICES - 1)];
}

int fakecuda_tree_bus(int device)
{
    pthread_once(&fc__links.once, fc__links_load);
    return fc__links.bus[device & (FC__DEVICES - 1)];
}

static double fc__env_double(const char *name, double fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? atof(v) : fallback;
}

/* NVLink's rate between a and b, each way (0: none). */
static double fc__nvlink_GBps(int a, int b)
{
    double rate = fc__env_double("FAKE_CUDA_NVLINK_GBPS", 0);
    int x = -1, y = -1;
    double f = 1;
    const char *slow = getenv("FAKE_CUDA_NVLINK_SLOW");
    if (slow != NULL && sscanf(slow, "%d-%d:%lf", &x, &y, &f) == 3 &&
        ((x == a && y == b) || (x == b && y == a)))
        rate *= f;
    return rate;
}

/* ---- pinned host memory ---- */

typedef struct {
    char *ptr;
    size_t bytes;
    int allocated; /* cudaHostAlloc's, else cudaHostRegister's */
} fc_pinned_t;

static struct {
    pthread_mutex_t lock;
    fc_pinned_t list[1024];
    int n;
} fc__pinned = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The pinned range [p, p + bytes) overlaps, or -1; with the lock held. */
static int fc__pinned_overlap(const char *p, size_t bytes)
{
    for (int i = 0; i < fc__pinned.n; i++) {
        const fc_pinned_t *r = &fc__pinned.list[i];
        if (p < r->ptr + r->bytes && r->ptr < p + bytes)
            return i;
    }
    return -1;
}

int fakecuda_is_pinned(const void *ptr, size_t bytes)
{
    const char *p = ptr;
    pthread_mutex_lock(&fc__pinned.lock);
    int i = fc__pinned_overlap(p, bytes);
    int inside = i >= 0 && p >= fc__pinned.list[i].ptr &&
                 p + bytes <= fc__pinned.list[i].ptr + fc__pinned.list[i].bytes;
    pthread_mutex_unlock(&fc__pinned.lock);
    return inside;
}

static cudaError_t fc__pin(char *p, size_t bytes, int allocated)
{
    cudaError_t rc = cudaSuccess;
    pthread_mutex_lock(&fc__pinned.lock);
    if (fc__pinned_overlap(p, bytes) >= 0)
        rc = cudaErrorHostMemoryAlreadyRegistered;
    else if (fc__pinned.n == 1024)
        rc = cudaErrorMemoryAllocation;
    else
        fc__pinned.list[fc__pinned.n++] = (fc_pinned_t){p, bytes, allocated};
    pthread_mutex_unlock(&fc__pinned.lock);
    return rc;
}

/* Removes the range starting at p that was allocated (or registered): 1, else 0. */
static int fc__unpin(const void *p, int allocated)
{
    int found = 0;
    pthread_mutex_lock(&fc__pinned.lock);
    for (int i = 0; i < fc__pinned.n && !found; i++)
        if (fc__pinned.list[i].ptr == p && fc__pinned.list[i].allocated == allocated) {
            fc__pinned.list[i] = fc__pinned.list[--fc__pinned.n];
            found = 1;
        }
    pthread_mutex_unlock(&fc__pinned.lock);
    return found;
}

cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned flags)
{
    FC_API();
    if (ptr == NULL || bytes == 0 ||
        (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped |
                             cudaHostAllocWriteCombined)) != 0)
        return fc__ret(cudaErrorInvalidValue);
    *ptr = NULL;
    char *mem = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (mem == NULL)
        return fc__ret(cudaErrorMemoryAllocation);
    cudaError_t rc = fc__pin(mem, bytes, 1);
    if (rc != cudaSuccess) {
        free(mem);
        return fc__ret(rc);
    }
    *ptr = mem;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t bytes)
{
    fakecuda_count(__func__);
    return cudaHostAlloc(ptr, bytes, cudaHostAllocDefault);
}

cudaError_t cudaFreeHost(void *ptr)
{
    FC_API();
    if (ptr == NULL)
        return cudaSuccess;
    cudaDeviceSynchronize(); /* no copy in flight reads what goes */
    if (!fc__unpin(ptr, 1))
        return fc__ret(cudaErrorInvalidValue);
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t bytes, unsigned flags)
{
    FC_API();
    if (ptr == NULL || bytes == 0 ||
        (flags & ~(unsigned)(cudaHostRegisterPortable | cudaHostRegisterMapped |
                             cudaHostRegisterIoMemory | cudaHostRegisterReadOnly)) != 0)
        return fc__ret(cudaErrorInvalidValue);
    return fc__ret(fc__pin(ptr, bytes, 0));
}

cudaError_t cudaHostUnregister(void *ptr)
{
    FC_API();
    return fc__unpin(ptr, 0) ? cudaSuccess : fc__ret(cudaErrorHostMemoryNotRegistered);
}

/* ---- peer access ---- */

static struct {
    pthread_mutex_t lock;
    unsigned char enabled[FC__DEVICES][FC__DEVICES]; /* [from][to] */
} fc__peers = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int fc__can_reach(int a, int b)
{
    const char *none = getenv("FAKE_CUDA_NO_PEER");
    return a != b && fc__nvlink_GBps(a, b) > 0 && !(none != NULL && strcmp(none, "1") == 0);
}

cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer)
{
    FC_API();
    if (can == NULL)
        return fc__ret(cudaErrorInvalidValue);
    if (device < 0 || peer < 0 || device >= fc__devices() || peer >= fc__devices())
        return fc__ret(cudaErrorInvalidDevice);
    *can = fc__can_reach(device, peer);
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags)
{
    FC_API();
    int me = fc__device;
    if (flags != 0)
        return fc__ret(cudaErrorInvalidValue);
    if (peer < 0 || peer >= fc__devices() || peer == me)
        return fc__ret(cudaErrorInvalidDevice);
    if (!fc__can_reach(me, peer))
        return fc__ret(cudaErrorPeerAccessUnsupported);
    pthread_mutex_lock(&fc__peers.lock);
    int was = fc__peers.enabled[me & 63][peer & 63];
    fc__peers.enabled[me & 63][peer & 63] = 1;
    pthread_mutex_unlock(&fc__peers.lock);
    return was ? fc__ret(cudaErrorPeerAccessAlreadyEnabled) : cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer)
{
    FC_API();
    int me = fc__device;
    if (peer < 0 || peer >= fc__devices())
        return fc__ret(cudaErrorInvalidDevice);
    pthread_mutex_lock(&fc__peers.lock);
    int was = fc__peers.enabled[me & 63][peer & 63];
    fc__peers.enabled[me & 63][peer & 63] = 0;
    pthread_mutex_unlock(&fc__peers.lock);
    return was ? cudaSuccess : fc__ret(cudaErrorPeerAccessNotEnabled);
}

static int fc__peer_enabled(int from, int to)
{
    pthread_mutex_lock(&fc__peers.lock);
    int on = fc__peers.enabled[from & 63][to & 63];
    pthread_mutex_unlock(&fc__peers.lock);
    return on;
}

int fakecuda_peer_enabled(int from, int to)
{
    return fc__peer_enabled(from, to);
}

/* ---- modelled copies ---- */

typedef struct {
    fc_work_t base;
    void *dst;
    const void *src;
    size_t bytes;
    int engine_device; /* whose copy engine runs it: the stream's device's */
    cudaStream_t stream;
    fc_copy_model_t model;
} fc_model_copy_t;

void fakecuda_copy_model(void *dst, const void *src, size_t bytes, fc_copy_model_t *model)
{
    int d = fakecuda_device_of(dst, bytes), s = fakecuda_device_of(src, bytes);
    memset(model, 0, sizeof(*model));
    model->port = -1;
    const char *on = getenv("FAKE_CUDA_COPY_MODEL");
    if (on == NULL || strcmp(on, "1") != 0)
        return;
    if (d >= 0 && s >= 0 && d == s) { /* within a device: read and write */
        int khz = 0, bits = 0, slow_device = -1;
        double f = 1;
        cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, d);
        cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, d);
        const char *slow = getenv("FAKE_CUDA_HBM_SLOW");
        if (slow != NULL && sscanf(slow, "%d:%lf", &slow_device, &f) == 2 && slow_device != d)
            f = 1;
        double peak = (double)khz * 1e3 * 2.0 * bits / 8.0 / 1e9;
        model->GBps = peak * FC__HBM_EFFICIENCY * f / 2.0;
    } else if (d >= 0 && s >= 0) { /* between devices: NVLink, else through the host */
        int direct = fc__peer_enabled(s, d) || fc__peer_enabled(d, s);
        double nv = direct ? fc__nvlink_GBps(s, d) : 0;
        model->GBps = nv > 0 ? nv : fmin(fc__link(s)->pcie_GBps, fc__link(d)->pcie_GBps) / 2.0;
    } else if ((d >= 0 && fakecuda_is_pinned(src, bytes)) ||
               (s >= 0 && fakecuda_is_pinned(dst, bytes))) {
        int device = d >= 0 ? d : s;
        model->GBps = fc__link(device)->pcie_GBps;
        model->port = fc__links.port_of[device & (FC__DEVICES - 1)];
    }
}

/* One copy engine a device: its copies run one at a time (two directions at once move no
 * faster than one - what this emulated device declares, as a GPU with one engine would). */
static pthread_mutex_t fc__engine[FC__DEVICES];
static double fc__engine_free_ms[FC__DEVICES]; /* when its last copy let go of it (its lock's) */
static pthread_once_t fc__engine_once = PTHREAD_ONCE_INIT;

static void fc__engine_init(void)
{
    for (int d = 0; d < FC__DEVICES; d++)
        pthread_mutex_init(&fc__engine[d], NULL);
}

/* Until the host's clock reads end_ms (absolute, on the clock: no naps' drift). */
static void fc__sleep_until_ms(double end_ms)
{
    double end = end_ms * 1e-3;
    struct timespec until = {(time_t)end, (long)((end - (double)(time_t)end) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) != 0)
        ;
}

static void fc__model_copy_run(fc_work_t *w)
{
    fc_model_copy_t *c = (fc_model_copy_t *)w;
    if (c->model.GBps <= 0) { /* not modelled: the host's speed */
        memmove(c->dst, c->src, c->bytes);
        return;
    }
    pthread_once(&fc__engine_once, fc__engine_init);
    int dev = c->engine_device & (FC__DEVICES - 1);
    pthread_mutex_t *engine = &fc__engine[dev];
    pthread_mutex_lock(engine);
    double t0 = fc__now_ms();
    /* on the device a copy starts once it is enqueued, its stream's work before it ended and
     * the engine is free: the host's threads coming later (scheduled out on shared cores) is
     * not the device's time */
    double ready = fmax(fmax(c->base.enqueued_ms, c->stream->last_end_ms), fc__engine_free_ms[dev]);
    if (t0 > ready)
        c->stream->frozen_ms += t0 - ready;
    int sharing = 1;
    if (c->model.port >= 0)
        sharing = atomic_fetch_add(&fc__links.copying[c->model.port], 1) + 1;
    memmove(c->dst, c->src, c->bytes);
    double want = (double)c->bytes / (c->model.GBps / sharing * 1e9) * 1e3;
    if (fc__now_ms() - t0 < want)
        fc__sleep_until_ms(t0 + want);
    if (c->model.port >= 0)
        atomic_fetch_sub(&fc__links.copying[c->model.port], 1);
    double done = fc__now_ms();
    fc__engine_free_ms[dev] = done;
    pthread_mutex_unlock(engine);
    /* the host was slower than the device (its memmove, its own bookkeeping to here): the
     * stream's clock stops for the difference */
    if (done - t0 > want)
        c->stream->frozen_ms += done - t0 - want;
    c->stream->copy_done_ms = done; /* the stream's thread's way from here to its next work too */
}

double fakecuda_now_ms(void)
{
    return fc__now_ms();
}

/* Waits for the rest of want_ms where the host was quicker; where it was slower and freeze, the
 * stream's clock stops for the difference and for the host's lateness in starting. */
static void fc__stream_timed(cudaStream_t stream, double ready_ms, double t0_ms, double want_ms,
                             bool freeze)
{
    if (want_ms <= 0)
        return;
    double now = fc__now_ms();
    if (now - t0_ms < want_ms) {
        fc__sleep_until_ms(t0_ms + want_ms);
        now = t0_ms + want_ms;
    }
    cudaStream_t s = freeze ? fc__stream_of(stream) : NULL;
    if (s == NULL)
        return;
    double ready = fmax(ready_ms, s->last_end_ms);
    s->frozen_ms += now - t0_ms - want_ms + (t0_ms > ready ? t0_ms - ready : 0);
    /* from the model's end (a sleep overshoots it) the thread's way to its next work is not the
     * device's time */
    s->copy_done_ms = now;
}

void fakecuda_stream_modelled(cudaStream_t stream, double ready_ms, double t0_ms, double want_ms)
{
    const char *on = getenv("FAKE_CUDA_COPY_MODEL");
    fc__stream_timed(stream, ready_ms, t0_ms, want_ms, on != NULL && strcmp(on, "1") == 0);
}

void fakecuda_stream_rated(cudaStream_t stream, double ready_ms, double t0_ms, double want_ms)
{
    fc__stream_timed(stream, ready_ms, t0_ms, want_ms, true);
}

cudaError_t fakecuda_enqueue_model_copy(void *dst, const void *src, size_t bytes,
                                        const fc_copy_model_t *model, cudaStream_t stream)
{
    cudaStream_t s = fc__stream_of(stream);
    fc_model_copy_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return fc__ret(cudaErrorMemoryAllocation);
    c->base = (fc_work_t){.run = fc__model_copy_run, .destroy = fc__free_work, .what = "memcpy"};
    atomic_init(&c->base.refs, 1);
    c->dst = dst;
    c->src = src;
    c->bytes = bytes;
    c->engine_device = s != NULL ? s->device : fc__device;
    c->stream = s;
    c->model = *model;
    return fakecuda_enqueue(stream, &c->base);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device,
                                size_t bytes, cudaStream_t stream)
{
    FC_API();
    if (dst_device < 0 || src_device < 0 || dst_device >= fc__devices() ||
        src_device >= fc__devices())
        return fc__ret(cudaErrorInvalidDevice);
    if (bytes == 0)
        return cudaSuccess;
    if (fakecuda_device_of(dst, bytes) != dst_device ||
        fakecuda_device_of(src, bytes) != src_device)
        return fc__ret(cudaErrorInvalidValue);
    fc_copy_model_t model;
    fakecuda_copy_model(dst, src, bytes, &model);
    return fakecuda_enqueue_model_copy(dst, src, bytes, &model, stream);
}

cudaError_t cudaMemcpyPeer(void *dst, int dst_device, const void *src, int src_device, size_t bytes)
{
    fakecuda_count(__func__);
    cudaError_t rc = cudaMemcpyPeerAsync(dst, dst_device, src, src_device, bytes, NULL);
    if (rc == cudaSuccess)
        fc__stream_wait_idle(fc__stream_of(NULL));
    return rc;
}
