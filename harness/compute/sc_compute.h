/* sc_compute.h - the compute phase of a training step, with a known length: a spin for a
 * requested time (GPU: a kernel calibrated against the clock; host: a sleep that keeps MPI
 * progressing) and a real matrix multiply (cuBLAS) that reports TFLOP/s. Backends expose these
 * through their ops table, so patterns are written once. */
#ifndef SC_COMPUTE_H
#define SC_COMPUTE_H

#include <mpi.h>

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


/* Host compute phase: waits `us` microseconds while driving MPI's progress engine and testing
 * the started requests (so that non-blocking operations started before it advance). Returns the
 * microseconds it took. */
double sc_compute_host_spin(MPI_Comm comm, MPI_Request *pending, int npending, double us);

#endif
