/* cmd_coll.c - `scalecheck coll`: nccl-tests-style sweeps of one or all collectives over sizes,
 * types and reductions; its options parsed here, the sweep driven by drive/sc_drive_coll.h. */
#include <stdio.h>

#include "cli/cmd_coll_opts.h"
#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_coll.h"

int sc_cmd_coll(const sc_rte_t *rte, int argc, char **argv)
{
    sc_coll_opts_t opts;
    sc_err_t err;
    sc_err_clear(&err);
    if (sc_coll_opts_parse(&opts, argc, argv, 2, rte->size, &err) != SC_OK)
        return sc_cli_refuse(rte, "coll", &err);
    if (opts.help) {
        if (rte->rank == 0) {
            sc_coll_opts_help(stdout);
        }
        return 0;
    }
    return sc_drive_coll(rte, &opts, argc, argv);
}
