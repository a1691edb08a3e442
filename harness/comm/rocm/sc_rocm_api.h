/* sc_rocm_api.h - the AMD module's libraries, loaded at run time (sc_rocm_api.c): the HIP
 * runtime, RCCL and rocBLAS, each by the sonames ROCm 7, 6 and 5 install. */
#ifndef SC_ROCM_API_H
#define SC_ROCM_API_H

#include <stdbool.h>
#include <stddef.h>

/* Loads the three (once per process); false with what is missing (the library tried and
 * dlerror, or a symbol it lacks) in why. Every forwarding name answers an error until then. */
bool sc_rocm_load(char *why, size_t len);
/* The loaded RCCL's handle (for its optional entry points), NULL before sc_rocm_load. */
void *sc_rocm_rccl_handle(void);
/* A call's name as the AMD libraries call it ("cudaMalloc" -> "hipMalloc", "cuBLAS" ->
 * "rocBLAS"), for messages. */
const char *sc_rocm_call_name(const char *what, char *buf, size_t len);
/* The rocBLAS entry point the products use (sc_rocm_compute.c). */
typedef int (*sc_rocblas_gemm_sb_fn)(void *handle, int trans_a, int trans_b, int m, int n, int k,
                                     const void *alpha, const void *a, int a_type, int lda,
                                     long long stride_a, const void *b, int b_type, int ldb,
                                     long long stride_b, const void *beta, const void *c,
                                     int c_type, int ldc, long long stride_c, void *d, int d_type,
                                     int ldd, long long stride_d, int batch, int compute_type,
                                     int algo, int solution, unsigned flags);
sc_rocblas_gemm_sb_fn sc_rocblas_gemm_strided_batched_ex(void);

#endif
