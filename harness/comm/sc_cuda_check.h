/* sc_cuda_check.h - the data check as CUDA kernels (sc_cuda_check.cu), callable from C. The
 * arithmetic is sc_check_core.h's, so the kernels and the host reference agree bit for bit. */
#ifndef SC_CUDA_CHECK_H
#define SC_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "coll/sc_check_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes count input elements of `rank` (element 0 is input index 0) into device buffer buf. */
cudaError_t sc_cuda_check_fill(void *buf, const sc_check_spec_t *spec, int rank, size_t count,
                               cudaStream_t stream);

/* Adds to *d_wrong (device memory) the number of elements of device buffer buf that differ from
 * the expected result. Asynchronous on stream. */
cudaError_t sc_cuda_check_count(const void *buf, const sc_check_spec_t *spec, const sc_src_t *src,
                                size_t count, unsigned long long *d_wrong, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
