/* cmd_plan.c - `scalecheck plan --workload W --gpus G [--nodes N]`: the step plan `run`
 * executes and `model` prices, printed before anything runs - per group, the calls and bytes
 * one training step sends, the totals, optionally every operation in order (--ops) and, with a
 * topology, the expected step time. Runs on rank 0. */
#include <stdio.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "report/sc_plan_render.h"
#include "session/sc_results.h"
#include "report/sc_json_out.h"
#include "util/sc_files.h"

typedef struct {
    const char *workload, *topology, *json_path;
    int gpus, nodes, tp, pp;
    bool ops, help;
} plan__opts_t;

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, plan__opts_t, field, lo, hi)
static const sc_cli_opt_t plan__options[] = {
    O('W', "workload", "FILE", "the workload (workloads/*.yaml); required", SC_OPT_STRING, workload,
      0, 0),
    O('g', "gpus", "G", "GPUs per node (default 8)", SC_OPT_INT, gpus, 1, 4096),
    O('N', "nodes", "N", "nodes (default 1)", SC_OPT_INT, nodes, 1, 1000000),
    O(0, "tp", "N", "tensor-parallel ranks (default: the workload's)", SC_OPT_INT, tp, 1, 1024),
    O(0, "pp", "N", "pipeline stages (default: the workload's)", SC_OPT_INT, pp, 1, 1024),
    O('Y', "topology", "FILE", "also the expected step time on this hardware", SC_OPT_STRING,
      topology, 0, 0),
    O(0, "ops", NULL, "list every operation of every stage, in order", SC_OPT_FLAG, ops, 0, 0),
    O(0, "json", "FILE", "write the plan as JSON to FILE", SC_OPT_STRING, json_path, 0, 0),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

typedef struct {
    plan__opts_t o;
    sc_workload_t w;
    sc_topology_t topo;
    sc_layout_t layout;
    sc_plan_t plan;
    sc_step_prediction_t prediction;
} plan__t;

/* Parse, load and check every input and the output path; build (and price) the plan. */
static sc_status_t plan__prepare(plan__t *p, int argc, char **argv, sc_err_t *err)
{
    plan__opts_t *o = &p->o;
    sc_status_t status = sc_cli_parse(plan__options, argc, argv, 2, o, err);
    if (status != SC_OK || o->help)
        return status;
    if (o->workload == NULL)
        return sc_err_set(err, SC_ERR_USAGE, "--workload: required (a workloads/*.yaml file)");
    status = sc_workload_load(o->workload, &p->w, err);
    if (status == SC_OK && o->topology != NULL)
        status = sc_topology_load(o->topology, &p->topo, err);
    if (status == SC_OK)
        status = sc_files_check_output("--json", o->json_path, err);
    if (status == SC_OK)
        status = sc_workload_override(&p->w, o->tp, o->pp, err);
    if (status != SC_OK)
        return status;
    sc_workload_t at = p->w;
    sc_workload_at(&at, o->gpus * o->nodes, &p->w);
    status = sc_workload_layout(&p->w, o->gpus * o->nodes, &p->layout, err);
    if (status == SC_OK)
        status = sc_plan_build(&p->w, &p->layout, &p->plan, err);
    if (status == SC_OK && o->topology != NULL)
        status = sc_model_plan(&p->topo, &p->w, &p->plan, o->gpus, o->nodes, 1.0, 1.0,
                               &p->prediction, err);
    return status;
}

int sc_cmd_plan(const sc_rte_t *rte, int argc, char **argv)
{
    plan__t p = {.o = {.gpus = 8, .nodes = 1}};
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = plan__prepare(&p, argc, argv, &err);
    if (rte->rank == 0 && status != SC_OK)
        fprintf(stderr, "scalecheck plan: %s\n", err.msg);
    if (rte->rank == 0 && status == SC_OK && p.o.help) {
        sc_cli_print_help(plan__options, stdout);
    }
    if (rte->rank == 0 && status == SC_OK && !p.o.help) {
        sc_plan_view_t v = {.w = &p.w,
                            .plan = &p.plan,
                            .gpus_per_node = p.o.gpus,
                            .nodes = p.o.nodes,
                            .ops = p.o.ops,
                            .topology = p.o.topology ? p.topo.name : NULL,
                            .prediction = p.o.topology ? &p.prediction : NULL};
        sc_plan_print(stdout, &v);
        if (p.o.json_path != NULL) {
            status = sc_json_write_plan(p.o.json_path, &v, &err);
            if (status != SC_OK)
                fprintf(stderr, "scalecheck plan: %s\n", err.msg);
        }
    }
    sc_plan_free(&p.plan);
    return sc_status_exit_code(status);
}
