/* sc_plan_render.c - the step plan as a table and as JSON. Per group and operation: calls and
 * bytes per step summed over every rank, and per rank on average (the first and last pipeline
 * stages send and receive less than the middle ones). */
#include "sc_plan_render.h"

static const char *sc__schedule_name(int schedule)
{
    return schedule == SC_SCHEDULE_GPIPE ? "gpipe" : "1f1b";
}

static int sc__ranks(const sc_plan_t *plan)
{
    const sc_layout_t *l = &plan->layout;
    return l->dp * l->tp * l->pp;
}

static void sc__print_ops(FILE *out, const sc_plan_t *plan)
{
    for (int s = 0; s < plan->stages; s++) {
        size_t n;
        const sc_plan_op_t *ops = sc_plan_stage(plan, s, &n);
        fprintf(out, "#\n# stage %d: %zu operations\n# %6s %-9s %-10s %-5s %-13s %14s %5s %5s %s\n",
                s, n, "#", "phase", "kind", "group", "operation", "bytes/us", "mb", "layer",
                "note");
        for (size_t i = 0; i < n; i++) {
            const sc_plan_op_t *op = &ops[i];
            int k = sc_plan_op_index(op);
            bool compute = op->kind == SC_PLAN_COMPUTE;
            fprintf(out, "  %6zu %-9s %-10s %-5s %-13s %14.6g %5d %5d %s\n", i,
                    sc_plan_phase_name(op->phase), sc_plan_kind_name(op->kind),
                    compute ? "-" : sc_plan_group_name(op->group),
                    k >= 0 ? sc_plan_op_index_name(k) : "-", compute ? op->compute_us : op->bytes,
                    op->micro_batch, op->layer,
                    op->nonblocking ? "started; overlaps until the group's wait"
                    : op->kind == SC_PLAN_SEND || op->kind == SC_PLAN_RECV ? "peer stage"
                                                                           : "");
        }
    }
}

void sc_plan_print(FILE *out, const sc_plan_view_t *v)
{
    const sc_plan_t *plan = v->plan;
    const sc_layout_t *l = &plan->layout;
    int ranks = sc__ranks(plan);
    sc_plan_tally_t t;
    sc_plan_tally_ranks(plan, &t);
    fprintf(out,
            "# plan: workload %s on %d GPU%s x %d node%s | dp %d tp %d pp %d | %d micro-batch%s "
            "(%s) | zero %lld%s%s\n",
            v->w->name, v->gpus_per_node, v->gpus_per_node == 1 ? "" : "s", v->nodes,
            v->nodes == 1 ? "" : "s", l->dp, l->tp, l->pp, l->micro_batches,
            l->micro_batches == 1 ? "" : "es", sc__schedule_name(v->w->schedule), v->w->zero,
            v->w->sequence_parallel ? " | sequence parallel" : "",
            v->w->overlap ? " | gradients overlap backward" : "");
    fprintf(out, "# %-5s %5s %-13s %12s %16s %14s %16s\n", "group", "size", "operation",
            "calls/rank", "bytes/rank", "calls (all)", "bytes (all)");
    for (int g = 0; g < SC_GROUP_COUNT; g++)
        for (int k = 0; k < SC_PLAN_OP_COUNT; k++) {
            if (t.calls[g][k] == 0)
                continue;
            fprintf(out, "  %-5s %5d %-13s %12.2f %16.6g %14.0f %16.6g\n",
                    sc_plan_group_name((sc_plan_group_t)g),
                    sc_plan_group_size(l, (sc_plan_group_t)g), sc_plan_op_index_name(k),
                    t.calls[g][k] / ranks, t.bytes[g][k] / ranks, t.calls[g][k], t.bytes[g][k]);
        }
    fprintf(out,
            "# total per step: %.0f calls, %.6g bytes over %d ranks; compute %.3f ms per rank\n",
            t.total_calls, t.total_bytes, ranks, t.compute_us * 1e-3);
    if (v->prediction != NULL)
        fprintf(out,
                "# expected on %s: step %.3f ms (compute %.3f ms, communication and pipeline "
                "waits %.3f ms), %.1f samples/s\n",
                v->topology, v->prediction->step_ms, v->prediction->compute_ms,
                v->prediction->comm_ms, v->prediction->throughput);
    if (v->ops)
        sc__print_ops(out, plan);
}

static json_t *sc__op_json(const sc_plan_op_t *op)
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

static json_t *sc__stages_json(const sc_plan_t *plan)
{
    json_t *stages = json_array();
    for (int s = 0; s < plan->stages; s++) {
        size_t n;
        const sc_plan_op_t *ops = sc_plan_stage(plan, s, &n);
        json_t *list = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(list, sc__op_json(&ops[i]));
        json_array_append_new(stages, list);
    }
    return stages;
}

json_t *sc_plan_json(const sc_plan_view_t *v)
{
    const sc_plan_t *plan = v->plan;
    const sc_layout_t *l = &plan->layout;
    int ranks = sc__ranks(plan);
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
        sc__schedule_name(v->w->schedule), "zero", (json_int_t)v->w->zero, "sequence_parallel",
        v->w->sequence_parallel, "overlap", v->w->overlap, "groups", groups, "totals", "calls",
        t.total_calls, "bytes", t.total_bytes, "compute_ms_per_rank", t.compute_us * 1e-3);
    if (v->prediction != NULL)
        json_object_set_new(doc, "expected",
                            json_pack("{s:s, s:f, s:f, s:f, s:f}", "topology", v->topology,
                                      "step_time_ms", v->prediction->step_ms, "compute_ms",
                                      v->prediction->compute_ms, "comm_ms", v->prediction->comm_ms,
                                      "throughput", v->prediction->throughput));
    if (v->ops)
        json_object_set_new(doc, "stages", sc__stages_json(plan));
    return doc;
}
