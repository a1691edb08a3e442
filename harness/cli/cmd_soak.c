/* cmd_soak.c - `scalecheck soak`: the stability run (the seeds' 72-hour test); its options
 * declared and parsed here, the run driven by drive/sc_drive_soak.h. */
#include <stdio.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_soak.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

/* the shared options soak takes (record/sc_common_opts.h) */
#define SOAK__COMMON (SC_COMMON_MEASURE)

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_soak_opts_t, field, lo, hi)
static const sc_cli_opt_t soak__options[] = {
    O(0, "duration", "DUR", "soak time to run: 90s, 30m, 72h, 3d (required unless --resume)",
      SC_OPT_STRING, duration, 0, 0),
    O(0, "resume", "DIR", "carry on the soak in DIR (its journal) with its own options",
      SC_OPT_STRING, resume, 0, 0),
    O(0, "cycle", "SECONDS",
      "a cycle lasts at least this long, its health sampled while it waits "
      "(default " SC_DEFAULT_SOAK_CYCLE_TEXT " s, or --duration when shorter)",
      SC_OPT_DOUBLE, cycle_s, 0, 86400),
    O('W', "workload", "FILE",
      "the training step each cycle runs (default " SC_DEFAULT_SOAK_WORKLOAD ", shipped)",
      SC_OPT_STRING, workload, 0, 0),
    O('Y', "topology", "FILE", "the limits (expect.soak) and what the system should deliver",
      SC_OPT_STRING, topology, 0, 0),
    O(0, "sweep-min", "SIZE", "smallest all-reduce of the sweep (default 64K)", SC_OPT_SIZE,
      sweep_min, 4, 0),
    O(0, "sweep-max", "SIZE", "largest all-reduce of the sweep, x4 apart (default 16M)",
      SC_OPT_SIZE, sweep_max, 4, 0),
    O(0, "sweep-iters", "N", "timed all-reduces per size (default 10)", SC_OPT_INT, sweep_iters, 1,
      100000),
    O(0, "steps", "N", "timed training steps a cycle (default 10)", SC_OPT_INT, steps, 1, 100000),
    O(0, "warmup", "N", "untimed steps first (default 2)", SC_OPT_INT, warmup, 0, 100000),
    O(0, "bytes-scale", "F", "messages are F times the workload's sizes (default 1)", SC_OPT_DOUBLE,
      bytes_scale, 1e-9, 1e3),
    O(0, "compute-scale", "F", "compute phases are F times the workload's (default 1)",
      SC_OPT_DOUBLE, compute_scale, 0, 1e3),
    O(0, "pair-size", "SIZE", "message size of the pair check between hosts (default 1M)",
      SC_OPT_SIZE, pair_size, 1, 0),
    O(0, "pair-tolerance", "F",
      "a pair of the check is slow below (1 - F) x the pairs' median "
      "(default " SC_DEFAULT_PAIRS_TOLERANCE_TEXT ")",
      SC_OPT_DOUBLE, pair_tolerance, 0.01, 0.99),
    O(0, "mode", "concurrent|serial", "the pair check's pairs at once, or one at a time",
      SC_OPT_STRING, mode, 0, 0),
    O(0, "load", "step|burn",
      "step: the sweep, the workload's steps and the pair check; burn: also every GPU (or host "
      "core) kept at full load by matrix products and a memory stream all through the cycle "
      "(the 72-hour test's; default step)",
      SC_OPT_STRING, load, 0, 0),
    O(0, "burn-size", "N", "--load burn: N x N matrices (default 8192; the host path at most 512)",
      SC_OPT_INT, burn_size, 16, 65536),
    O(0, "burn-stream", "SIZE",
      "--load burn: the memory stream's buffer (default 1G; the host path at most 64M)",
      SC_OPT_SIZE, burn_stream, 0, 0),
    O(0, "max-drift", "F",
      "a figure may slide this much from the first cycles to the last (default: the topology's "
      "expect.soak.max_drift, else " SC_DEFAULT_SOAK_MAX_DRIFT_TEXT ")",
      SC_OPT_DOUBLE, max_drift, 0, 1),
    O(0, "telemetry-interval", "SECONDS",
      "health sampling interval (default " SC_DEFAULT_TEXT(SC_DEFAULT_TELEMETRY_S) ")",
      SC_OPT_DOUBLE, telemetry_s, 0.01, 3600),
    SC_OPT_COMMON_ROW(sc_soak_opts_t, common, SOAK__COMMON, "soak"),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

static void soak__defaults(sc_soak_opts_t *o)
{
    *o = (sc_soak_opts_t){.mode = "concurrent",
                          .load = "step",
                          .burn_size = SC_DEFAULT_BURN_SIZE,
                          .burn_stream = SC_DEFAULT_BURN_STREAM,
                          .sweep_min = 64u << 10,
                          .sweep_max = 16u << 20,
                          .pair_size = 1u << 20,
                          .pair_tolerance = SC_DEFAULT_PAIRS_TOLERANCE,
                          .sweep_iters = 10,
                          .steps = 10,
                          .warmup = 2,
                          .bytes_scale = 1,
                          .compute_scale = 1,
                          .max_drift = -1,
                          .telemetry_s = SC_DEFAULT_TELEMETRY_S,
                          .cycle_s = -1}; /* SC_DEFAULT_SOAK_CYCLE_S, within --duration */
    sc_common_opts_default(&o->common, SOAK__COMMON);
}

/* sc_soak_parse_t: the defaults, then argv[2..) */
static sc_status_t soak__parse(int argc, char **argv, sc_soak_opts_t *o, sc_err_t *err)
{
    soak__defaults(o);
    return sc_cli_parse(soak__options, argc, argv, 2, o, err);
}

int sc_cmd_soak(const sc_rte_t *rte, int argc, char **argv)
{
    sc_soak_opts_t opts;
    sc_err_t err;
    sc_err_clear(&err);
    if (soak__parse(argc, argv, &opts, &err) != SC_OK)
        return sc_cli_refuse(rte, "soak", &err);
    if (opts.help) {
        if (rte->rank == 0)
            sc_cli_print_help(soak__options, stdout);
        return 0;
    }
    return sc_drive_soak(rte, &opts, soak__parse, argc, argv);
}
