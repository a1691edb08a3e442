/* cmd_model.c - `scalecheck model --topology T`: what the hardware should deliver, predicted
 * without launching anything - collective time/algbw/busbw per size, GPU count and node count,
 * and for a workload the step time and the speedup/efficiency curves. Instant for thousands of
 * nodes: this is how a user plans past the cluster they have. Runs on rank 0. */
#include <stdio.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "model/sc_model.h"
#include "session/sc_results.h"
#include "util/sc_size.h"
#include "report/sc_json_out.h"
#include "util/sc_files.h"

#define MODEL_MAX 64

typedef struct {
    const char *topology, *workload, *collective, *json_path, *algo;
    uint64_t sizes[MODEL_MAX];
    int nsizes, gpus[MODEL_MAX], ngpus, nodes[MODEL_MAX], nnodes, tp, pp;
    bool gpus_asked; /* --gpus given: its points are priced across nodes too */
    bool symmetric;
    bool help;
} model__opts_t;

/* Whether a point is priced: on one node any GPU count; across nodes whole nodes by default,
 * and every GPU count --gpus names (1 GPU on each of 2 nodes is a shape too). */
static bool model__point_wanted(const sc_topology_t *t, const model__opts_t *o, int ig, int in)
{
    return o->nodes[in] == 1 || o->gpus[ig] == t->gpus_per_node || o->gpus_asked;
}

static sc_status_t model__ints(const char *flag, const char *v, int *out, int *n, sc_err_t *err)
{
    char copy[512];
    snprintf(copy, sizeof(copy), "%s", v);
    *n = 0;
    if (sc_cli_check_list(flag, v, err) != SC_OK)
        return err->status;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && *n < MODEL_MAX;
         tok = strtok_r(NULL, ",", &save)) {
        long x = 0;
        sc_status_t status = sc_cli_int(flag, tok, 1, 10000000, &x, err);
        if (status != SC_OK)
            return status;
        out[(*n)++] = (int)x;
    }
    return *n ? SC_OK : sc_err_set(err, SC_ERR_USAGE, "%s: empty list", flag);
}

static sc_status_t model__gpus(void *t, const char *flag, const char *v, sc_err_t *err)
{
    model__opts_t *o = t;
    return model__ints(flag, v, o->gpus, &o->ngpus, err);
}

static sc_status_t model__nodes(void *t, const char *flag, const char *v, sc_err_t *err)
{
    model__opts_t *o = t;
    return model__ints(flag, v, o->nodes, &o->nnodes, err);
}

static sc_status_t model__sizes(void *t, const char *flag, const char *v, sc_err_t *err)
{
    model__opts_t *o = t;
    char copy[512];
    snprintf(copy, sizeof(copy), "%s", v);
    o->nsizes = 0;
    if (sc_cli_check_list(flag, v, err) != SC_OK)
        return err->status;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && o->nsizes < MODEL_MAX;
         tok = strtok_r(NULL, ",", &save)) {
        sc_status_t status = sc_size_parse(tok, flag, &o->sizes[o->nsizes++], err);
        if (status == SC_OK && o->sizes[o->nsizes - 1] == 0)
            status = sc_err_set(err, SC_ERR_USAGE, "%s: a size of 0 bytes moves nothing", flag);
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

#define O(s, l, meta, help, type, field)                                                           \
    SC_OPT_ROW(s, l, meta, help, type, model__opts_t, field, 0, 0)
static const sc_cli_opt_t model__options[] = {
    O('Y', "topology", "FILE", "the hardware (topologies/*.yaml); required", SC_OPT_STRING,
      topology),
    O('W', "workload", "FILE", "also predict this workload's step and scaling curve", SC_OPT_STRING,
      workload),
    O(0, "collective", "NAME", "a collective, or all (default allreduce)", SC_OPT_STRING,
      collective),
    SC_OPT_CUSTOM_ROW(0, "size", "S,S,...", "sizes (default 8 B to 1 G by x8)", model__sizes),
    SC_OPT_CUSTOM_ROW(0, "gpus", "K,K,...", "GPUs per node (default 1,2,4,... the node's)",
                      model__gpus),
    SC_OPT_CUSTOM_ROW(0, "nodes", "N,N,...", "node counts (default 1,2,4,... the topology's)",
                      model__nodes),
    SC_OPT_ROW(0, "tp", "N", "override the workload's tensor-parallel size", SC_OPT_INT,
               model__opts_t, tp, 1, 1024),
    SC_OPT_ROW(0, "pp", "N", "override the workload's pipeline stages", SC_OPT_INT, model__opts_t,
               pp, 1, 1024),
    O(0, "algo", "NAME",
      "auto (default: the fastest the system has), ring, tree, nvls or sharp: price this one",
      SC_OPT_STRING, algo),
    O(0, "symmetric", NULL,
      "buffers registered as symmetric memory (nccl-tests -R 2): NCCL's symmetric kernels",
      SC_OPT_FLAG, symmetric),
    O(0, "json", "FILE", "write the predictions as JSON to FILE", SC_OPT_STRING, json_path),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help),
    SC_OPT_END,
};
#undef O

