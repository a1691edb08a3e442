/* fake_cublas.c - an emulated cuBLAS (soname libcublas.so.13) for the emulated device: the GEMMs
 * the plugin runs (cublasGemmEx and cublasGemmStridedBatchedEx, column-major, no transposes) are
 * computed on the host, on the handle's stream, so their results and device time are real.
 * Arguments are checked as cuBLAS documents them: leading dimensions at least the rows stored,
 * the batch not negative, the compute type one the data type allows (the cublasGemmEx table),
 * every matrix inside device memory (else CUBLAS_STATUS_INVALID_VALUE or _NOT_SUPPORTED).
 * Faults and figures, by environment:
 * - FAKE_CUBLAS_TFLOPS=R: a product lasts its FLOPs at R TFLOP/s (the device's speed): the host
 *   sleeps the rest where it was quicker, the stream's clock stops where it was slower (events
 *   time the stated speed, not two shared cores');
 * - FAKE_CUBLAS_SLOW=D:F: on device D products take F times as long (a slow GPU);
 * - FAKE_CUBLAS_CORRUPT=D[:I]: on device D element I (default 0) of every result is off by one
 *   (silent data corruption);
 * - FAKE_CUBLAS_FAIL=1: every GEMM fails;
 * - FAKE_GPU_CALLS=DIR: the products run, counted by type and shape, in DIR/gemms-PID.txt;
 * - FAKE_GPU_LOAD: the wall time each product holds its device counts as the device busy
 *   (fake_load.h): what NVML's sampled load and clocks see. */
#include <cublas_v2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/sc_check_core.h"
#include "fake_gpu.h"
#include "fake_load.h"

struct cublasContext {
    cudaStream_t stream;
};

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    fakecuda_count(__func__);
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *handle = calloc(1, sizeof(**handle));
    return *handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    fakecuda_count(__func__);
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    fakecuda_count(__func__);
    if (handle == NULL)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- the products run, by shape (FAKE_GPU_CALLS) ---- */

static struct {
    pthread_mutex_t lock;
    struct {
        const char *type;
        long long m, n, k, batch;
        unsigned long count;
    } shape[512];
    int n;
} fb__shapes = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void fb__count_shape(const char *type, long long m, long long n, long long k,
                            long long batch)
{
    pthread_mutex_lock(&fb__shapes.lock);
    int i = 0;
    while (i < fb__shapes.n && !(strcmp(fb__shapes.shape[i].type, type) == 0 &&
                                 fb__shapes.shape[i].m == m && fb__shapes.shape[i].n == n &&
                                 fb__shapes.shape[i].k == k && fb__shapes.shape[i].batch == batch))
        i++;
    if (i == fb__shapes.n && i < 512) {
        fb__shapes.shape[i].type = type;
        fb__shapes.shape[i].m = m;
        fb__shapes.shape[i].n = n;
        fb__shapes.shape[i].k = k;
        fb__shapes.shape[i].batch = batch;
        fb__shapes.n++;
    }
    if (i < 512)
        fb__shapes.shape[i].count++;
    pthread_mutex_unlock(&fb__shapes.lock);
}

__attribute__((destructor)) static void fb__write_shapes(void)
{
    const char *dir = getenv("FAKE_GPU_CALLS");
    if (dir == NULL || dir[0] == '\0' || fb__shapes.n == 0)
        return;
    char path[4096];
    snprintf(path, sizeof(path), "%s/gemms-%d.txt", dir, (int)getpid());
    FILE *out = fopen(path, "w");
    for (int i = 0; out != NULL && i < fb__shapes.n; i++)
        fprintf(out, "%s %lld %lld %lld %lld %lu\n", fb__shapes.shape[i].type,
                fb__shapes.shape[i].m, fb__shapes.shape[i].n, fb__shapes.shape[i].k,
                fb__shapes.shape[i].batch, fb__shapes.shape[i].count);
    if (out != NULL)
        fclose(out);
}

/* ---- the arguments, as cuBLAS documents them ---- */

/* The element type of cudaDataType dt (SC_DTYPE_COUNT: not one the plugin's products use). */
static sc_dtype_t fb__dtype(cudaDataType dt)
{
    return dt == CUDA_R_16F    ? SC_DTYPE_fp16
           : dt == CUDA_R_16BF ? SC_DTYPE_bf16
           : dt == CUDA_R_32F  ? SC_DTYPE_float
                               : SC_DTYPE_COUNT;
}

