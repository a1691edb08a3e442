/* cmd_calibrate.c - `scalecheck calibrate --topology FILE [--output FILE]`: its options declared
 * and parsed here, the calibration driven by drive/sc_drive_calibrate.h. */
#include <stdio.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_calibrate.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

/* the shared options calibrate takes (record/sc_common_opts.h) */
#define CALIBRATE__COMMON                                                                          \
    (SC_COMMON_BACKEND | SC_COMMON_RESULTS_DIR | SC_COMMON_NAME | SC_COMMON_TIMEOUT)

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_drive_calibrate_opts_t, field, lo, hi)
static const sc_cli_opt_t calibrate__options[] = {
    O('Y', "topology", "FILE", "the declared topology to calibrate (required)", SC_OPT_STRING,
      topology, 0, 0),
    O('o', "output", "FILE",
      "the calibrated topology (default " SC_DEFAULT_RESULTS_DIR "/calibrated-topology.yaml)",
      SC_OPT_STRING, output, 0, 0),
    O('e', "max-size", "SIZE", "largest all-reduce of the ladders (default 16M)", SC_OPT_SIZE,
      m.max_bytes, 0, 0),
    O('n', "iters", "N", "timed iterations per size (default " SC_DEFAULT_TEXT(SC_SWEEP_ITERS) ")",
      SC_OPT_INT, m.iters, 5, 100000),
    O('W', "workload", "FILE",
      "also time this workload's own layer products on each GPU: the model then prices its "
      "compute with what was measured",
      SC_OPT_STRING, workload, 0, 0),
    O(0, "compute-scale", "F", "the products at F of their FLOPs (default 1)", SC_OPT_DOUBLE,
      m.compute_scale, 1e-12, 1),
    SC_OPT_COMMON_ROW(sc_drive_calibrate_opts_t, common, CALIBRATE__COMMON, "calibrate"),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

int sc_cmd_calibrate(const sc_rte_t *rte, int argc, char **argv)
{
    sc_drive_calibrate_opts_t o = {
        .m = {.max_bytes = SC_CALIBRATE_MAX_BYTES, .iters = SC_CALIBRATE_ITERS, .compute_scale = 1},
        .output = SC_DEFAULT_RESULTS_DIR "/calibrated-topology.yaml"};
    sc_common_opts_default(&o.common, CALIBRATE__COMMON);
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse(calibrate__options, argc, argv, 2, &o, &err);
    if (status != SC_OK)
        return sc_cli_refuse(rte, "calibrate", &err);
    if (o.help) {
        if (rte->rank == 0)
            sc_cli_print_help(calibrate__options, stdout);
        return 0;
    }
    return sc_drive_calibrate(rte, &o);
}
