/* cmd_preflight.c - `scalecheck preflight`: are all hosts set up the same? Every rank reports
 * its host's configuration (versions, GPUs, fabric ports, CPU, kernel, NCCL_* and UCX_* variables)
 * in one collective; rank 0 groups the hosts and names the odd ones, with a severity per kind
 * of difference (judge/sc_preflight.h). Exit 1 when an error-level difference exists. coll,
 * run and pairs do the same at the start of every multi-node run. Options here; the gather
 * driven by drive/sc_drive_preflight.h. */
#include <stdio.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_preflight.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

/* the shared options preflight takes (record/sc_common_opts.h) */
#define PREFLIGHT__COMMON (SC_COMMON_FILES | SC_COMMON_TIMEOUT | SC_COMMON_METRICS)

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_drive_preflight_opts_t, field, lo, hi)
static const sc_cli_opt_t preflight__options[] = {
    SC_OPT_COMMON_ROW(sc_drive_preflight_opts_t, common, PREFLIGHT__COMMON, "preflight"),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

int sc_cmd_preflight(const sc_rte_t *rte, int argc, char **argv)
{
    sc_drive_preflight_opts_t o = {.help = false};
    sc_common_opts_default(&o.common, PREFLIGHT__COMMON);
    /* no --backend: preflight needs no GPU communicator */
    snprintf(o.common.backend, sizeof(o.common.backend), "mpi");
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse(preflight__options, argc, argv, 2, &o, &err);
    if (status == SC_OK && o.help) {
        if (rte->rank == 0) {
            sc_cli_print_help(preflight__options, stdout);
        }
        return 0;
    }
    if (status != SC_OK)
        return sc_cli_refuse(rte, "preflight", &err);
    return sc_drive_preflight(rte, &o, argc, argv);
}
