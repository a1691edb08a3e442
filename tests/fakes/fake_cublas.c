/* fake_cublas.c - an emulated cuBLAS (soname libcublas.so.13) for the emulated device: the one
 * GEMM the plugin runs (cublasGemmEx, column-major, no transposes) is computed on the host, on
 * the handle's stream, so its result and its device time are real. Only the calls the plugin
 * makes exist; matrices must be device memory (else CUBLAS_STATUS_INVALID_VALUE). */
#include <cublas_v2.h>
#include <stdlib.h>

#include "coll/sc_check_core.h"
#include "fake_gpu.h"

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

typedef struct {
    fc_work_t base;
    const void *a, *b;
    void *c;
    int m, n, k;
    sc_dtype_t type;
    float alpha, beta;
} fb_gemm_t;

static void fb__gemm_run(fc_work_t *w)
{
    fb_gemm_t *g = (fb_gemm_t *)w;
    for (int j = 0; j < g->n; j++)
        for (int i = 0; i < g->m; i++) {
            double acc = 0;
            for (int p = 0; p < g->k; p++)
                acc += sc_dtype_load(g->type, g->a, (size_t)p * g->m + i) *
                       sc_dtype_load(g->type, g->b, (size_t)j * g->k + p);
            size_t at = (size_t)j * g->m + i;
            double old = g->beta != 0 ? sc_dtype_load(g->type, g->c, at) : 0.0;
            sc_dtype_store(g->type, g->c, at, g->alpha * acc + g->beta * old);
        }
}

static void fb__free(fc_work_t *w)
{
    free(w);
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                            int m, int n, int k, const void *alpha, const void *a, cudaDataType at,
                            int lda, const void *b, cudaDataType bt, int ldb, const void *beta,
                            void *c, cudaDataType ct, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t algo)
{
    fakecuda_count(__func__);
    (void)compute, (void)algo;
    if (handle == NULL)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (getenv("FAKE_CUBLAS_FAIL") != NULL)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (ta != CUBLAS_OP_N || tb != CUBLAS_OP_N || at != bt || at != ct || lda != m || ldb != k ||
        ldc != m || m < 0 || n < 0 || k < 0)
        return CUBLAS_STATUS_NOT_SUPPORTED; /* what the plugin never asks */
    sc_dtype_t type = at == CUDA_R_16F    ? SC_DTYPE_fp16
                      : at == CUDA_R_16BF ? SC_DTYPE_bf16
                      : at == CUDA_R_32F  ? SC_DTYPE_float
                                          : SC_DTYPE_COUNT;
    if (type == SC_DTYPE_COUNT)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    size_t es = FAKE_DTYPE_SIZE(type);
    if (!fakecuda_is_device(a, es * (size_t)m * k) || !fakecuda_is_device(b, es * (size_t)k * n) ||
        !fakecuda_is_device(c, es * (size_t)m * n))
        return CUBLAS_STATUS_INVALID_VALUE;
    fb_gemm_t *g = calloc(1, sizeof(*g));
    if (g == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *g = (fb_gemm_t){.base = {.run = fb__gemm_run, .destroy = fb__free, .what = "gemm"},
                     .a = a,
                     .b = b,
                     .c = c,
                     .m = m,
                     .n = n,
                     .k = k,
                     .type = type,
                     .alpha = *(const float *)alpha,
                     .beta = *(const float *)beta};
    atomic_init(&g->base.refs, 1);
    return fakecuda_enqueue(handle->stream, &g->base) == cudaSuccess
               ? CUBLAS_STATUS_SUCCESS
               : CUBLAS_STATUS_EXECUTION_FAILED;
}