static int model__powers(int *out, long long limit)
{
    int n = 0;
    for (long long k = 1; k <= limit && n < MODEL_MAX; k *= 2)
        out[n++] = (int)k;
    if (out[n - 1] != limit && n < MODEL_MAX)
        out[n++] = (int)limit;
    return n;
}

/* The collective table, rows and JSON. */
static void model__collectives(const sc_topology_t *t, const model__opts_t *o,
                               sc_prediction_rows_t *list)
{
    printf("# %-13s %12s %6s %6s %-18s %-10s %12s %10s %10s\n", "collective", "size(B)", "gpus",
           "nodes", "algorithm", "protocol", "time_us", "algbw", "busbw");
    bool symmetric = false; /* a point ran NCCL's symmetric kernels */
    for (const sc_coll_t *const *c = sc_coll_list(); *c; c++) {
        if (strcmp(o->collective, "all") != 0 && strcmp(o->collective, (*c)->name) != 0)
            continue;
        for (int in = 0; in < o->nnodes; in++)
            for (int ig = 0; ig < o->ngpus; ig++)
                for (int is = 0; is < o->nsizes; is++) {
                    if (!model__point_wanted(t, o, ig, in))
                        continue;
                    sc_prediction_t p;
                    sc_model_collective(t, *c, (double)o->sizes[is], o->gpus[ig], o->nodes[in], &p);
                    printf("  %-13s %12llu %6d %6d %-18s %-10s %12.2f %10.2f %10.2f\n", (*c)->name,
                           (unsigned long long)o->sizes[is], o->gpus[ig] * o->nodes[in],
                           o->nodes[in], p.algorithm, p.protocol[0] ? p.protocol : "-", p.time_us,
                           p.algbw_GBps, p.busbw_GBps);
                    sc_prediction_row_t *row = SC_LIST_PUSH(list);
                    if (row == NULL)
                        continue;
                    *row = (sc_prediction_row_t){.size_bytes = o->sizes[is],
                                                 .gpus = o->gpus[ig] * o->nodes[in],
                                                 .nodes = o->nodes[in],
                                                 .time_us = p.time_us,
                                                 .algbw_GBps = p.algbw_GBps,
                                                 .busbw_GBps = p.busbw_GBps};
                    snprintf(row->collective, sizeof(row->collective), "%s", (*c)->name);
                    snprintf(row->algorithm, sizeof(row->algorithm), "%s", p.algorithm);
                    snprintf(row->protocol, sizeof(row->protocol), "%s", p.protocol);
                    symmetric |= strcmp(p.algorithm, "symmetric") == 0;
                }
    }
    if (t->symmetric && !symmetric) /* asked for, and nothing here runs them: say why */
        printf("# --symmetric: no point above runs NCCL's symmetric kernels (they need NCCL on "
               "one node whose GPUs all reach each other over NVLink, compute capability 9.0 or "
               "later, and an all-reduce, all-gather or reduce-scatter)\n");
}

static sc_status_t model__curve(const sc_topology_t *t, const model__opts_t *o,
                                sc_model_points_t *out, sc_err_t *err)
{
    sc_workload_t w;
    sc_status_t status = sc_workload_load(o->workload, &w, err);
    if (status == SC_OK)
        status = sc_workload_override(&w, o->tp, o->pp, err);
    if (status != SC_OK)
        return status;
    bool weak = w.scaling == SC_SCALING_MODEL; /* the model grows: weak scaling */
    char compute[256], input[256];
    sc_model_compute_describe(t, &w, compute, sizeof(compute));
    sc_model_input_describe(t, &w, input, sizeof(input));
    printf("#\n# workload %s%s\n# %s\n# %s\n# %6s %6s %4s %3s %3s %11s %10s %10s %12s %8s %6s\n",
           w.name,
           weak ? " (batch.scaling model: weak scaling - the model grows with the GPUs; efficiency "
                  "is per FLOP: the training FLOPs a GPU does a second against the first "
                  "point's, speedup the FLOPs done)"
                : "",
           compute, input, "gpus", "nodes", "dp", "tp", "pp", "compute_ms", "comm_ms", "step_ms",
           "samples/s", "speedup", weak ? "weak" : "eff");
    sc_scale_base_t base = {0, 0};
    for (int in = 0; in < o->nnodes; in++)
        for (int ig = 0; ig < o->ngpus; ig++) {
            if (!model__point_wanted(t, o, ig, in))
                continue;
            sc_step_prediction_t p;
            sc_err_t skip;
            if (sc_model_step(t, &w, o->gpus[ig], o->nodes[in], 1.0, 1.0, &p, &skip) != SC_OK)
                continue; /* the layout does not fit this point */
            sc_scaling(&base, p.throughput, p.flops_per_sample, p.gpus, &p.speedup, &p.efficiency);
            printf("  %6d %6d %4d %3d %3d %11.3f %10.3f %10.3f %12.1f %8.3f %6.3f\n", p.gpus,
                   p.nodes, p.dp, p.tp, p.pp, p.compute_ms, p.comm_ms, p.step_ms, p.throughput,
                   p.speedup, p.efficiency);
            sc_model_point_t *row = SC_LIST_PUSH(out);
            if (row != NULL)
                *row = (sc_model_point_t){p.gpus,       p.nodes,      p.dp,        p.tp,
                                          p.pp,         p.compute_ms, p.comm_ms,   p.step_ms,
                                          p.throughput, p.speedup,    p.efficiency};
        }
    return SC_OK;
}

