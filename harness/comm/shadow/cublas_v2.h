/* cublas_v2.h (the AMD and Ascend builds) - the cuBLAS names the GPU module uses: a handle bound
 * to a stream, served by rocBLAS (sc_rocm_api.c) or by the Ascend adapter (sc_ascend_rt.c, for
 * the operator API, which has no handle). The products themselves are each vendor's compute file's
 * (sc_rocm_compute.c, sc_ascend_compute.c). Status 0: success. */
#ifndef SC_SHADOW_CUBLAS_V2_H
#define SC_SHADOW_CUBLAS_V2_H

#include "cuda_runtime.h"

typedef struct sc_shadow_blas *cublasHandle_t;
typedef int cublasStatus_t;
enum { CUBLAS_STATUS_SUCCESS = 0 };

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);

#endif
