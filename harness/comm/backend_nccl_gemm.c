/* backend_nccl_gemm.c - the NCCL backend's matrix products, all through cuBLAS: the timed square
 * products of `compute --mode gemm`, a layer's products as the step's compute phase (on the
 * compute stream, so that they overlap the communication stream as training's do), the
 * silent-data-corruption check, and the burn that keeps a GPU at full load on a thread and
 * stream of its own (`soak --load burn`). */
#include <cublas_v2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "comm/backend_nccl.h"
#include "compute/sc_compute_cuda.h"
#include "util/sc_clock.h"

/* The burn's thread and what it runs on. */
typedef struct {
    pthread_t thread;
    bool running;
    atomic_int stop;
    int device;
    cudaStream_t stream;
    cublasHandle_t handle;
    void *a, *b, *c, *stream_buf;
    sc_burn_spec_t spec;
    long long products, copies;
    uint64_t started_ns, stopped_ns;
    char why[256]; /* the first failure, "" none */
} nccl__burn_t;

struct sc_nccl_compute {
    cublasHandle_t handle; /* the compute stream's */
    void *arena;           /* a layer's products' matrices */
    size_t arena_bytes;
    nccl__burn_t burn;
};

static sc_nccl_compute_t *nccl__compute(nccl__comm_t *c)
{
    if (c->compute == NULL)
        c->compute = calloc(1, sizeof(*c->compute));
    return c->compute;
}

static sc_status_t nccl__blas(const nccl__comm_t *c, int rc, const char *what, sc_err_t *err)
{
    char detail[96];
    snprintf(detail, sizeof(detail), "cuBLAS status %d", rc);
    return rc == 0 ? SC_OK : nccl__fail(c, SC_ERR_RUNTIME, what, detail, err);
}

/* The compute stream's handle, made on first use. */
static sc_status_t nccl__handle(nccl__comm_t *c, sc_nccl_compute_t *k, sc_err_t *err)
{
    if (k->handle != NULL)
        return SC_OK;
    sc_status_t status = nccl__blas(c, cublasCreate(&k->handle), "cublasCreate", err);
    if (status == SC_OK)
        status =
            nccl__blas(c, cublasSetStream(k->handle, c->compute_stream), "cublasSetStream", err);
    return status;
}

/* Elements of A, B and C of one shape at scale (the batch's); its dimensions into d. */
static size_t nccl__shape_elems(const sc_gemm_shape_t *s, double scale, long long d[4])
{
    sc_gemm_shape_at(s, scale, d);
    return (size_t)((d[0] * d[2] + d[2] * d[1] + d[0] * d[1]) * d[3]);
}

/* The arena holds the set's largest product, filled with values (zeros would let the tensor
 * cores skip work). Grown only when a larger set comes: a backward's products are its forward's
 * transposed, the same size. */
static sc_status_t nccl__arena(nccl__comm_t *c, sc_nccl_compute_t *k, const sc_gemm_set_t *set,
                               double scale, sc_err_t *err)
{
    size_t need = 0, es = sc_gemm_type_size(set->type);
    long long d[4];
    for (int i = 0; i < set->n; i++) {
        size_t e = nccl__shape_elems(&set->items[i], scale, d);
        need = e > need ? e : need;
    }
    if (need * es <= k->arena_bytes)
        return SC_OK;
    cudaFree(k->arena);
    k->arena = NULL;
    k->arena_bytes = 0;
    sc_status_t status =
        nccl__cuda(c, cudaMalloc(&k->arena, need * es), "cudaMalloc(the layer's matrices)", err);
    if (status == SC_OK)
        status = nccl__cuda(c, sc_cuda_fill(k->arena, need, (int)set->type, c->compute_stream),
                            "filling the layer's matrices", err);
    if (status == SC_OK)
        k->arena_bytes = need * es;
    return status;
}

static sc_status_t nccl__run_set(sc_comm_t *comm, const sc_gemm_set_t *set, double scale,
                                 double *measured_us, double *flops, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_nccl_compute_t *k = nccl__compute(c);
    *measured_us = *flops = 0;
    if (k == NULL)
        return nccl__fail(c, SC_ERR_NOMEM, "compute phase", "no memory", err);
    sc_status_t status = nccl__handle(c, k, err);
    if (status == SC_OK)
        status = nccl__arena(c, k, set, scale, err);
    if (status == SC_OK)
        status = sc_nccl_compute_begin(c, err);
    size_t es = sc_gemm_type_size(set->type);
    for (int i = 0; i < set->n && status == SC_OK; i++) {
        long long d[4];
        double ran = sc_gemm_shape_at(&set->items[i], scale, d);
        char *a = k->arena, *b = a + (size_t)(d[0] * d[2] * d[3]) * es,
             *out = b + (size_t)(d[2] * d[1] * d[3]) * es;
        status = nccl__blas(
            c, sc_cuda_gemm_batched(k->handle, (int)set->type, d[0], d[1], d[2], d[3], a, b, out),
            set->items[i].name, err);
        *flops += ran;
    }
    return sc_nccl_compute_end(c, status, measured_us, err);
}

