/* sc_ascend_compute.c - the Ascend module's matrix products (compute/sc_compute_cuda.h's
 * sc_cuda_gemm_batched) by aclblasGemmEx (acl_cblas.h, loaded by sc_ascend_rt.c), one call a
 * product of the batch. aclblas is row-major and takes fp16 inputs (fp16 or fp32 out, alpha and
 * beta of C's type, in device memory here; lda/ldb/ldc reserved, -1): the column-major product
 * the backend asks for, C = A B, is computed as its row-major transpose, C^T = B^T A^T, which
 * is the same memory. Other types answer ACL's "feature not supported". The fill and the spin are
 * the kernel-less modules' shared ones (comm/shadow/sc_shadow_compute.c). */
#include <stdint.h>

#include "comm/ascend/sc_ascend_api.h"
#include "compute/sc_compute_cuda.h"
#include "cublas_v2.h"

cudaStream_t sc_ascend_blas_stream(cublasHandle_t handle); /* sc_ascend_rt.c */

/* 1.0 and 0.0 in IEEE half precision, alpha then beta, put on the device once per process
 * (never freed: the products of every stream read them). */
static const void *ascend__scalars(const sc_ascend_api_t *api)
{
    static void *d;
    static const uint16_t host[2] = {0x3c00, 0x0000};
    if (__atomic_load_n(&d, __ATOMIC_ACQUIRE) != NULL)
        return d;
    void *made = NULL;
    if (api->aclrtMalloc(&made, sizeof(host), SC_ACL_MEM_MALLOC_HUGE_FIRST) != SC_ACL_SUCCESS)
        return NULL;
    if (api->aclrtMemcpy(made, sizeof(host), host, sizeof(host), 1) != SC_ACL_SUCCESS) {
        api->aclrtFree(made);
        return NULL;
    }
    void *expected = NULL;
    if (!__atomic_compare_exchange_n(&d, &expected, made, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        api->aclrtFree(made); /* another thread's came first */
    return d;
}

int sc_cuda_gemm_batched(void *handle, int type, long long m, long long n, long long k,
                         long long batch, const void *a, const void *b, void *c)
{
    const sc_ascend_api_t *api = sc_ascend();
    if (api == NULL)
        return SC_ACL_ERROR_INVALID_PARAM;
    if (type != 2) /* fp16 only */
        return SC_ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    const char *scalars = ascend__scalars(api);
    if (scalars == NULL)
        return SC_ACL_ERROR_RT_MEMORY_ALLOCATION;
    acl_stream_t stream = sc_ascend_blas_stream(handle);
    for (long long i = 0; i < batch; i++) {
        const char *ai = (const char *)a + (size_t)(i * m * k) * 2;
        const char *bi = (const char *)b + (size_t)(i * k * n) * 2;
        char *ci = (char *)c + (size_t)(i * m * n) * 2;
        acl_error_t rc = api->aclblasGemmEx(SC_ACL_TRANS_N, SC_ACL_TRANS_N, SC_ACL_TRANS_N, (int)n,
                                            (int)m, (int)k, scalars, bi, -1, SC_ACL_FLOAT16, ai, -1,
                                            SC_ACL_FLOAT16, scalars + 2, ci, -1, SC_ACL_FLOAT16,
                                            SC_ACL_COMPUTE_HIGH_PRECISION, stream);
        if (rc != SC_ACL_SUCCESS)
            return rc;
    }
    return 0;
}
