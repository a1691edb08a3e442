/* cmd_health.c - `scalecheck health`: a short check of one node for a scheduler's node-health
 * hook (Slurm HealthCheckProgram, a prolog, a Kubernetes CronJob), in the manner of NHC; its
 * options declared and parsed here, the check driven by drive/sc_drive_health.h. Exit 0 and
 * "scalecheck health: OK" when all passes; exit 1 with a first line in NHC's form ("ERROR:  nhc:
 * Health check failed:  scalecheck health: <what failed>") when something fails. */
#include <stdio.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_health.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

/* the shared options health takes (record/sc_common_opts.h), and its own bound */
#define HEALTH__COMMON    SC_COMMON_BACKEND
#define HEALTH__TIMEOUT_S 30

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_drive_health_opts_t, field, lo, hi)
static const sc_cli_opt_t health__options[] = {
    O('Y', "topology", "FILE", "what the node should have and deliver (GPUs, the all-reduce)",
      SC_OPT_STRING, topology, 0, 0),
    O(0, "max-temp", "C",
      "hottest a GPU may be (default " SC_DEFAULT_TEXT(SC_DEFAULT_SOAK_MAX_GPU_TEMP_C) ")",
      SC_OPT_DOUBLE, max_temp_c, 1, 200),
    O(0, "size", "SIZE", "largest all-reduce across the node's ranks (default 16M)", SC_OPT_SIZE,
      size, 1024, 0),
    SC_OPT_COMMON_ROW(sc_drive_health_opts_t, common, HEALTH__COMMON, NULL),
    /* a node's check is quick: its own bound, and its own word on the run directory */
    O('T', "timeout", "SECONDS",
      "bound on every wait (default " SC_DEFAULT_TEXT(HEALTH__TIMEOUT_S) ")", SC_OPT_DOUBLE,
      common.timeout_s, 1, 3600),
    SC_OPT_TEXT_ROW(
        0, "results-dir", "DIR",
        "where a failed check's run directory is kept as evidence (default " SC_DEFAULT_RESULTS_TEXT
        "; a healthy node keeps none)",
        SC_OPT_TEXT, sc_drive_health_opts_t, common.results_base),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

int sc_cmd_health(const sc_rte_t *rte, int argc, char **argv)
{
    sc_drive_health_opts_t o = {.max_temp_c = SC_DEFAULT_SOAK_MAX_GPU_TEMP_C, .size = 16u << 20};
    sc_common_opts_default(&o.common, HEALTH__COMMON);
    o.common.timeout_s = HEALTH__TIMEOUT_S;
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse(health__options, argc, argv, 2, &o, &err);
    if (status != SC_OK)
        return sc_cli_refuse(rte, "health", &err);
    if (o.help) {
        if (rte->rank == 0) {
            sc_cli_print_help(health__options, stdout);
        }
        return 0;
    }
    return sc_drive_health(rte, &o, argc, argv);
}
