/* sc_drive_run_opts.h - what `scalecheck run` was asked to do (cli/cmd_run_opts.c parses argv
 * into it; sc_drive_run takes it). */
#ifndef SC_DRIVE_RUN_OPTS_H
#define SC_DRIVE_RUN_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "record/sc_common_opts.h"

#define SC_RUN_MAX_POINTS 32

typedef struct {
    const char *workload;
    int scales[SC_RUN_MAX_POINTS], nscales; /* GPUs per node */
    bool scales_given;                      /* explicit: a point that does not fit is refused */
    int nodes[SC_RUN_MAX_POINTS], nnodes;
    bool nnodes_given;
    int steps, warmup;
    double bytes_scale, compute_scale;
    int tp, pp;              /* 0: the workload's */
    sc_common_opts_t common; /* the shared options: backend, files, bounds, telemetry */
    const char *topology;    /* expectations and verdict */
    const char *baseline;    /* known-good runs the points are also held to */
    uint64_t sweep_max;      /* > 0: also an all-reduce sweep 8 B .. sweep_max on all ranks */
    bool calibrate;          /* calibrate first, and hold the run to that */
    int looks;               /* a sweep size slower than expected is measured up to this often */
    const char *trace;       /* the ranks' step timelines, Trace Event Format (NULL: none) */
    bool help;
} sc_run_opts_t;

#endif