/* The math a product runs in, by cublasGemmEx's table of data and compute types ("fp32",
 * "tf32", "fp16", "bf16"), or NULL where the table has no such row. Scalars are float: the
 * 16F compute types, which take half scalars, are refused as the plugin never asks for them. */
static const char *fb__math(cudaDataType ab, cudaDataType c, cublasComputeType_t compute)
{
    if (ab != c)
        return NULL; /* the table's mixed rows (16F in, 32F out) are not the plugin's */
    switch (compute) {
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
        return ab == CUDA_R_32F    ? "fp32"
               : ab == CUDA_R_16F  ? "fp16"
               : ab == CUDA_R_16BF ? "bf16"
                                   : NULL;
    case CUBLAS_COMPUTE_32F_FAST_TF32:
        return ab == CUDA_R_32F ? "tf32" : NULL;
    default:
        return NULL;
    }
}

typedef struct {
    fc_work_t base;
    const char *a, *b;
    char *c;
    long long m, n, k, batch, stride_a, stride_b, stride_c;
    int lda, ldb, ldc;
    sc_dtype_t type;
    float alpha, beta;
    int device;
    cudaStream_t stream;
    double rate_s;   /* its FLOPs at the stated speed (FAKE_CUBLAS_TFLOPS), 0: the host's time */
    double slow;     /* a slow device's factor */
    long long wrong; /* element planted wrong, -1: none */
} fb_gemm_t;

/* One product in fp64 from the stored values (loaded once: a load is a switch on the type),
 * rounded to the type on store - what the math types allow within their bound. */
static void fb__one(const fb_gemm_t *g, const char *a, const char *b, char *c)
{
    double *da = malloc(sizeof(double) * (size_t)(g->m * g->k + 1)),
           *db = malloc(sizeof(double) * (size_t)(g->k * g->n + 1));
    for (long long p = 0; da != NULL && p < g->k; p++)
        for (long long i = 0; i < g->m; i++)
            da[i * g->k + p] = sc_dtype_load(g->type, a, (size_t)(p * g->lda + i));
    for (long long j = 0; db != NULL && j < g->n; j++)
        for (long long p = 0; p < g->k; p++)
            db[j * g->k + p] = sc_dtype_load(g->type, b, (size_t)(j * g->ldb + p));
    for (long long j = 0; da != NULL && db != NULL && j < g->n; j++)
        for (long long i = 0; i < g->m; i++) {
            const double *row = da + i * g->k, *col = db + j * g->k;
            double acc = 0;
            for (long long p = 0; p < g->k; p++)
                acc += row[p] * col[p];
            size_t at = (size_t)(j * g->ldc + i);
            double old = g->beta != 0 ? sc_dtype_load(g->type, c, at) : 0.0;
            sc_dtype_store(g->type, c, at, g->alpha * acc + g->beta * old);
        }
    free(da);
    free(db);
}

static void fb__nap(double seconds)
{
    if (seconds <= 0)
        return;
    struct timespec nap = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&nap, NULL);
}

static void fb__gemm_run(fc_work_t *w)
{
    fb_gemm_t *g = (fb_gemm_t *)w;
    size_t es = FAKE_DTYPE_SIZE(g->type);
    double t0 = fakecuda_now_ms();
    for (long long i = 0; i < g->batch; i++)
        fb__one(g, g->a + (size_t)(i * g->stride_a) * es, g->b + (size_t)(i * g->stride_b) * es,
                g->c + (size_t)(i * g->stride_c) * es);
    if (g->wrong >= 0 && g->wrong < g->m * g->n)
        sc_dtype_store(g->type, g->c, (size_t)g->wrong,
                       sc_dtype_load(g->type, g->c, (size_t)g->wrong) + 1.0);
    double rated_ms = g->rate_s * g->slow * 1e3;
    if (rated_ms > 0) /* the stated speed on the stream's events, whatever the host managed */
        fakecuda_stream_rated(g->stream, g->base.enqueued_ms, t0, rated_ms);
    else
        fb__nap((fakecuda_now_ms() - t0) * (g->slow - 1) * 1e-3);
    /* busy for the wall time it held the device: what NVML's sampled load and clocks see */
    fake_load_add(g->device, (uint64_t)((fakecuda_now_ms() - t0) * 1e6));
}

static void fb__free(fc_work_t *w)
{
    free(w);
}

/* "D:F" or "D[:I]" for this device: the number after the colon (fallback without one), or -1
 * when the variable names another device or is not set. */
