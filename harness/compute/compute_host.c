/* compute_host.c - the compute phase on the host path, and the names of the GEMM types. */
#include "sc_compute.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rte/sc_rte.h"
#include "util/sc_clock.h"
#include "util/sc_names.h"

static const char *const compute_host__gemm_names[] = {
#define SC__GEMM_NAME(name) #name,
    SC_GEMM_TYPE_MAP(SC__GEMM_NAME)
#undef SC__GEMM_NAME
};

const char *sc_gemm_type_name(sc_gemm_type_t type)
{
    return compute_host__gemm_names[type];
}

sc_status_t sc_gemm_type_parse(const char *name, const char *flag, sc_gemm_type_t *type,
                               sc_err_t *err)
{
    int found = sc_names_find(compute_host__gemm_names, SC_GEMM_TYPE_COUNT, name);
    if (found >= 0) {
        *type = (sc_gemm_type_t)found;
        return SC_OK;
    }
    return sc_names_unknown(compute_host__gemm_names, SC_GEMM_TYPE_COUNT, flag,
                            "matrix-multiply type", name, NULL, err);
}

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
