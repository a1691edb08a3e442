/* cmd_pairs.c - `scalecheck pairs`: the point-to-point matrix between nodes (or ranks); its
 * options declared and checked here, --plan-only's table printed, the measurement driven by
 * drive/sc_drive_pairs.h. */
#include <stdio.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_pairs.h"
#include "topology/sc_topology.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

/* the shared options pairs takes (record/sc_common_opts.h) */
#define PAIRS__COMMON (SC_COMMON_MEASURE | SC_COMMON_CSV)

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_drive_pairs_opts_t, field, lo, hi)
static const sc_cli_opt_t pairs__options[] = {
    O(0, "size", "SIZE", "message size for bandwidth (default 4M)", SC_OPT_SIZE, m.size, 1, 0),
    O('n', "iters", "N", "messages per bandwidth measurement (default 8)", SC_OPT_INT, m.iters, 1,
      100000),
    O(0, "lat-iters", "N", "ping-pongs per latency measurement (default 50)", SC_OPT_INT,
      m.lat_iters, 1, 1000000),
    O(0, "looks", "N",
      "a slow pair is measured up to N times before it is named (default " SC_DEFAULT_LOOKS_TEXT
      ")",
      SC_OPT_INT, m.looks, 1, 10),
    O(0, "mode", "concurrent|serial", "disjoint pairs at once, or one pair at a time",
      SC_OPT_STRING, mode, 0, 0),
    O(0, "method", "tag|put", "bandwidth by tagged messages, or one-sided RMA puts (ucx)",
      SC_OPT_STRING, method, 0, 0),
    O(0, "per", "node|rank", "one rank per node (default), or every rank", SC_OPT_STRING, per, 0,
      0),
    O('Y', "topology", "FILE", "expected bandwidth from this topology (default: the median)",
      SC_OPT_STRING, topology, 0, 0),
    O(0, "baseline", "FILE", "also hold every pair to known-good runs (scalecheck baseline create)",
      SC_OPT_STRING, baseline, 0, 0),
    O(0, "tolerance", "F",
      "a pair is slow below (1 - F) x expected (default " SC_DEFAULT_PAIRS_TOLERANCE_TEXT ")",
      SC_OPT_DOUBLE, m.tolerance, 0.01, 0.99),
    SC_OPT_COMMON_ROW(sc_drive_pairs_opts_t, common, PAIRS__COMMON, "pairs"),
    O(0, "strategy", SC_PAIRS_STRATEGY_CHOICES,
      "every pair (n-1 rounds); quick: each node once, suspects again; bisect: group "
      "all-reduces halved; switch: under and across the topology's leaves (default all)",
      SC_OPT_STRING, strategy, 0, 0),
    O(0, "background", "alltoall",
      "measure every pair again while the other ranks of each host run an all-to-all (launch 2 "
      "or more a host): each victim's slowdown per pair, host, leaf and spine",
      SC_OPT_STRING, background, 0, 0),
    O(0, "bisection", NULL,
      "also measure the bisection: half the nodes (by leaf, with a topology's switches: map) "
      "paired with the other half, each pair alone, then all at once; held to the topology's "
      "inter.oversubscription",
      SC_OPT_FLAG, bisection, 0, 0),
    O(0, "plan-only", NULL, "print the rounds and pairs each strategy takes on --nodes, no traffic",
      SC_OPT_FLAG, plan_only, 0, 0),
    /* counted, not listed (all, quick and switch in closed form, bisect's halvings simulated):
     * 10^5 nodes in well under a second, 2^20 in a few */
    O(0, "nodes", "N", "participants --plan-only plans for (2 to 1048576)", SC_OPT_INT, plan_nodes,
      2, 1048576),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

#define PAIRS_PLAN_LEAF 32 /* nodes under a leaf when no topology says (a 64-port leaf) */

/* --plan-only: what each strategy takes on n participants, healthy and with bad nodes. */
static int pairs__plan(int n, const char *topology)
{
    sc_topology_t t;
    sc_err_t err;
    int leaf = PAIRS_PLAN_LEAF;
    if (topology != NULL && sc_topology_load(topology, &t, &err) != SC_OK) {
        fprintf(stderr, "scalecheck pairs: %s\n", err.msg);
        return 2;
    }
    leaf = topology != NULL && t.nodes_per_leaf > 0 ? (int)t.nodes_per_leaf : leaf;
    printf("# pairs plan for %d participants: rounds / measurements (pairs, and group all-reduces "
           "for bisect), no traffic\n# switch: %d nodes under each leaf (%s)\n",
           n, leaf,
           topology != NULL && t.nodes_per_leaf > 0 ? "the topology's inter.nodes_per_leaf"
                                                    : "none given");
    printf("# %-8s %22s %22s %22s\n", "strategy", "all well", "1 bad node", "2 bad nodes");
    for (int s = 0; s < SC_PAIRS_STRATEGIES; s++) {
        char cell[3][40];
        for (int k = 0; k < 3; k++) {
            sc_pairs_count_t c;
            sc_pairs_plan_counts((sc_pairs_strategy_t)s, n, k, leaf, &c);
            snprintf(cell[k], sizeof(cell[k]), "%d / %lld", c.rounds, c.pairs + c.groups);
        }
        printf("  %-8s %22s %22s %22s\n", sc_pairs_strategy_name((sc_pairs_strategy_t)s), cell[0],
               cell[1], cell[2]);
    }
    return 0;
}

int sc_cmd_pairs(const sc_rte_t *rte, int argc, char **argv)
{
    sc_drive_pairs_opts_t o = {.m = {.size = 4u << 20,
                                     .iters = 8,
                                     .lat_iters = 50,
                                     .looks = SC_DEFAULT_LOOKS,
                                     .tolerance = SC_DEFAULT_PAIRS_TOLERANCE},
                               .mode = "concurrent",
                               .per = "node",
                               .method = "tag",
                               .strategy = "all"};
    sc_common_opts_default(&o.common, PAIRS__COMMON);
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse(pairs__options, argc, argv, 2, &o, &err);
    /* --mode, --per, --method: their choices are their metavars', held by the parser */
    int strategy = sc_pairs_strategy_parse(o.strategy);
    if (status == SC_OK && strategy < 0)
        status = sc_err_set(&err, SC_ERR_USAGE, "--strategy: '%s' is not one of %s", o.strategy,
                            SC_PAIRS_STRATEGY_CHOICES);
    if (status == SC_OK && o.plan_only && o.plan_nodes < 2)
        status = sc_err_set(&err, SC_ERR_USAGE, "--plan-only: needs --nodes N (2 or more)");
    o.m.strategy = strategy >= 0 ? (sc_pairs_strategy_t)strategy : SC_PAIRS_all;
    if (status == SC_OK && !strcmp(o.method, "put") &&
        strcmp(o.common.backend, "ucx")) /* up front */
        status = sc_err_set(&err, SC_ERR_USAGE, SC_PAIRS_PUT_NEEDS_UCX, o.common.backend);
    if (status == SC_OK && o.m.strategy == SC_PAIRS_bisect && !strcmp(o.common.backend, "ucx"))
        status = sc_err_set(&err, SC_ERR_USAGE, SC_PAIRS_NO_ALLREDUCE, "ucx");
    o.m.put = !strcmp(o.method, "put");
    o.m.serial = !strcmp(o.mode, "serial");
    o.per_rank = !strcmp(o.per, "rank");
    if (status != SC_OK)
        return sc_cli_refuse(rte, "pairs", &err);
    if (o.help) {
        if (rte->rank == 0)
            sc_cli_print_help(pairs__options, stdout);
        return 0;
    }
    if (o.plan_only)
        return rte->rank == 0 ? pairs__plan(o.plan_nodes, o.topology) : 0;
    return sc_drive_pairs(rte, &o, argc, argv);
}
