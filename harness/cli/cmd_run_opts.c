/* cmd_run_opts.c - option handlers and the option table of `scalecheck run`. */
#include "drive/sc_drive_run_opts.h"

#include <stdlib.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

static sc_status_t run__list(const char *flag, const char *v, int *out, int *n, sc_err_t *err)
{
    char copy[256];
    snprintf(copy, sizeof(copy), "%s", v);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        long x = 0;
        if (*n == SC_RUN_MAX_POINTS)
            return sc_err_set(err, SC_ERR_USAGE, "%s: more than %d values", flag,
                              SC_RUN_MAX_POINTS);
        sc_status_t status = sc_cli_int(flag, tok, 1, 1 << 20, &x, err);
        if (status != SC_OK)
            return status;
        if (*n > 0 && x <= out[*n - 1])
            return sc_err_set(err, SC_ERR_USAGE, "%s: values must increase ('%s')", flag, v);
        out[(*n)++] = (int)x;
    }
    return *n > 0 ? SC_OK : sc_err_set(err, SC_ERR_USAGE, "%s: empty list", flag);
}

static sc_status_t run__scales(void *t, const char *flag, const char *v, sc_err_t *err)
{
    sc_run_opts_t *o = t;
    o->scales_given = true;
    return run__list(flag, v, o->scales, &o->nscales, err);
}

static sc_status_t run__nodes(void *t, const char *flag, const char *v, sc_err_t *err)
{
    sc_run_opts_t *o = t;
    o->nnodes_given = true;
    return run__list(flag, v, o->nodes, &o->nnodes, err);
}

/* the shared options run takes (record/sc_common_opts.h) */
#define RUN__COMMON (SC_COMMON_MEASURE | SC_COMMON_CSV | SC_COMMON_TELEMETRY)

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_run_opts_t, field, lo, hi)
static const sc_cli_opt_t run__options[] = {
    O('W', "workload", "FILE", "the training step to run (workloads/*.yaml); required",
      SC_OPT_STRING, workload, 0, 0),
    SC_OPT_CUSTOM_ROW(0, "scales", "K,K,...",
                      "GPUs (ranks) per node of each point (default 1,2,4,... up to all)",
                      run__scales),
    SC_OPT_CUSTOM_ROW(0, "nodes", "N,N,...",
                      "node counts of the multi-node curve (default 1,2,4,... up to all)",
                      run__nodes),
    O('n', "steps", "N", "timed steps per point (default 10)", SC_OPT_INT, steps, 1, 1000000),
    O('w', "warmup", "N", "untimed steps first (default 2)", SC_OPT_INT, warmup, 0, 100000),
    O(0, "tp", "N", "override the workload's tensor-parallel size", SC_OPT_INT, tp, 1, 1024),
    O(0, "pp", "N", "override the workload's pipeline stages", SC_OPT_INT, pp, 1, 1024),
    O(0, "bytes-scale", "F", "messages are F times the workload's sizes (default 1)", SC_OPT_DOUBLE,
      bytes_scale, 1e-12, 1.0),
    O(0, "compute-scale", "F", "compute phases are F times the modelled time (default 1)",
      SC_OPT_DOUBLE, compute_scale, 0.0, 1000.0),
    O('Y', "topology", "FILE",
      "hold the points to what this hardware should deliver (topologies/*.yaml); verdict",
      SC_OPT_STRING, topology, 0, 0),
    O(0, "baseline", "FILE",
      "also hold every point and sweep size to known-good runs (scalecheck baseline create)",
      SC_OPT_STRING, baseline, 0, 0),
    O(0, "sweep-max", "SIZE", "also sweep all-reduce 4 B .. SIZE (x4) on all ranks (default: none)",
      SC_OPT_SIZE, sweep_max, 0, 0),
    O(0, "calibrate", NULL,
      "first measure this machine (as `scalecheck calibrate`) and hold the run to the "
      "calibrated topology (kept in the run directory)",
      SC_OPT_FLAG, calibrate, 0, 0),
    O(0, "looks", "N",
      "a sweep size slower than the topology allows is measured up to N times, the best kept "
      "(default " SC_DEFAULT_LOOKS_TEXT ")",
      SC_OPT_INT, looks, 1, 10),
    O(0, "trace", "FILE",
      "also write every rank's step timeline here (Trace Event Format: Perfetto, about:tracing) "
      "- a process per rank, a track per stream and group; the slowest steps and a sample",
      SC_OPT_STRING, trace, 0, 0),
    SC_OPT_COMMON_ROW(sc_run_opts_t, common, RUN__COMMON, "run-<workload>"),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

static int run__powers(int *out, int limit)
{
    int n = 0;
    for (int k = 1; k <= limit && n < SC_RUN_MAX_POINTS; k *= 2)
        out[n++] = k;
    if (out[n - 1] != limit && n < SC_RUN_MAX_POINTS)
        out[n++] = limit;
    return n;
}

sc_status_t sc_run_opts_parse(sc_run_opts_t *o, int argc, char **argv, int first, int local_ranks,
                              int nhosts, sc_err_t *err)
{
    memset(o, 0, sizeof(*o));
    o->steps = 10;
    o->warmup = 2;
    o->bytes_scale = o->compute_scale = 1.0;
    sc_common_opts_default(&o->common, RUN__COMMON);
    o->looks = SC_DEFAULT_LOOKS;
    sc_status_t status = sc_cli_parse(run__options, argc, argv, first, o, err);
    if (status != SC_OK || o->help)
        return status;
    if (o->workload == NULL)
        return sc_err_set(err, SC_ERR_USAGE, "--workload: required (a workloads/*.yaml file)");
    if (o->calibrate && o->topology == NULL)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--calibrate: needs --topology (the file to calibrate)");
    if (o->nscales == 0)
        o->nscales = run__powers(o->scales, local_ranks);
    if (o->nnodes == 0)
        o->nnodes = run__powers(o->nodes, nhosts);
    return SC_OK;
}

void sc_run_opts_help(FILE *out)
{
    sc_cli_print_help(run__options, out);
}
