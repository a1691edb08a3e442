/* sc_compute_cuda.h - the GPU compute phase (compute_cuda.cu), callable from C. */
#ifndef SC_COMPUTE_CUDA_H
#define SC_COMPUTE_CUDA_H

#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues a spin of `us` microseconds, timed by the GPU's global timer (one thread; the SMs stay
 * free for other work). */
cudaError_t sc_cuda_spin(cudaStream_t stream, double us);

/* Runs iters C = A x B of m x k by k x n matrices (random values in [-1, 1)) with cuBLAS in
 * `type` (0 fp32, 1 tf32, 2 fp16, 3 bf16) after one warm-up, and returns their device time.
 * On failure returns non-zero with a reason in why. Allocates and frees its own matrices. */
int sc_cuda_gemm(int type, int m, int n, int k, int iters, cudaStream_t stream, double *seconds,
                 char *why, size_t len);

/* Fills count elements of buf (type as above) with values in [-1, 1) hashed from the index:
 * the same on every GPU. */
cudaError_t sc_cuda_fill(void *buf, size_t count, int type, cudaStream_t stream);

/* Enqueues batch products C = A x B (m x k by k x n, column-major, packed one after another) on
 * the cuBLAS handle's stream; returns cuBLAS's status (0: enqueued). */
int sc_cuda_gemm_batched(void *handle, int type, long long m, long long n, long long k,
                         long long batch, const void *a, const void *b, void *c);

#ifdef __cplusplus
}
#endif

#endif
