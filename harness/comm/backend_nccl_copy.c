/* backend_nccl_copy.c - the copies inside one node (ops->copies, sc_copy_row_t), the way
 * nvbandwidth measures them: copies back to back on a stream, timed by the device's events.
 * Host memory is pinned (cudaHostAlloc: pageable memory goes through a staging buffer and
 * measures the driver, not the link), one buffer per device, where the calling thread's memory
 * policy places it (the caller binds it to a NUMA node). Peer copies go by copy engine
 * (cudaMemcpyPeerAsync) with peer access enabled where the pair allows it, and left as found,
 * and by the SMs (sc_cuda_copy.h) of the GPU that reads and of the one that writes. */
#include <stdlib.h>
#include <string.h>

#include "comm/backend_nccl.h"
#include "comm/sc_cuda_copy.h"

#define COPY__DEVICES 16
#define COPY__REPEATS 3 /* each measurement's best kept */

typedef struct {
    int n; /* devices */
    void *dev[COPY__DEVICES][2];
    void *host[COPY__DEVICES];
    cudaStream_t stream[COPY__DEVICES];
    cudaEvent_t ev[COPY__DEVICES][2]; /* start, stop */
    char bus[COPY__DEVICES][16];
    int sms[COPY__DEVICES];                     /* each device's multiprocessors */
    bool enabled[COPY__DEVICES][COPY__DEVICES]; /* peer access this run enabled */
    size_t bytes;
    int trials;
    bool pcie_alone;
} copy__set_t;

/* Every device's buffers, streams and events; the first failure named. */
static sc_status_t copy__open(nccl__comm_t *c, copy__set_t *s, sc_err_t *err)
{
    cudaError_t rc = cudaGetDeviceCount(&s->n);
    s->n = rc == cudaSuccess ? (s->n < COPY__DEVICES ? s->n : COPY__DEVICES) : 0;
    for (int d = 0; d < s->n && rc == cudaSuccess; d++) {
        rc = cudaSetDevice(d);
        if (rc == cudaSuccess)
            rc = cudaDeviceGetPCIBusId(s->bus[d], (int)sizeof(s->bus[d]), d);
        if (rc == cudaSuccess)
            rc = cudaDeviceGetAttribute(&s->sms[d], cudaDevAttrMultiProcessorCount, d);
        for (int i = 0; i < 2 && rc == cudaSuccess; i++)
            rc = cudaMalloc(&s->dev[d][i], s->bytes);
        if (rc == cudaSuccess)
            rc = cudaHostAlloc(&s->host[d], s->bytes, cudaHostAllocPortable);
        if (rc == cudaSuccess)
            rc = cudaStreamCreateWithFlags(&s->stream[d], cudaStreamNonBlocking);
        for (int i = 0; i < 2 && rc == cudaSuccess; i++)
            rc = cudaEventCreate(&s->ev[d][i]);
        /* written once: a copy never reads memory nobody wrote */
        if (rc == cudaSuccess)
            memset(s->host[d], 0x5a, s->bytes);
        for (int i = 0; i < 2 && rc == cudaSuccess; i++)
            rc = cudaMemset(s->dev[d][i], 0x3c, s->bytes);
    }
    if (rc == cudaSuccess)
        rc = cudaSetDevice(c->device);
    return nccl__cuda(c, rc, "setting up the copies inside the node", err);
}

static void copy__close(nccl__comm_t *c, copy__set_t *s)
{
    for (int d = 0; d < s->n; d++) {
        cudaSetDevice(d);
        cudaDeviceSynchronize();
        for (int p = 0; p < s->n; p++)
            if (s->enabled[d][p])
                cudaDeviceDisablePeerAccess(p);
        for (int i = 0; i < 2; i++) {
            if (s->ev[d][i] != NULL)
                cudaEventDestroy(s->ev[d][i]);
            if (s->dev[d][i] != NULL)
                cudaFree(s->dev[d][i]);
        }
        if (s->stream[d] != NULL)
            cudaStreamDestroy(s->stream[d]);
        if (s->host[d] != NULL)
            cudaFreeHost(s->host[d]);
    }
    cudaSetDevice(c->device);
}

