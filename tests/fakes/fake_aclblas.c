/* fake_aclblas.c - the emulated Ascend NPU's aclblasGemmEx (libacl_cblas.so), checked as CANN's
 * reference documents it (acl_cblas.h, gemm_ex): C = alpha A B + beta C, row-major, C not
 * transposed, lda/ldb/ldc reserved (-1), A and B fp16 with C fp16 or fp32 (int8 rows are not
 * emulated), alpha and beta of C's type, read here from device memory; computed by the emulated
 * cuBLAS (fake_cublas.c, linked) as the column-major transpose, on the stream given. */
#include <cublas_v2.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fake_gpu.h"

typedef int aclError;
#define ACLBLAS__EXPORT __attribute__((visibility("default")))
enum {
    AB__SUCCESS = 0,
    AB__INVALID_PARAM = 100000,
    AB__NOT_SUPPORT = 207000,
    AB__FLOAT = 0,
    AB__FLOAT16 = 1,
    AB__TRANS_N = 0,
    AB__TRANS_T = 1,
};

/* One cuBLAS handle a stream (aclblas has none of its own). */
static struct {
    pthread_mutex_t lock;
    cudaStream_t stream[64];
    cublasHandle_t handle[64];
    int n;
} ab__handles = {.lock = PTHREAD_MUTEX_INITIALIZER};

static cublasHandle_t ab__handle(cudaStream_t s)
{
    cublasHandle_t h = NULL;
    pthread_mutex_lock(&ab__handles.lock);
    for (int i = 0; i < ab__handles.n && h == NULL; i++)
        if (ab__handles.stream[i] == s)
            h = ab__handles.handle[i];
    if (h == NULL && ab__handles.n < 64 && cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) {
        cublasSetStream(h, s);
        ab__handles.stream[ab__handles.n] = s;
        ab__handles.handle[ab__handles.n++] = h;
    }
    pthread_mutex_unlock(&ab__handles.lock);
    return h;
}

/* A scalar of C's type from device memory, as a float. */
static int ab__scalar(const void *d, int type, float *out)
{
    if (!fakecuda_is_device(d, type == AB__FLOAT ? 4 : 2))
        return AB__INVALID_PARAM;
    unsigned char raw[4] = {0};
    if (cudaMemcpy(raw, d, type == AB__FLOAT ? 4 : 2, cudaMemcpyDeviceToHost) != cudaSuccess)
        return AB__INVALID_PARAM;
    if (type == AB__FLOAT) {
        memcpy(out, raw, 4);
        return AB__SUCCESS;
    }
    unsigned h = (unsigned)raw[0] | (unsigned)raw[1] << 8, e = h >> 10 & 0x1f, m = h & 0x3ff;
    float v = e == 0 ? (float)m / 1024.0f / 16384.0f : (1.0f + (float)m / 1024.0f);
    for (unsigned i = 15; e != 0 && i < e; i++)
        v *= 2.0f;
    for (unsigned i = e; e != 0 && i < 15; i++)
        v /= 2.0f;
    *out = h & 0x8000 ? -v : v;
    return AB__SUCCESS;
}

ACLBLAS__EXPORT aclError aclblasGemmEx(int ta, int tb, int tc, int m, int n, int k,
                                       const void *alpha, const void *a, int lda, int type_a,
                                       const void *b, int ldb, int type_b, const void *beta,
                                       void *c, int ldc, int type_c, int compute, cudaStream_t s)
{
    if ((ta != AB__TRANS_N && ta != AB__TRANS_T) || (tb != AB__TRANS_N && tb != AB__TRANS_T) ||
        tc != AB__TRANS_N || lda != -1 || ldb != -1 || ldc != -1 || m <= 0 || n <= 0 || k <= 0 ||
        a == NULL || b == NULL || c == NULL || (compute != 0 && compute != 1))
        return AB__INVALID_PARAM;
    if (type_a != AB__FLOAT16 || type_b != AB__FLOAT16 ||
        (type_c != AB__FLOAT16 && type_c != AB__FLOAT)) {
        fprintf(stderr, "fake aclblas: types %d x %d -> %d are not a documented row\n", type_a,
                type_b, type_c);
        return AB__NOT_SUPPORT;
    }
    float al = 0, be = 0;
    if (ab__scalar(alpha, type_c, &al) != AB__SUCCESS ||
        ab__scalar(beta, type_c, &be) != AB__SUCCESS)
        return AB__INVALID_PARAM;
    cublasHandle_t h = ab__handle(s);
    if (h == NULL)
        return AB__NOT_SUPPORT;
    /* row-major C (m x n) = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the same memory */
    int lda_c = ta == AB__TRANS_N ? k : m, ldb_c = tb == AB__TRANS_N ? n : k;
    cublasStatus_t rc = cublasGemmEx(h, tb == AB__TRANS_N ? CUBLAS_OP_N : CUBLAS_OP_T,
                                     ta == AB__TRANS_N ? CUBLAS_OP_N : CUBLAS_OP_T, n, m, k, &al, b,
                                     CUDA_R_16F, ldb_c, a, CUDA_R_16F, lda_c, &be, c,
                                     type_c == AB__FLOAT ? CUDA_R_32F : CUDA_R_16F, n,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return rc == CUBLAS_STATUS_SUCCESS ? AB__SUCCESS : AB__NOT_SUPPORT;
}
