/* sc_json_plan.c - the step plan as JSON: per group and operation the calls and bytes per
 * step (over all ranks and per rank), the totals, the expected step when priced, and with --ops
 * every operation of every stage. */
#include "report/sc_json_build.h"
#include "report/sc_json_out.h"

static json_t *json_plan__op_json(const sc_plan_op_t *op)
{
    int k = sc_plan_op_index(op);
    json_t *o = json_pack("{s:s, s:s, s:i, s:i}", "kind", sc_plan_kind_name(op->kind), "phase",
                          sc_plan_phase_name(op->phase), "micro_batch", op->micro_batch, "layer",
                          op->layer);
    if (op->kind == SC_PLAN_COMPUTE) {
        json_object_set_new(o, "compute_us", json_real(op->compute_us));
        return o;
    }
    json_object_set_new(o, "group", json_string(sc_plan_group_name(op->group)));
    if (k >= 0) {
        json_object_set_new(o, "operation", json_string(sc_plan_op_index_name(k)));
        json_object_set_new(o, "bytes", json_real(op->bytes));
    }
    if (op->kind == SC_PLAN_SEND || op->kind == SC_PLAN_RECV)
        json_object_set_new(o, "peer_stage", json_integer(op->peer_stage));
    if (op->nonblocking)
        json_object_set_new(o, "overlaps_until", json_string("wait"));
    return o;
}

static json_t *json_plan__stages_json(const sc_plan_t *plan)
{
    json_t *stages = json_array();
    for (int s = 0; s < plan->stages; s++) {
        size_t n;
        const sc_plan_op_t *ops = sc_plan_stage(plan, s, &n);
        json_t *list = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(list, json_plan__op_json(&ops[i]));
        json_array_append_new(stages, list);
    }
    return stages;
}

/* The products a rank's compute phases run (a layer's, per phase), and how many phases a rank
 * runs per step (stage 0's; every stage runs as many). */
static json_t *json_plan__products_json(const sc_plan_t *plan)
{
    size_t n;
    const sc_plan_op_t *ops = sc_plan_stage(plan, 0, &n);
    json_t *out = json_pack("{s:s}", "type", sc_gemm_type_name(plan->gemms[0].type));
    for (int ph = 0; ph < SC_PHASE_COUNT; ph++) {
        const sc_gemm_set_t *set = &plan->gemms[ph];
        int phases = 0;
        for (size_t i = 0; i < n; i++)
            phases += ops[i].kind == SC_PLAN_COMPUTE && (int)ops[i].phase == ph;
        if (set->n == 0)
            continue;
        json_t *shapes = json_array();
        for (int i = 0; i < set->n; i++) {
            const sc_gemm_shape_t *g = &set->items[i];
            json_array_append_new(shapes,
                                  json_pack("{s:s, s:f, s:f, s:f, s:f, s:f}", "name", g->name, "m",
                                            g->m, "n", g->n, "k", g->k, "batch", g->batch, "gflops",
                                            sc_gemm_shape_flops(g) * 1e-9));
        }
        json_object_set_new(out, sc_plan_phase_name((sc_plan_phase_t)ph),
                            json_pack("{s:i, s:f, s:o}", "phases_per_rank", phases,
                                      "gflops_per_phase", sc_gemm_set_flops(set) * 1e-9, "shapes",
                                      shapes));
    }
    return out;
}

static json_t *json_plan__plan_json(const sc_plan_view_t *v)
{
    const sc_plan_t *plan = v->plan;
    const sc_layout_t *l = &plan->layout;
    int ranks = sc_plan_ranks(plan);
    sc_plan_tally_t t;
    sc_plan_tally_ranks(plan, &t);
    json_t *groups = json_array();
    for (int g = 0; g < SC_GROUP_COUNT; g++)
        for (int k = 0; k < SC_PLAN_OP_COUNT; k++) {
            if (t.calls[g][k] == 0)
                continue;
            json_array_append_new(groups, json_pack("{s:s, s:i, s:s, s:f, s:f, s:f, s:f}", "group",
                                                    sc_plan_group_name((sc_plan_group_t)g), "size",
                                                    sc_plan_group_size(l, (sc_plan_group_t)g),
                                                    "operation", sc_plan_op_index_name(k), "calls",
                                                    t.calls[g][k], "bytes", t.bytes[g][k],
                                                    "calls_per_rank", t.calls[g][k] / ranks,
                                                    "bytes_per_rank", t.bytes[g][k] / ranks));
        }
    json_t *doc = json_pack(
        "{s:s, s:s, s:s, s:i, s:i, s:i, s:{s:i, s:i, s:i, s:i, s:s, s:I, s:b, s:b}, s:o, s:{s:f, "
        "s:f}, s:f}",
        "tool", "scalecheck", "command", "plan", "workload", v->w->name, "gpus_per_node",
        v->gpus_per_node, "nodes", v->nodes, "ranks", ranks, "layout", "dp", l->dp, "tp", l->tp,
        "pp", l->pp, "micro_batches", l->micro_batches, "schedule",
        sc_plan_schedule_name(v->w->schedule), "zero", (json_int_t)v->w->zero, "sequence_parallel",
        v->w->sequence_parallel, "overlap", v->w->overlap, "groups", groups, "totals", "calls",
        t.total_calls, "bytes", t.total_bytes, "compute_ms_per_rank", t.compute_us * 1e-3);
    if (v->prediction != NULL)
        json_object_set_new(doc, "expected",
                            json_pack("{s:s, s:f, s:f, s:f, s:f}", "topology", v->topology,
                                      "step_time_ms", v->prediction->step_ms, "compute_ms",
                                      v->prediction->compute_ms, "comm_ms", v->prediction->comm_ms,
                                      "throughput", v->prediction->throughput));
    if (plan->gemms[SC_PHASE_FORWARD].n > 0)
        json_object_set_new(doc, "products", json_plan__products_json(plan));
    if (v->ops)
        json_object_set_new(doc, "stages", json_plan__stages_json(plan));
    return doc;
}

sc_status_t sc_json_write_plan(const char *path, const sc_plan_view_t *v, sc_err_t *err)
{
    return sc_json_write_new(path, json_plan__plan_json(v), err);
}
