/* cublas_v2.h (AMD build) - the cuBLAS names the GPU module uses, served by rocBLAS (loaded at
 * run time by sc_rocm_api.c): a handle bound to a stream. The products themselves are
 * sc_rocm_compute.c's (rocblas_gemm_strided_batched_ex). Status values are rocBLAS's (0: success).
 */
#ifndef SC_ROCM_CUBLAS_V2_H
#define SC_ROCM_CUBLAS_V2_H

#include "cuda_runtime.h"

typedef struct sc_rocblas_handle *cublasHandle_t; /* rocblas_handle */
typedef int cublasStatus_t;                       /* rocblas_status */
enum { CUBLAS_STATUS_SUCCESS = 0 };

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);

#endif
