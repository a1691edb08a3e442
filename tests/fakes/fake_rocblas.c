/* fake_rocblas.c - the emulated AMD device's rocBLAS (soname librocblas.so.5, ROCm 7's): the entry
 * points the AMD module uses - a handle on a stream and rocblas_gemm_strided_batched_ex - each
 * checked as rocBLAS documents it (rocblas-functions.h,
 * the gemm_ex type table) and computed by the emulated cuBLAS beside it (fake_cublas.c,
 * linked), which shares its faults, rate and load (FAKE_CUBLAS_*, FAKE_GPU_LOAD). rocBLAS's own
 * values: operations 111/112, data types 150 (f16), 151 (f32), 168 (bf16); statuses 0
 * success, 1 invalid handle, 2 not implemented, 3 invalid pointer, 4 invalid size, 6 internal. */
#include <cublas_v2.h>
#include <stdio.h>

typedef cublasHandle_t rocblas_handle;
typedef int rocblas_status;

#define ROCBLAS__EXPORT __attribute__((visibility("default")))
enum {
    RB__SUCCESS = 0,
    RB__INVALID_HANDLE = 1,
    RB__NOT_IMPLEMENTED = 2,
    RB__INVALID_POINTER = 3,
    RB__INVALID_SIZE = 4,
    RB__INTERNAL = 6,
    RB__OP_NONE = 111,
    RB__OP_T = 112,
    RB__F16 = 150,
    RB__F32 = 151,
    RB__BF16 = 168,
};

static rocblas_status rb__status(cublasStatus_t s)
{
    return s == CUBLAS_STATUS_SUCCESS         ? RB__SUCCESS
           : s == CUBLAS_STATUS_NOT_SUPPORTED ? RB__NOT_IMPLEMENTED
           : s == CUBLAS_STATUS_INVALID_VALUE ? RB__INVALID_SIZE
                                              : RB__INTERNAL;
}

ROCBLAS__EXPORT rocblas_status rocblas_create_handle(rocblas_handle *handle)
{
    return handle == NULL ? RB__INVALID_POINTER : rb__status(cublasCreate(handle));
}

ROCBLAS__EXPORT rocblas_status rocblas_destroy_handle(rocblas_handle handle)
{
    return handle == NULL ? RB__INVALID_HANDLE : rb__status(cublasDestroy(handle));
}

ROCBLAS__EXPORT rocblas_status rocblas_set_stream(rocblas_handle handle, cudaStream_t stream)
{
    return handle == NULL ? RB__INVALID_HANDLE : rb__status(cublasSetStream(handle, stream));
}

/* The gemm_ex table's rows the emulation has: a, b, c, d of one type (f32, f16, bf16) computed
 * in f32; anything else rocBLAS may take is not emulated (not implemented, loudly). */
static rocblas_status rb__types(int ab, int c, int d, int compute, cudaDataType_t *data)
{
    if (ab != c || c != d || compute != RB__F32 ||
        (ab != RB__F32 && ab != RB__F16 && ab != RB__BF16)) {
        fprintf(stderr, "fake rocBLAS: types a/b %d, c %d, d %d, compute %d not emulated\n", ab, c,
                d, compute);
        return RB__NOT_IMPLEMENTED;
    }
    *data = ab == RB__F32 ? CUDA_R_32F : ab == RB__F16 ? CUDA_R_16F : CUDA_R_16BF;
    return RB__SUCCESS;
}

/* What rocBLAS checks before it runs: the handle, the operations, the sizes, the leading
 * dimensions against the rows stored, the pointers (k or alpha zero aside), and D: the module
 * writes the product over C, the only form emulated (D apart from C: not implemented). */
static rocblas_status rb__args(const void *h, int ta, int tb, int m, int n, int k,
                               const void *alpha, const void *a, int lda, const void *b, int ldb,
                               const void *beta, const void *c, int ldc, const void *d, int ldd)
{
    if (h == NULL)
        return RB__INVALID_HANDLE;
    if ((ta != RB__OP_NONE && ta != RB__OP_T) || (tb != RB__OP_NONE && tb != RB__OP_T))
        return RB__NOT_IMPLEMENTED;
    if (m < 0 || n < 0 || k < 0 || ldc < m || ldd < m || lda < (ta == RB__OP_NONE ? m : k) ||
        ldb < (tb == RB__OP_NONE ? k : n))
        return RB__INVALID_SIZE;
    if (alpha == NULL || beta == NULL || c == NULL || d == NULL || (k > 0 && (!a || !b)))
        return RB__INVALID_POINTER;
    if (c != d || ldc != ldd) {
        fprintf(stderr, "fake rocBLAS: D apart from C is not emulated\n");
        return RB__NOT_IMPLEMENTED;
    }
    return RB__SUCCESS;
}

ROCBLAS__EXPORT rocblas_status rocblas_gemm_strided_batched_ex(
    rocblas_handle h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
    int a_type, int lda, long long stride_a, const void *b, int b_type, int ldb, long long stride_b,
    const void *beta, const void *c, int c_type, int ldc, long long stride_c, void *d, int d_type,
    int ldd, long long stride_d, int batch, int compute, int algo, int solution, unsigned flags)
{
    (void)algo;
    (void)solution;
    (void)flags;
    cudaDataType_t data;
    rocblas_status s = rb__args(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, d, ldd);
    if (s == RB__SUCCESS && (batch < 0 || stride_c != stride_d))
        s = batch < 0 ? RB__INVALID_SIZE : RB__NOT_IMPLEMENTED;
    if (s == RB__SUCCESS && a_type != b_type)
        s = RB__NOT_IMPLEMENTED;
    if (s == RB__SUCCESS)
        s = rb__types(a_type, c_type, d_type, compute, &data);
    if (s != RB__SUCCESS)
        return s;
    return rb__status(cublasGemmStridedBatchedEx(h, ta == RB__OP_NONE ? CUBLAS_OP_N : CUBLAS_OP_T,
                                                 tb == RB__OP_NONE ? CUBLAS_OP_N : CUBLAS_OP_T, m,
                                                 n, k, alpha, a, data, lda, stride_a, b, data, ldb,
                                                 stride_b, beta, d, data, ldd, stride_d, batch,
                                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}
