/* cmd_run.c - `scalecheck run --workload W`: its options parsed, then the drive layer runs it
 * (drive/sc_drive_run.h). */
#include <stdio.h>

#include "cli/cmd_run_opts.h"
#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_run.h"

int sc_cmd_run(const sc_rte_t *rte, int argc, char **argv)
{
    sc_run_opts_t opts;
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status =
        sc_run_opts_parse(&opts, argc, argv, 2, sc_drive_ranks_per_host(rte), rte->nhosts, &err);
    if (status == SC_OK && opts.help) {
        if (rte->rank == 0) {
            sc_run_opts_help(stdout);
        }
        return 0;
    }
    if (status != SC_OK)
        return sc_cli_refuse(rte, "run", &err);
    return sc_drive_run(rte, &opts, argc, argv);
}
