/* cmd_node.c - `scalecheck node`: inside each node - the PCIe tree, each rank's place, host
 * memory per NUMA node; its options declared and checked here, the run driven by
 * drive/sc_drive_node.h. */
#include <stdio.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_node.h"

/* the shared options node takes (record/sc_common_opts.h) */
#define NODE__COMMON                                                                               \
    (SC_COMMON_BACKEND | SC_COMMON_FILES | SC_COMMON_TIMEOUT | SC_COMMON_DEADLINE |                \
     SC_COMMON_METRICS)

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_drive_node_opts_t, field, lo, hi)
static const sc_cli_opt_t node__options[] = {
    O(0, "mem-size", "SIZE",
      "host memory: the buffer each core copies, bound to its NUMA node (default 32M)", SC_OPT_SIZE,
      mem_bytes, 4096, 0),
    O(0, "mem-threads", "N", "host memory: cores a NUMA node copies with, at most (default 16)",
      SC_OPT_INT, mem_threads, 1, 64),
    O('n', "trials", "N",
      "copies timed: host memory's best kept, the GPUs' back to back (default 5)", SC_OPT_INT,
      trials, 1, 1000),
    O(0, "copy-size", "SIZE",
      "GPUs: each copy between pinned host memory and a GPU, within and between GPUs (default "
      "64M)",
      SC_OPT_SIZE, copy_bytes, 4096, 0),
    O('Y', "topology", "FILE",
      "hold the copies to what it declares (its PCIe link, its memory, NVLink through NVSwitch) "
      "in place of sysfs, the device and the pairs' median",
      SC_OPT_STRING, topology, 0, 0),
    O(0, "no-memory", NULL, "no host memory bandwidth", SC_OPT_FLAG, no_memory, 0, 0),
    O(0, "no-copies", NULL, "no copies between host and GPUs, nor between GPUs", SC_OPT_FLAG,
      no_copies, 0, 0),
    O(0, "no-nics", NULL,
      "no transfers through the NICs (else NCCL runs with NCCL_P2P_DISABLE=1, "
      "NCCL_SHM_DISABLE=1 and its INFO log to $TMPDIR)",
      SC_OPT_FLAG, no_nics, 0, 0),
    SC_OPT_COMMON_ROW(sc_drive_node_opts_t, common, NODE__COMMON, "node"),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

int sc_cmd_node(const sc_rte_t *rte, int argc, char **argv)
{
    sc_drive_node_opts_t o = {
        .mem_bytes = 32u << 20, .copy_bytes = 64u << 20, .trials = 5, .mem_threads = 16};
    sc_common_opts_default(&o.common, NODE__COMMON);
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse(node__options, argc, argv, 2, &o, &err);
    if (status != SC_OK)
        return sc_cli_refuse(rte, "node", &err);
    if (o.help) {
        if (rte->rank == 0)
            sc_cli_print_help(node__options, stdout);
        return 0;
    }
    return sc_drive_node(rte, &o, argc, argv);
}
