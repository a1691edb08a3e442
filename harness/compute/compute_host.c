/* compute_host.c - the compute phase on the host path, and the names of the GEMM types. */
#include "sc_compute.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rte/sc_rte.h"
#include "util/sc_clock.h"

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
