/* test_fake_cublas.c - the emulated cuBLAS keeps a stated speed (FAKE_CUBLAS_TFLOPS) on its
 * stream's events whoever is quicker: where the host's product outruns the rate the host sleeps
 * the rest (a sleep's overshoot is not the device's time), and where the host is slower (shared
 * cores, a sanitizer) the stream's clock stops for the difference. Both read within 10 %. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "fake_test_events.h"
#include "sc_test.h"

enum { N = 48, PRODUCTS = 20 };

/* TFLOP/s of PRODUCTS N^3 fp32 products on one stream, by its events. */
static double timed_tflops(cublasHandle_t h, cudaStream_t st, const float *a, const float *b,
                           float *c)
{
    const float one = 1.0f, zero = 0.0f;
    cudaEvent_t e0, e1;
    SC_EXPECT(cudaEventCreate(&e0) == cudaSuccess && cudaEventCreate(&e1) == cudaSuccess);
    SC_EXPECT(cudaEventRecord(e0, st) == cudaSuccess);
    for (int i = 0; i < PRODUCTS; i++)
        SC_EXPECT(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, CUDA_R_32F, N, b,
                               CUDA_R_32F, N, &zero, c, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
    double ms = fake_test_elapsed_ms(st, e0, e1);
    return ms > 0 ? 2.0 * N * N * N * PRODUCTS / (ms * 1e-3) / 1e12 : 0;
}

static void at_rate(cublasHandle_t h, cudaStream_t st, float *m, double rate, const char *why)
{
    char text[32];
    snprintf(text, sizeof(text), "%g", rate);
    setenv("FAKE_CUBLAS_TFLOPS", text, 1);
    double got = timed_tflops(h, st, m, m + N * N, m + 2 * N * N);
    printf("stated %g TFLOP/s (%s): events say %.4g\n", rate, why, got);
    SC_EXPECT(got > 0.9 * rate && got < 1.1 * rate);
}

int main(void)
{
    setenv("FAKE_CUDA_DEVICES", "1", 1);
    unsetenv("FAKE_CUDA_COPY_MODEL"); /* a stated speed holds without the copy model */
    unsetenv("FAKE_CUBLAS_SLOW");
    cublasHandle_t h;
    cudaStream_t st;
    float *m = NULL;
    SC_EXPECT(cudaSetDevice(0) == cudaSuccess);
    SC_EXPECT(cudaStreamCreate(&st) == cudaSuccess);
    SC_EXPECT(cudaMalloc((void **)&m, 3 * N * N * sizeof(float)) == cudaSuccess);
    SC_EXPECT(cudaMemset(m, 0, 3 * N * N * sizeof(float)) == cudaSuccess);
    SC_EXPECT(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
    SC_EXPECT(cublasSetStream(h, st) == CUBLAS_STATUS_SUCCESS);
    /* 221 kFLOP a product: at 1e-4 TFLOP/s 2.2 ms, at 5e-3 TFLOP/s 44 us (the host's fp64 loops
     * take ten times that) */
    at_rate(h, st, m, 1e-4, "the host quicker: it sleeps");
    at_rate(h, st, m, 5e-3, "the host slower: the stream's clock stops");
    cublasDestroy(h);
    cudaFree(m);
    cudaStreamDestroy(st);
    return sc_test_done("test_fake_cublas");
}
