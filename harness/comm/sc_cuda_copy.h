/* sc_cuda_copy.h - a copy by the GPU's own SMs (sc_cuda_copy.cu), callable from C: what
 * nvbandwidth calls an SM copy, beside the copy engine's cudaMemcpyPeerAsync. */
#ifndef SC_CUDA_COPY_H
#define SC_CUDA_COPY_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copies the first bytes / 16 x 16 bytes of src to dst (both 16-byte aligned, as cudaMalloc's
 * are) with a kernel on stream's device, sms blocks of it per SM: reading from or writing to
 * another GPU's memory needs peer access to it enabled. */
cudaError_t sc_cuda_copy_sm(void *dst, const void *src, size_t bytes, int sms, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
