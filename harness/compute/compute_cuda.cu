/* compute_cuda.cu - the GPU compute phase: a spin kernel timed by the GPU's global timer and a
 * cuBLAS matrix multiply in FP32, TF32, FP16 and BF16 (the seeds' throughput test). */
#include <cstdint>
#include <cstdio>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "compute/sc_compute_cuda.h"

namespace
{

/* The global timer counts nanoseconds whatever the SM clock does (an H200 idles near 345 MHz
 * and boosts to about 1980 MHz: a spin counted in clock64() cycles would drift with it). */
__device__ uint64_t global_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin_kernel(uint64_t ns)
{
    uint64_t start = global_ns();
    while (global_ns() - start < ns) {
    }
}

/* Fills a matrix with values in [-1, 1) from a hash of the index: zeros would let the tensor
 * cores skip work and read high. */
__global__ void fill_random(void *buf, size_t count, int type)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        float v = (float)(h % 2048) / 1024.0f - 1.0f;
        if (type == 2)
            ((__half *)buf)[i] = __float2half(v);
        else if (type == 3)
            ((__nv_bfloat16 *)buf)[i] = __float2bfloat16(v);
        else
            ((float *)buf)[i] = v;
    }
}

cudaError_t fill_matrix(void *buf, size_t count, int type, cudaStream_t stream)
{
    fill_random<<<1024, 256, 0, stream>>>(buf, count, type);
    return cudaGetLastError();
}

struct gemm_types {
    cudaDataType_t data;
    cublasComputeType_t compute;
    size_t elem;
};

gemm_types gemm_types_of(int type)
{
    switch (type) {
    case 1:
        return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4};
    case 2:
        return {CUDA_R_16F, CUBLAS_COMPUTE_32F, 2};
    case 3:
        return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2};
    default:
        return {CUDA_R_32F, CUBLAS_COMPUTE_32F, 4};
    }
}

} // namespace

extern "C" cudaError_t sc_cuda_spin(cudaStream_t stream, double us)
{
    spin_kernel<<<1, 1, 0, stream>>>(us > 0 ? (uint64_t)(us * 1e3) : 0);
    return cudaGetLastError();
}

extern "C" cudaError_t sc_cuda_fill(void *buf, size_t count, int type, cudaStream_t stream)
{
    return fill_matrix(buf, count, type, stream);
}

extern "C" int sc_cuda_gemm_batched(void *handle, int type, long long m, long long n, long long k,
                                    long long batch, const void *a, const void *b, void *c)
{
    gemm_types t = gemm_types_of(type);
    float alpha = 1.0f, beta = 0.0f;
    return (int)cublasGemmStridedBatchedEx((cublasHandle_t)handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)m,
                                           (int)n, (int)k, &alpha, a, t.data, (int)m, m * k, b,
                                           t.data, (int)k, k * n, &beta, c, t.data, (int)m, m * n,
                                           (int)batch, t.compute, CUBLAS_GEMM_DEFAULT);
}
