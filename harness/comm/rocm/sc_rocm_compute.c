/* sc_rocm_compute.c - the AMD module's matrix products (compute/sc_compute_cuda.h's
 * sc_cuda_gemm_batched): rocBLAS's rocblas_gemm_strided_batched_ex, loaded by sc_rocm_api.c. The
 * fill and the spin are the kernel-less modules' shared ones (comm/shadow/sc_shadow_compute.c). */
#include "comm/rocm/sc_rocm_api.h"
#include "compute/sc_compute_cuda.h"
#include "cublas_v2.h"

/* rocBLAS's values (rocblas-types.h): rocblas_operation_none, the data types, the standard
 * algorithm. */
enum {
    ROCM__OP_NONE = 111,
    ROCM__F16 = 150,
    ROCM__F32 = 151,
    ROCM__BF16 = 168,
    ROCM__ALGO_STANDARD = 0,
};

/* sc_compute_cuda.h's type (0 fp32, 1 tf32, 2 fp16, 3 bf16) as rocBLAS's data type, its
 * compute type (fp32 throughout: rocBLAS has no TF32 on the MI200, whose tf32 runs as fp32)
 * and its element size. */
static void rocm__types(int type, int *data, int *compute, size_t *elem)
{
    *data = type == 2 ? ROCM__F16 : type == 3 ? ROCM__BF16 : ROCM__F32;
    *compute = ROCM__F32;
    *elem = type == 2 || type == 3 ? 2 : 4;
}

int sc_cuda_gemm_batched(void *handle, int type, long long m, long long n, long long k,
                         long long batch, const void *a, const void *b, void *c)
{
    int data, compute;
    size_t elem;
    rocm__types(type, &data, &compute, &elem);
    sc_rocblas_gemm_sb_fn gemm = sc_rocblas_gemm_strided_batched_ex();
    float alpha = 1.0f, beta = 0.0f;
    if (gemm == NULL)
        return 1; /* rocblas_status_invalid_handle: not loaded */
    return gemm(handle, ROCM__OP_NONE, ROCM__OP_NONE, (int)m, (int)n, (int)k, &alpha, a, data,
                (int)m, m * k, b, data, (int)k, k * n, &beta, c, data, (int)m, m * n, c, data,
                (int)m, m * n, (int)batch, compute, ROCM__ALGO_STANDARD, 0, 0);
}
