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

/* Fills count elements of buf (type: 0 fp32, 1 tf32, 2 fp16, 3 bf16) with values in [-1, 1) hashed
 * from the index: the same on every GPU. */
cudaError_t sc_cuda_fill(void *buf, size_t count, int type, cudaStream_t stream);

/* Enqueues batch products C = A x B (m x k by k x n, column-major, packed one after another) on
 * the cuBLAS handle's stream; returns cuBLAS's status (0: enqueued). */
int sc_cuda_gemm_batched(void *handle, int type, long long m, long long n, long long k,
                         long long batch, const void *a, const void *b, void *c);

#ifdef __cplusplus
}
#endif

#endif
