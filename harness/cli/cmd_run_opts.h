/* cmd_run_opts.h - the options of `scalecheck run`, declared once in a table. */
#ifndef SC_CMD_RUN_OPTS_H
#define SC_CMD_RUN_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/sc_status.h"

#define SC_RUN_MAX_POINTS 32

typedef struct {
    const char *workload;
    int scales[SC_RUN_MAX_POINTS], nscales; /* GPUs per node */
    bool scales_given;                      /* explicit: a point that does not fit is refused */
    int nodes[SC_RUN_MAX_POINTS], nnodes;
    bool nnodes_given;
    int steps, warmup;
    double bytes_scale, compute_scale;
    int tp, pp; /* 0: the workload's */
    const char *backend, *json_path, *csv_path, *results_base, *name;
    const char *topology; /* expectations and verdict */
    const char *baseline; /* known-good runs the points are also held to */
    uint64_t sweep_max;   /* > 0: also an all-reduce sweep 8 B .. sweep_max on all ranks */
    bool calibrate;       /* calibrate first, and hold the run to that */
    int looks;            /* a sweep size slower than expected is measured up to this often */
    double timeout_s, deadline_s, telemetry_s;
    bool help, no_preflight;
    const char *metrics_path; /* --metrics */
} sc_run_opts_t;

/* Defaults, then argv[first..). Scales and nodes default to powers of two up to what the job
 * has (local_ranks per node, nhosts). SC_ERR_USAGE naming the flag. */
sc_status_t sc_run_opts_parse(sc_run_opts_t *o, int argc, char **argv, int first, int local_ranks,
                              int nhosts, sc_err_t *err);
void sc_run_opts_help(FILE *out);

#endif
