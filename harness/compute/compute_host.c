/* compute_host.c - the compute phase on the host path, and the names of the GEMM types. */
#include "sc_compute.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rte/sc_rte.h"
#include "util/sc_clock.h"
#include "util/sc_dtype.h"

double sc_compute_host_spin(MPI_Comm comm, MPI_Request *pending, int npending, double us)
{
    uint64_t start = sc_clock_ns();
    uint64_t end = start + (uint64_t)(us * 1e3);
    for (;;) {
        uint64_t now = sc_clock_ns();
        if (now >= end)
            break;
        /* MPI_Iprobe runs the progress engine; naps keep a core for the other ranks, except in
         * the last 200 us, where a nap's own slack (~50 us) would overshoot. */
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
        if (npending > 0) /* completed requests become MPI_REQUEST_NULL; Waitall accepts them */
            sc_rte_testall(npending, pending, &flag);
        if (end - now > 200000) {
            struct timespec nap = {0, 50000};
            nanosleep(&nap, NULL);
        }
    }
    return (double)(sc_clock_ns() - start) * 1e-3;
}

/* unit roundoff of the math (tf32: 10 bits kept) and of the stored result */
double sc_gemm_bound(sc_gemm_type_t type, int k, double abs_sum, double ref)
{
    double u_math = type == SC_GEMM_tf32 ? 0x1p-11 : 0x1p-24;
    double u_out = type == SC_GEMM_fp16 ? 0x1p-11 : type == SC_GEMM_bf16 ? 0x1p-8 : 0x1p-24;
    return 2.0 * ((double)k * u_math * abs_sum + u_out * fabs(ref));
}

uint64_t sc_gemm_digest(const void *bytes, size_t len)
{
    const unsigned char *p = bytes;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

#define COMPUTE_HOST__SAMPLES 64

void sc_gemm_check_sample(sc_gemm_type_t type, int size, const void *a, const void *b,
                          const void *result, sc_gemm_check_t *out)
{
    sc_dtype_t dt = type == SC_GEMM_fp16   ? SC_DTYPE_fp16
                    : type == SC_GEMM_bf16 ? SC_DTYPE_bf16
                                           : SC_DTYPE_float;
    size_t n = (size_t)size, n2 = n * n;
    *out = (sc_gemm_check_t){.type = type, .size = size, .first_wrong = -1};
    out->digest = sc_gemm_digest(result, n2 * sc_gemm_type_size(type));
    for (int s = 0; s < COMPUTE_HOST__SAMPLES && (size_t)s < n2; s++) {
        size_t at = s == 0 ? 0 : ((size_t)s * 2654435761u) % n2, i = at % n, j = at / n;
        double ref = 0, abs_sum = 0;
        for (size_t p = 0; p < n; p++) {
            double term = sc_dtype_load(dt, a, p * n + i) * sc_dtype_load(dt, b, j * n + p);
            ref += term;
            abs_sum += fabs(term);
        }
        double off = fabs(sc_dtype_load(dt, result, at) - ref);
        double bound = sc_gemm_bound(type, size, abs_sum, ref);
        double against = bound > 0 ? off / bound : (off > 0 ? INFINITY : 0);
        out->worst = against > out->worst ? against : out->worst;
        out->sampled++;
        if (off > bound) {
            out->wrong++;
            out->first_wrong = out->first_wrong < 0 ? (long long)at : out->first_wrong;
        }
    }
}