/* A measurement: copies on one device's stream, by its copy engine or its SMs. */
typedef struct {
    int d;
    void *dst;
    const void *src;
    int dst_dev, src_dev;
    sc_copy_by_t by;
} copy__job_t;

/* One copy: by device d's SMs, between devices by cudaMemcpyPeerAsync, else as the pointers
 * say. */
static cudaError_t copy__one(const copy__set_t *s, const copy__job_t *j, cudaStream_t st)
{
    void *dst = j->dst;
    const void *src = j->src;
    int dst_dev = j->dst_dev, src_dev = j->src_dev;
    if (j->by != SC_COPY_BY_CE)
#if SC_GPU_HAS_KERNELS
        return sc_cuda_copy_sm(dst, src, s->bytes, s->sms[j->d], st);
#else
        return cudaErrorNotSupported; /* never asked: copy__peers_sm needs kernels */
#endif
    if (dst_dev >= 0 && src_dev >= 0 && dst_dev != src_dev)
        return cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, s->bytes, st);
    return cudaMemcpyAsync(dst, src, s->bytes, cudaMemcpyDefault, st);
}

/* One measurement's copies on device d's stream: trials copies of src to dst between its two
 * events, after one untimed (the path set up: mappings, the engine woken - as nvbandwidth). */
static cudaError_t copy__enqueue(copy__set_t *s, const copy__job_t *j)
{
    int d = j->d;
    cudaStream_t st = s->stream[d];
    cudaError_t rc = cudaSetDevice(d);
    if (rc == cudaSuccess)
        rc = copy__one(s, j, st);
    if (rc == cudaSuccess)
        rc = cudaEventRecord(s->ev[d][0], st);
    for (int t = 0; t < s->trials && rc == cudaSuccess; t++)
        rc = copy__one(s, j, st);
    if (rc == cudaSuccess)
        rc = cudaEventRecord(s->ev[d][1], st);
    return rc;
}

/* Device d's measurement's span, in ms. */
static cudaError_t copy__span(copy__set_t *s, int d, double *ms)
{
    float elapsed = 0;
    cudaError_t rc = cudaEventSynchronize(s->ev[d][1]);
    if (rc == cudaSuccess)
        rc = cudaEventElapsedTime(&elapsed, s->ev[d][0], s->ev[d][1]);
    *ms = elapsed;
    return rc;
}

static sc_copy_row_t *copy__row(sc_copy_row_t *rows, int max, int *n, sc_copy_kind_t kind,
                                const copy__set_t *s, int src, int dst)
{
    if (*n >= max)
        return NULL;
    sc_copy_row_t *r = &rows[(*n)++];
    memset(r, 0, sizeof(*r));
    r->kind = kind;
    r->src = src;
    r->dst = dst;
    snprintf(r->src_bus, sizeof(r->src_bus), "%s", src >= 0 ? s->bus[src] : "");
    snprintf(r->dst_bus, sizeof(r->dst_bus), "%s", dst >= 0 ? s->bus[dst] : "");
    return r;
}

static double copy__GBps(const copy__set_t *s, double ms, int ways)
{
    return ms > 0 ? (double)s->bytes * s->trials * ways / (ms * 1e-3) / 1e9 : 0;
}

static copy__job_t copy__job(int d, void *dst, int dst_dev, const void *src, int src_dev)
{
    return (copy__job_t){.d = d, .dst = dst, .src = src, .dst_dev = dst_dev, .src_dev = src_dev};
}

/* Runs the jobs (all started before any is waited for: at once) COPY__REPEATS times; each one's
 * shortest span into ms (a copy never beats its path; a host's hiccup only slows one). */
static cudaError_t copy__best(copy__set_t *s, const copy__job_t *jobs, int n, double *ms)
{
    cudaError_t rc = cudaSuccess;
    for (int rep = 0; rep < COPY__REPEATS && rc == cudaSuccess; rep++) {
        for (int i = 0; i < n && rc == cudaSuccess; i++)
            rc = copy__enqueue(s, &jobs[i]);
        for (int i = 0; i < n && rc == cudaSuccess; i++) {
            double t = 0;
            rc = copy__span(s, jobs[i].d, &t);
            ms[i] = rep == 0 || t < ms[i] ? t : ms[i];
        }
    }
    return rc;
}

