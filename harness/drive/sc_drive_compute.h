/* sc_drive_compute.h - `scalecheck compute` driven from what was asked (sc_drive_compute.c). */
#ifndef SC_DRIVE_COMPUTE_H
#define SC_DRIVE_COMPUTE_H

#include <stdbool.h>

#include "comm/sc_backend.h"
#include "record/sc_common_opts.h"
#include "rte/sc_rte.h"

typedef struct {
    bool gemm;
    double time_us;
    int repeats;
    sc_common_opts_t common; /* the shared options: backend, timeout, --json */
    sc_gemm_spec_t spec;
    const char *topology; /* -Y: each GPU also held to its peak (gemm) */
    bool no_check;        /* gemm: no corruption check */
    bool help;
} sc_drive_compute_opts_t;

/* The compute phase alone on every rank (a spin of --time-us, or matrix multiplies), each
 * rank's record printed and written by rank 0; matrix multiplies judged (sc_compute_verdict.h):
 * exit 1 on a FAIL. Every rank returns the exit code. */
int sc_drive_compute(const sc_rte_t *rte, const sc_drive_compute_opts_t *o);

#endif
