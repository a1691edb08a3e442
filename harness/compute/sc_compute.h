/* sc_compute.h - the compute phase of a training step, with a known length: a spin for a
 * requested time (GPU: a kernel calibrated against the clock; host: a sleep that keeps MPI
 * progressing) and a real matrix multiply (cuBLAS) that reports TFLOP/s. Backends expose these
 * through their ops table, so patterns are written once. */
#ifndef SC_COMPUTE_H
#define SC_COMPUTE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/sc_gemm.h"
#include "util/sc_status.h"

typedef struct {
    sc_gemm_type_t type;
    int m, n, k;
    int iters;
} sc_gemm_spec_t;

typedef struct {
    double seconds; /* device time of the timed iterations */
    double tflops;  /* 2 m n k iters / seconds / 1e12 */
} sc_gemm_result_t;

/* The silent-data-corruption check of one GPU: a product of `size` matrices filled from a hash
 * of the index (the same on every GPU), its result digested bit for bit, and a sample of its
 * elements against an fp64 host reference within the type's rounding bound (sc_gemm_bound). */
typedef struct {
    sc_gemm_type_t type;
    int size;
    uint64_t digest;       /* FNV-1a of the result's bytes: equal on GPUs of one model */
    int sampled, wrong;    /* elements held to the reference, and those past the bound */
    long long first_wrong; /* index of the first wrong element, -1: none */
    double worst;          /* the largest error against its bound (1: at the bound) */
} sc_gemm_check_t;

/* What a burn (a GPU kept at full load: back-to-back products and a memory stream, on a stream
 * of its own) is given and what it did. */
typedef struct {
    sc_gemm_type_t type;
    int size;            /* the products' matrices */
    double stream_bytes; /* the memory stream's buffer (copied from one half to the other) */
} sc_burn_spec_t;
typedef struct {
    double seconds, tflops, memory_GBps;
    long long products;
} sc_burn_result_t;

/* The most an element of a product of depth k may be off from the exact (fp64) result whose
 * terms' magnitudes sum to abs_sum and whose value is ref: the math's rounding over k terms
 * plus the result's rounding to its type, doubled (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., section 3.1: |error| <= gamma_k sum |a b|, gamma_k ~ k u). */
double sc_gemm_bound(sc_gemm_type_t type, int k, double abs_sum, double ref);

/* The check's host side: given the product's A, B and result (size x size, column-major, of
 * type), fills out's digest and holds a sample of elements (the first, then spread by a hash)
 * to the fp64 reference. */
void sc_gemm_check_sample(sc_gemm_type_t type, int size, const void *a, const void *b,
                          const void *result, sc_gemm_check_t *out);

/* The host path's burn (compute_host_burn.c): fp32 products and a memory stream on a thread,
 * one per process; stop is bounded by the product in flight. who ("rank 3 (host h1)") heads
 * its errors. */
sc_status_t sc_compute_host_burn_start(const sc_burn_spec_t *spec, const char *who, sc_err_t *err);
void sc_compute_host_burn_stop(sc_burn_result_t *out);

/* FNV-1a of bytes (the check's digest). */
uint64_t sc_gemm_digest(const void *bytes, size_t len);

/* Host compute phase: waits `us` microseconds while driving MPI's progress engine and testing
 * the started requests (so that non-blocking operations started before it advance). Returns the
 * microseconds it took. */
double sc_compute_host_spin(MPI_Comm comm, MPI_Request *pending, int npending, double us);

#endif