/* compute --mode gemm: one product of the spec's shape as the step's compute phase runs it
 * (nccl__run_set, on the compute stream, timed by its events), once to warm up, then iters
 * times, their device time summed. */
static sc_status_t nccl__compute_gemm(sc_comm_t *comm, const sc_gemm_spec_t *spec,
                                      sc_gemm_result_t *result, sc_err_t *err)
{
    sc_gemm_set_t one = {.type = spec->type};
    sc_gemm_set_add(&one, "matrix multiply", spec->m, spec->n, spec->k, 1);
    double us = 0, flops = 0, total_us = 0;
    sc_status_t status = nccl__run_set(comm, &one, 1.0, &us, &flops, err);
    for (int i = 0; i < spec->iters && status == SC_OK; i++) {
        status = nccl__run_set(comm, &one, 1.0, &us, &flops, err);
        total_us += us;
    }
    result->seconds = total_us * 1e-6;
    double total_flops = 2.0 * spec->m * spec->n * (double)spec->k * spec->iters;
    result->tflops = result->seconds > 0 ? total_flops / result->seconds / 1e12 : 0.0;
    return status;
}

/* ---- the corruption check ---- */

static sc_status_t nccl__check(sc_comm_t *comm, sc_gemm_type_t type, int size, sc_gemm_check_t *out,
                               sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_nccl_compute_t *k = nccl__compute(c);
    size_t n2 = (size_t)size * (size_t)size, bytes = n2 * sc_gemm_type_size(type);
    void *d = NULL;
    char *host = malloc(3 * bytes);
    sc_status_t status = k == NULL || host == NULL
                             ? nccl__fail(c, SC_ERR_NOMEM, "corruption check", "no memory", err)
                             : nccl__handle(c, k, err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaMalloc(&d, 3 * bytes), "cudaMalloc(check)", err);
    cudaStream_t cs = c->compute_stream;
    if (status == SC_OK) /* A and B from one fill: the same values on every GPU */
        status = nccl__cuda(c, sc_cuda_fill(d, 2 * n2, (int)type, cs), "filling the check", err);
    if (status == SC_OK) {
        char *a = d, *b = a + bytes, *r = b + bytes;
        status =
            nccl__blas(c, sc_cuda_gemm_batched(k->handle, (int)type, size, size, size, 1, a, b, r),
                       "the check's product", err);
    }
    if (status == SC_OK)
        status = nccl__cuda(c, cudaMemcpyAsync(host, d, 3 * bytes, cudaMemcpyDeviceToHost, cs),
                            "cudaMemcpyAsync(check)", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaStreamSynchronize(cs), "corruption check", err);
    if (status == SC_OK)
        sc_gemm_check_sample(type, size, host, host + bytes, host + 2 * bytes, out);
    cudaFree(d);
    free(host);
    return status;
}

/* ---- the burn ---- */

static void *nccl__burn_main(void *arg)
{
    nccl__burn_t *b = arg;
    size_t half = (size_t)(b->spec.stream_bytes / 2);
    cudaError_t rc = cudaSetDevice(b->device);
    while (rc == cudaSuccess && b->why[0] == '\0' && !atomic_load(&b->stop)) {
        for (int i = 0; i < 4 && b->why[0] == '\0'; i++) {
            int s = sc_cuda_gemm_batched(b->handle, (int)b->spec.type, b->spec.size, b->spec.size,
                                         b->spec.size, 1, b->a, b->b, b->c);
            if (s != 0)
                snprintf(b->why, sizeof(b->why), "the burn's product: cuBLAS status %d", s);
            else
                b->products++;
        }
        if (half > 0 && b->why[0] == '\0') {
            rc = cudaMemcpyAsync((char *)b->stream_buf + half, b->stream_buf, half,
                                 cudaMemcpyDeviceToDevice, b->stream);
            b->copies += rc == cudaSuccess;
        }
        if (rc == cudaSuccess)
            rc = cudaStreamSynchronize(b->stream);
    }
    if (rc != cudaSuccess && b->why[0] == '\0')
        snprintf(b->why, sizeof(b->why), "the burn: %s", cudaGetErrorString(rc));
    b->stopped_ns = sc_clock_ns();
    return NULL;
}