/* Host to device (or back) on each device alone, then on all at once. */
static cudaError_t copy__pcie(copy__set_t *s, sc_copy_kind_t kind, sc_copy_row_t *rows, int max,
                              int *n)
{
    bool up = kind == SC_COPY_H2D;
    copy__job_t jobs[COPY__DEVICES];
    double ms[COPY__DEVICES];
    for (int d = 0; d < s->n; d++)
        jobs[d] = up ? copy__job(d, s->dev[d][0], d, s->host[d], -1)
                     : copy__job(d, s->host[d], -1, s->dev[d][0], d);
    cudaError_t rc = cudaSuccess;
    for (int d = 0; d < s->n && rc == cudaSuccess; d++)
        rc = copy__best(s, &jobs[d], 1, &ms[d]);
    for (int together = 0; together < (s->pcie_alone ? 1 : 2) && rc == cudaSuccess; together++) {
        if (together)
            rc = copy__best(s, jobs, s->n, ms);
        for (int d = 0; d < s->n && rc == cudaSuccess; d++) {
            sc_copy_row_t *r = copy__row(rows, max, n, kind, s, up ? -1 : d, up ? d : -1);
            if (r != NULL) {
                r->together = together;
                r->GBps = copy__GBps(s, ms[d], 1);
            }
        }
    }
    return rc;
}

/* Each device's own memory: a copy within it reads and writes every byte. */
static cudaError_t copy__hbm(copy__set_t *s, sc_copy_row_t *rows, int max, int *n)
{
    cudaError_t rc = cudaSuccess;
    for (int d = 0; d < s->n && rc == cudaSuccess; d++) {
        int khz = 0, bits = 0;
        double ms = 0;
        copy__job_t job = copy__job(d, s->dev[d][1], d, s->dev[d][0], d);
        rc = copy__best(s, &job, 1, &ms);
        if (rc == cudaSuccess)
            rc = cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, d);
        if (rc == cudaSuccess)
            rc = cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, d);
        sc_copy_row_t *r = copy__row(rows, max, n, SC_COPY_HBM, s, d, d);
        if (r != NULL) {
            r->GBps = copy__GBps(s, ms, 2);
            r->peak_GBps = (double)khz * 1e3 * 2.0 * bits / 8.0 / 1e9; /* double data rate */
        }
    }
    return rc;
}

/* Peer access from a to b where the pair allows it (left enabled until copy__close). */
static cudaError_t copy__enable(copy__set_t *s, int a, int b, bool *direct)
{
    int can = 0;
    cudaError_t rc = cudaDeviceCanAccessPeer(&can, a, b);
    *direct = rc == cudaSuccess && can;
    if (rc != cudaSuccess || !can || s->enabled[a][b])
        return rc;
    rc = cudaSetDevice(a);
    if (rc == cudaSuccess)
        rc = cudaDeviceEnablePeerAccess(b, 0);
    if (rc == cudaErrorPeerAccessAlreadyEnabled) { /* someone else's: left as found */
        cudaGetLastError();
        return cudaSuccess;
    }
    s->enabled[a][b] = rc == cudaSuccess;
    return rc;
}

/* Every ordered pair one way (a's copy engine writes to b), then every pair both ways at once
 * (a writes to b while b writes to a, each timed on its own device: the sum of the two). */
