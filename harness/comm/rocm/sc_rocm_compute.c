/* sc_rocm_compute.c - the compute phase of the AMD module (compute/sc_compute_cuda.h's calls,
 * which the NVIDIA module has as kernels): the products by rocBLAS
 * (rocblas_gemm_strided_batched_ex, loaded by sc_rocm_api.c), the matrices' values written on
 * the host and copied up, and the spin as a host function on the stream (hipLaunchHostFunc):
 * the stream is held for the time asked, the GPU's cores are not (a module built without
 * kernels; the products are what loads them). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

#include "comm/rocm/sc_rocm_api.h"
#include "compute/sc_compute_cuda.h"
#include "cublas_v2.h"
#include "util/sc_dtype_core.h"

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

static void rocm__spin(void *data)
{
    uint64_t ns = *(uint64_t *)data;
    free(data);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t.tv_nsec -
               (uint64_t)t0.tv_nsec <
           ns);
}

cudaError_t sc_cuda_spin(cudaStream_t stream, double us)
{
    uint64_t *ns = malloc(sizeof(*ns));
    if (ns == NULL)
        return cudaErrorMemoryAllocation;
    *ns = us > 0 ? (uint64_t)(us * 1e3) : 0;
    cudaError_t rc = cudaLaunchHostFunc(stream, rocm__spin, ns);
    if (rc != cudaSuccess)
        free(ns);
    return rc;
}

/* The values the NVIDIA module's fill kernel writes: [-1, 1) hashed from the index. */
static double rocm__value(size_t i)
{
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    return (double)(h % 2048) / 1024.0 - 1.0;
}

/* Written on the host into pinned memory and copied up on stream; waits for the copy (the stream
 * is the compute phase's own, which no peer holds up) before the host memory goes. */
cudaError_t sc_cuda_fill(void *buf, size_t count, int type, cudaStream_t stream)
{
    int data, compute;
    size_t elem;
    rocm__types(type, &data, &compute, &elem);
    sc_dtype_t dtype = type == 2 ? SC_DTYPE_fp16 : type == 3 ? SC_DTYPE_bf16 : SC_DTYPE_float;
    void *host = NULL;
    cudaError_t rc = cudaHostAlloc(&host, count * elem, cudaHostAllocPortable);
    if (rc != cudaSuccess)
        return rc;
    for (size_t i = 0; i < count; i++)
        sc_dtype_store(dtype, host, i, rocm__value(i));
    rc = cudaMemcpyAsync(buf, host, count * elem, cudaMemcpyHostToDevice, stream);
    cudaError_t done = cudaStreamSynchronize(stream);
    cudaFreeHost(host);
    return rc != cudaSuccess ? rc : done;
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