static void nccl__burn_release(nccl__burn_t *b)
{
    cudaFree(b->a);
    cudaFree(b->stream_buf);
    if (b->handle != NULL)
        cublasDestroy(b->handle);
    if (b->stream != NULL)
        cudaStreamDestroy(b->stream);
    memset(b, 0, sizeof(*b));
}

static sc_status_t nccl__burn_start(sc_comm_t *comm, const sc_burn_spec_t *spec, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    sc_nccl_compute_t *k = nccl__compute(c);
    if (k == NULL || k->burn.running)
        return nccl__fail(c, k == NULL ? SC_ERR_NOMEM : SC_ERR_RUNTIME, "burn",
                          k == NULL ? "no memory" : "already burning", err);
    nccl__burn_t *b = &k->burn;
    memset(b, 0, sizeof(*b));
    b->spec = *spec;
    b->device = c->device;
    size_t n2 = (size_t)spec->size * (size_t)spec->size, es = sc_gemm_type_size(spec->type);
    sc_status_t status = nccl__cuda(c, cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking),
                                    "cudaStreamCreate", err);
    if (status == SC_OK)
        status = nccl__blas(c, cublasCreate(&b->handle), "cublasCreate", err);
    if (status == SC_OK)
        status = nccl__blas(c, cublasSetStream(b->handle, b->stream), "cublasSetStream", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaMalloc(&b->a, 3 * n2 * es), "cudaMalloc(burn)", err);
    if (status == SC_OK && spec->stream_bytes >= 2)
        status = nccl__cuda(c, cudaMalloc(&b->stream_buf, (size_t)spec->stream_bytes),
                            "cudaMalloc(burn's memory stream)", err);
    if (status == SC_OK)
        status = nccl__cuda(c, sc_cuda_fill(b->a, 3 * n2, (int)spec->type, b->stream),
                            "filling the burn's matrices", err);
    if (status == SC_OK) {
        b->b = (char *)b->a + n2 * es;
        b->c = (char *)b->b + n2 * es;
    }
    b->started_ns = sc_clock_ns();
    if (status == SC_OK && pthread_create(&b->thread, NULL, nccl__burn_main, b) != 0)
        status = nccl__fail(c, SC_ERR_RUNTIME, "burn", "cannot start its thread", err);
    if (status == SC_OK)
        b->running = true;
    else
        nccl__burn_release(b);
    return status;
}

static sc_status_t nccl__burn_stop(sc_comm_t *comm, sc_burn_result_t *out, sc_err_t *err)
{
    nccl__comm_t *c = nccl__of(comm);
    memset(out, 0, sizeof(*out));
    nccl__burn_t *b = c->compute != NULL ? &c->compute->burn : NULL;
    if (b == NULL || !b->running)
        return SC_OK;
    atomic_store(&b->stop, 1);
    pthread_join(b->thread, NULL); /* it ends after the products in flight */
    double s = (double)(b->stopped_ns - b->started_ns) * 1e-9, n = (double)b->spec.size;
    out->seconds = s;
    out->products = b->products;
    out->tflops = s > 0 ? 2.0 * n * n * n * (double)b->products / s / 1e12 : 0;
    /* a device copy reads and writes each byte */
    out->memory_GBps = s > 0 ? (double)b->copies * b->spec.stream_bytes / s / 1e9 : 0;
    sc_status_t status = b->why[0] ? nccl__fail(c, SC_ERR_RUNTIME, "burn", b->why, err) : SC_OK;
    nccl__burn_release(b);
    return status;
}

void sc_nccl_compute_free(nccl__comm_t *c)
{
    sc_nccl_compute_t *k = c->compute;
    if (k == NULL)
        return;
    if (k->burn.running) {
        sc_burn_result_t ignored;
        sc_err_t none;
        nccl__burn_stop(&c->base, &ignored, &none);
    }
    cudaFree(k->arena);
    if (k->handle != NULL)
        cublasDestroy(k->handle);
    free(k);
    c->compute = NULL;
}

const sc_gemm_ops_t sc_nccl_gemm = {nccl__compute_gemm, nccl__run_set, nccl__check};
const sc_burn_ops_t sc_nccl_burn = {nccl__burn_start, nccl__burn_stop};