static double fb__device_fault(const char *var, int device, double fallback)
{
    const char *v = getenv(var);
    if (v == NULL || v[0] == '\0' || atoi(v) != device)
        return -1;
    const char *colon = strchr(v, ':');
    return colon != NULL ? atof(colon + 1) : fallback;
}

static cublasStatus_t fb__gemm(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                               long long m, long long n, long long k, const void *alpha,
                               const void *a, cudaDataType at, long long lda, long long sa,
                               const void *b, cudaDataType bt, long long ldb, long long sb,
                               const void *beta, void *c, cudaDataType ct, long long ldc,
                               long long sc, long long batch, cublasComputeType_t compute)
{
    if (handle == NULL)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (getenv("FAKE_CUBLAS_FAIL") != NULL)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (m < 0 || n < 0 || k < 0 || batch < 0 || lda < (m > 1 ? m : 1) || ldb < (k > 1 ? k : 1) ||
        ldc < (m > 1 ? m : 1) || alpha == NULL || beta == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (ta != CUBLAS_OP_N || tb != CUBLAS_OP_N)
        return CUBLAS_STATUS_NOT_SUPPORTED; /* what the plugin never asks */
    const char *math = at == bt ? fb__math(at, ct, compute) : NULL;
    sc_dtype_t type = fb__dtype(at);
    if (math == NULL || type == SC_DTYPE_COUNT)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    size_t es = FAKE_DTYPE_SIZE(type);
    long long last = batch > 0 ? batch - 1 : 0;
    if (m * n * k * batch > 0 &&
        (!fakecuda_is_device(a, es * (size_t)(last * sa + lda * (k - 1) + m)) ||
         !fakecuda_is_device(b, es * (size_t)(last * sb + ldb * (n - 1) + k)) ||
         !fakecuda_is_device(c, es * (size_t)(last * sc + ldc * (n - 1) + m))))
        return CUBLAS_STATUS_INVALID_VALUE;
    fb__count_shape(math, m, n, k, batch);
    fb_gemm_t *g = calloc(1, sizeof(*g));
    if (g == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    int device = fakecuda_current_device();
    const char *rate = getenv("FAKE_CUBLAS_TFLOPS");
    double slow = fb__device_fault("FAKE_CUBLAS_SLOW", device, 3.0);
    double tflops = rate != NULL ? atof(rate) : 0;
    *g = (fb_gemm_t){.base = {.run = fb__gemm_run, .destroy = fb__free, .what = "gemm"},
                     .a = a,
                     .b = b,
                     .c = c,
                     .m = m,
                     .n = n,
                     .k = k,
                     .batch = batch,
                     .stride_a = sa,
                     .stride_b = sb,
                     .stride_c = sc,
                     .lda = (int)lda,
                     .ldb = (int)ldb,
                     .ldc = (int)ldc,
                     .type = type,
                     .alpha = *(const float *)alpha,
                     .beta = *(const float *)beta,
                     .device = device,
                     .stream = handle->stream,
                     .rate_s = tflops > 0 ? 2.0 * (double)(m * n * k * batch) / (tflops * 1e12) : 0,
                     .slow = slow > 0 ? slow : 1.0,
                     .wrong = (long long)fb__device_fault("FAKE_CUBLAS_CORRUPT", device, 0)};
    atomic_init(&g->base.refs, 1);
    return fakecuda_enqueue(handle->stream, &g->base) == cudaSuccess
               ? CUBLAS_STATUS_SUCCESS
               : CUBLAS_STATUS_EXECUTION_FAILED;
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                            int m, int n, int k, const void *alpha, const void *a, cudaDataType at,
                            int lda, const void *b, cudaDataType bt, int ldb, const void *beta,
                            void *c, cudaDataType ct, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t algo)
{
    fakecuda_count(__func__);
    (void)algo;
    return fb__gemm(handle, ta, tb, m, n, k, alpha, a, at, lda, 0, b, bt, ldb, 0, beta, c, ct, ldc,
                    0, 1, compute);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void *alpha, const void *a, cudaDataType at,
                                          int lda, long long sa, const void *b, cudaDataType bt,
                                          int ldb, long long sb, const void *beta, void *c,
                                          cudaDataType ct, int ldc, long long sc, int batch,
                                          cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    fakecuda_count(__func__);
    (void)algo;
    return fb__gemm(handle, ta, tb, m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct,
                    ldc, sc, batch, compute);
}