int sc_cmd_model(const sc_rte_t *rte, int argc, char **argv)
{
    model__opts_t o = {.collective = "allreduce"};
    sc_err_t err;
    sc_topology_t topo;
    sc_status_t status = sc_cli_parse(model__options, argc, argv, 2, &o, &err);
    if (status == SC_OK && !o.help && o.topology == NULL)
        status = sc_err_set(&err, SC_ERR_USAGE, "--topology: required (a topologies/*.yaml file)");
    if (status == SC_OK && !o.help)
        status = sc_topology_load(o.topology, &topo, &err);
    if (status == SC_OK && !o.help)
        status = sc_topology_algo_choose("--algo", o.algo, &topo, &topo.algo, &err);
    if (status == SC_OK && !o.help)
        topo.symmetric = o.symmetric;
    if (status == SC_OK && !o.help)
        status = sc_files_check_output("--json", o.json_path, &err);
    const sc_coll_t *coll = NULL;
    if (status == SC_OK && !o.help && strcmp(o.collective, "all") != 0)
        status = sc_coll_find(o.collective, "--collective", &coll, &err);
    if (rte->rank != 0)
        return sc_status_exit_code(status);
    if (status != SC_OK) {
        fprintf(stderr, "scalecheck model: %s\n", err.msg);
        return sc_status_exit_code(status);
    }
    if (o.help) {
        sc_cli_print_help(model__options, stdout);
        return 0;
    }
    if (o.nsizes == 0)
        for (uint64_t s = 8; s <= (1ull << 30) && o.nsizes < MODEL_MAX; s *= 8)
            o.sizes[o.nsizes++] = s;
    o.gpus_asked = o.ngpus > 0;
    if (o.ngpus == 0)
        o.ngpus = model__powers(o.gpus, topo.gpus_per_node);
    for (int i = 0; i < o.ngpus; i++)
        if (o.gpus[i] > topo.gpus_per_node) {
            fprintf(stderr,
                    "scalecheck model: --gpus: %d GPUs per node, but a node of %s has %lld\n",
                    o.gpus[i], topo.name, topo.gpus_per_node);
            return 2;
        }
    if (o.nnodes == 0)
        o.nnodes = model__powers(o.nodes, topo.nodes);
    printf("# topology %s: %lld x %s per node, %s, %lld node%s\n", topo.name, topo.gpus_per_node,
           topo.gpu, sc_fabric_name(topo.fabric), topo.nodes, topo.nodes == 1 ? "" : "s");
    sc_prediction_rows_t predictions = {0};
    sc_model_points_t curve = {0};
    model__collectives(&topo, &o, &predictions);
    if (o.workload != NULL)
        status = model__curve(&topo, &o, &curve, &err);
    if (status == SC_OK && o.json_path != NULL) {
        sc_kvs_t head = {0};
        sc_kvs_text(&head, "tool", "scalecheck");
        sc_kvs_text(&head, "topology", topo.name);
        sc_json_list_t lists[] = {
            {"predictions", predictions.items, predictions.n, sizeof(*predictions.items),
             sc_prediction_row_fields},
            {"curve", curve.items, curve.n, sizeof(*curve.items), sc_model_point_fields}};
        status = sc_json_write_lists(o.json_path, &head, lists, o.workload != NULL ? 2 : 1, &err);
        sc_list_free(&head);
    }
    sc_list_free(&predictions);
    sc_list_free(&curve);
    if (status != SC_OK)
        fprintf(stderr, "scalecheck model: %s\n", err.msg);
    return sc_status_exit_code(status);
}
