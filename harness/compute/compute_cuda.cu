/* compute_cuda.cu - the GPU compute phase: a clock-calibrated spin kernel and a cuBLAS matrix
 * multiply in FP32, TF32, FP16 and BF16 (the seeds' throughput test). */
#include <cstdio>

#include <cublas_v2.h>

#include "compute/sc_compute_cuda.h"

namespace
{

__global__ void spin_kernel(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

/* Times a spin of `cycles` with events, in microseconds. */
cudaError_t timed_spin(cudaStream_t stream, long long cycles, double *us)
{
    cudaEvent_t a = nullptr, b = nullptr;
    cudaError_t rc = cudaEventCreate(&a);
    if (rc == cudaSuccess)
        rc = cudaEventCreate(&b);
    if (rc == cudaSuccess)
        rc = cudaEventRecord(a, stream);
    if (rc == cudaSuccess) {
        spin_kernel<<<1, 1, 0, stream>>>(cycles);
        rc = cudaGetLastError();
    }
    if (rc == cudaSuccess)
        rc = cudaEventRecord(b, stream);
    if (rc == cudaSuccess)
        rc = cudaEventSynchronize(b);
    float ms = 0;
    if (rc == cudaSuccess)
        rc = cudaEventElapsedTime(&ms, a, b);
    *us = ms * 1e3;
    if (a)
        cudaEventDestroy(a);
    if (b)
        cudaEventDestroy(b);
    return rc;
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

extern "C" cudaError_t sc_cuda_spin_calibrate(cudaStream_t stream, double *cycles_per_us)
{
    int khz = 0, device = 0;
    cudaError_t rc = cudaGetDevice(&device);
    if (rc == cudaSuccess)
        rc = cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device);
    if (rc != cudaSuccess)
        return rc;
    long long cycles = (long long)khz * 2; /* ~2 ms at the nominal clock */
    double us = 0;
    rc = timed_spin(stream, cycles / 20, &us); /* warm-up */
    if (rc == cudaSuccess)
        rc = timed_spin(stream, cycles, &us);
    *cycles_per_us = (rc == cudaSuccess && us > 0) ? (double)cycles / us : khz / 1e3;
    return rc;
}

extern "C" cudaError_t sc_cuda_spin(cudaStream_t stream, double us, double cycles_per_us)
{
    spin_kernel<<<1, 1, 0, stream>>>((long long)(us * cycles_per_us));
    return cudaGetLastError();
}

extern "C" int sc_cuda_gemm(int type, int m, int n, int k, int iters, cudaStream_t stream,
                            double *seconds, char *why, size_t len)
{
    gemm_types t = gemm_types_of(type);
    cublasHandle_t handle = nullptr;
    void *a = nullptr, *b = nullptr, *c = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    float alpha = 1.0f, beta = 0.0f;
    const char *failed = nullptr;
    cublasStatus_t cs = CUBLAS_STATUS_SUCCESS;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        failed = "cublasCreate";
    else if (cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS)
        failed = "cublasSetStream";
    else if (cudaMalloc(&a, t.elem * m * k) != cudaSuccess ||
             cudaMalloc(&b, t.elem * k * n) != cudaSuccess ||
             cudaMalloc(&c, t.elem * m * n) != cudaSuccess)
        failed = "cudaMalloc(matrices)";
    else if (cudaMemsetAsync(a, 0, t.elem * m * k, stream) != cudaSuccess ||
             cudaMemsetAsync(b, 0, t.elem * k * n, stream) != cudaSuccess ||
             cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess)
        failed = "cudaMemset/cudaEventCreate";
    for (int i = -1; i < iters && failed == nullptr; i++) { /* i == -1: warm-up */
        if (i == 0 && cudaEventRecord(start, stream) != cudaSuccess)
            failed = "cudaEventRecord";
        cs = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, t.data, m, b,
                          t.data, k, &beta, c, t.data, m, t.compute, CUBLAS_GEMM_DEFAULT);
        if (cs != CUBLAS_STATUS_SUCCESS)
            failed = "cublasGemmEx";
    }
    float ms = 0;
    if (failed == nullptr && (cudaEventRecord(stop, stream) != cudaSuccess ||
                              cudaEventSynchronize(stop) != cudaSuccess ||
                              cudaEventElapsedTime(&ms, start, stop) != cudaSuccess))
        failed = "timing the matrix multiply";
    if (failed != nullptr)
        snprintf(why, len, "%s failed (cuBLAS status %d, CUDA: %s)", failed, (int)cs,
                 cudaGetErrorString(cudaGetLastError()));
    *seconds = ms * 1e-3;
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    if (handle)
        cublasDestroy(handle);
    return failed != nullptr;
}
