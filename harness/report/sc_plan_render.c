/* sc_plan_render.c - the step plan as a table (its JSON: report/sc_json_plan.c). Per group and
 * operation: calls and bytes per step summed over every rank, and per rank on average (the first
 * and last pipeline stages send and receive less than the middle ones). */
#include "sc_plan_render.h"

const char *sc_plan_schedule_name(int schedule)
{
    return schedule == SC_SCHEDULE_GPIPE ? "gpipe" : "1f1b";
}

int sc_plan_ranks(const sc_plan_t *plan)
{
    const sc_layout_t *l = &plan->layout;
    return l->dp * l->tp * l->pp;
}

static void plan_render__print_ops(FILE *out, const sc_plan_t *plan)
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

/* A layer's products per phase: what the GPU runs in each compute phase (m x n x k, batch). */
static void plan_render__products(FILE *out, const sc_plan_t *plan)
{
    for (int ph = 0; ph < SC_PHASE_COUNT; ph++) {
        const sc_gemm_set_t *set = &plan->gemms[ph];
        if (set->n == 0)
            continue;
        fprintf(out, "# %s products of a layer (%s, one micro-batch, %.4g GFLOP):",
                sc_plan_phase_name((sc_plan_phase_t)ph), sc_gemm_type_name(set->type),
                sc_gemm_set_flops(set) * 1e-9);
        for (int i = 0; i < set->n; i++) {
            const sc_gemm_shape_t *g = &set->items[i];
            fprintf(out, "%s %s %.0fx%.0fx%.0f", i ? "," : "", g->name, g->m, g->n, g->k);
            if (g->batch > 1)
                fprintf(out, " x%.0f", g->batch);
        }
        fputc('\n', out);
    }
}

void sc_plan_print(FILE *out, const sc_plan_view_t *v)
{
    const sc_plan_t *plan = v->plan;
    const sc_layout_t *l = &plan->layout;
    int ranks = sc_plan_ranks(plan);
    sc_plan_tally_t t;
    sc_plan_tally_ranks(plan, &t);
    fprintf(out,
            "# plan: workload %s on %d GPU%s x %d node%s | dp %d tp %d pp %d | %d micro-batch%s "
            "(%s) | zero %lld%s%s\n",
            v->w->name, v->gpus_per_node, v->gpus_per_node == 1 ? "" : "s", v->nodes,
            v->nodes == 1 ? "" : "s", l->dp, l->tp, l->pp, l->micro_batches,
            l->micro_batches == 1 ? "" : "es", sc_plan_schedule_name(v->w->schedule), v->w->zero,
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
    plan_render__products(out, plan);
    if (v->prediction != NULL)
        fprintf(out,
                "# expected on %s: step %.3f ms (compute %.3f ms, communication and pipeline "
                "waits %.3f ms), %.1f samples/s\n",
                v->topology, v->prediction->step_ms, v->prediction->compute_ms,
                v->prediction->comm_ms, v->prediction->throughput);
    if (v->ops)
        plan_render__print_ops(out, plan);
}