static cudaError_t copy__peers(copy__set_t *s, sc_copy_row_t *rows, int max, int *n)
{
    cudaError_t rc = cudaSuccess;
    for (int both = 0; both < 2 && rc == cudaSuccess; both++)
        for (int a = 0; a < s->n && rc == cudaSuccess; a++)
            for (int b = both ? a + 1 : 0; b < s->n && rc == cudaSuccess; b++) {
                bool direct = false, back = false;
                double ms[2] = {0, 0};
                if (a == b)
                    continue;
                rc = copy__enable(s, a, b, &direct);
                if (rc == cudaSuccess)
                    rc = copy__enable(s, b, a, &back);
                if (rc == cudaSuccess) {
                    copy__job_t jobs[2] = {copy__job(a, s->dev[b][0], b, s->dev[a][0], a),
                                           copy__job(b, s->dev[a][1], a, s->dev[b][1], b)};
                    rc = copy__best(s, jobs, both ? 2 : 1, ms);
                }
                sc_copy_row_t *r = copy__row(rows, max, n, SC_COPY_PEER, s, a, b);
                if (r != NULL) {
                    r->together = both;
                    r->direct = direct && (!both || back);
                    r->GBps = copy__GBps(s, ms[0], 1) + (both ? copy__GBps(s, ms[1], 1) : 0);
                }
            }
    return rc;
}

/* Every ordered pair with peer access by the SMs, one way: a kernel on the destination GPU
 * reading the source's memory, then one on the source GPU writing into the destination's (as
 * nvbandwidth's device_to_device_memcpy_read_sm and _write_sm). */
static cudaError_t copy__peers_sm(copy__set_t *s, sc_copy_row_t *rows, int max, int *n)
{
    cudaError_t rc = cudaSuccess;
    for (int by = SC_COPY_BY_SM_READ; by <= SC_COPY_BY_SM_WRITE && rc == cudaSuccess; by++)
        for (int a = 0; a < s->n && rc == cudaSuccess; a++)
            for (int b = 0; b < s->n && rc == cudaSuccess; b++) {
                bool read = by == SC_COPY_BY_SM_READ, direct = false;
                int runs_on = read ? b : a, reaches = read ? a : b;
                if (a == b)
                    continue;
                rc = copy__enable(s, runs_on, reaches, &direct);
                if (rc != cudaSuccess || !direct)
                    continue; /* no peer access: an SM cannot reach the other GPU's memory */
                copy__job_t job = copy__job(runs_on, s->dev[b][0], b, s->dev[a][0], a);
                job.by = (sc_copy_by_t)by;
                double ms = 0;
                rc = copy__best(s, &job, 1, &ms);
                sc_copy_row_t *r = copy__row(rows, max, n, SC_COPY_PEER, s, a, b);
                if (r != NULL) {
                    r->direct = true;
                    r->by = (sc_copy_by_t)by;
                    r->GBps = copy__GBps(s, ms, 1);
                }
            }
    return rc;
}

sc_status_t sc_nccl_copies(sc_comm_t *comm, const sc_copy_opts_t *o, sc_copy_row_t *rows, int max,
                           int *n, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    copy__set_t *s = calloc(1, sizeof(*s));
    *n = 0;
    if (s == NULL)
        return nccl__fail(c, SC_ERR_NOMEM, "the copies inside the node", "no memory", err);
    s->bytes = o->bytes;
    s->trials = o->trials > 0 ? o->trials : 1;
    s->pcie_alone = o->pcie_alone;
    sc_status_t status = copy__open(c, s, err);
    cudaError_t rc = cudaSuccess;
    if (status == SC_OK)
        rc = copy__pcie(s, SC_COPY_H2D, rows, max, n);
    if (status == SC_OK && rc == cudaSuccess)
        rc = copy__pcie(s, SC_COPY_D2H, rows, max, n);
    if (status == SC_OK && rc == cudaSuccess && !s->pcie_alone)
        rc = copy__hbm(s, rows, max, n);
    if (status == SC_OK && rc == cudaSuccess && !s->pcie_alone)
        rc = copy__peers(s, rows, max, n);
    /* the SMs' own copies are a kernel: a module built without kernels measures the engines */
    if (status == SC_OK && rc == cudaSuccess && !s->pcie_alone && SC_GPU_HAS_KERNELS)
        rc = copy__peers_sm(s, rows, max, n);
    if (status == SC_OK)
        status = nccl__cuda(c, rc, "copying inside the node", err);
    copy__close(c, s);
    free(s);
    return status;
}
