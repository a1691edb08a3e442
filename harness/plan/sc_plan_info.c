/* sc_plan_info.c - what is read off a plan: names, per-group tallies, where a group's ranks
 * sit in the rank order, and the sizes the workload implies. */
#include "sc_plan.h"

#include <string.h>

static const char *const plan_info__group_names[] = {"tp", "pp", "dp", "ep"};
static const char *const plan_info__phase_names[] = {"forward", "backward", "optimizer"};
static const char *const plan_info__kind_names[] = {"compute", "collective", "send", "recv",
                                                    "wait"};

const char *sc_plan_group_name(sc_plan_group_t group)
{
    return group < SC_GROUP_COUNT ? plan_info__group_names[group] : "?";
}

const char *sc_plan_phase_name(sc_plan_phase_t phase)
{
    return phase < SC_PHASE_COUNT ? plan_info__phase_names[phase] : "?";
}

const char *sc_plan_kind_name(sc_plan_kind_t kind)
{
    return kind <= SC_PLAN_WAIT ? plan_info__kind_names[kind] : "?";
}

int sc_plan_op_index(const sc_plan_op_t *op)
{
    switch (op->kind) {
    case SC_PLAN_COLL:
        return (int)op->coll;
    case SC_PLAN_SEND:
        return SC_PLAN_OP_SEND;
    case SC_PLAN_RECV:
        return SC_PLAN_OP_RECV;
    default:
        return -1;
    }
}

const char *sc_plan_op_index_name(int index)
{
    if (index == SC_PLAN_OP_SEND)
        return "send";
    if (index == SC_PLAN_OP_RECV)
        return "recv";
    return sc_coll_id_name((sc_coll_id_t)index);
}

int sc_plan_group_size(const sc_layout_t *l, sc_plan_group_t group)
{
    switch (group) {
    case SC_GROUP_TP:
        return l->tp;
    case SC_GROUP_PP:
        return l->pp;
    default: /* dp, and ep over the dp ranks */
        return l->dp;
    }
}

int sc_plan_group_stride(const sc_layout_t *l, sc_plan_group_t group)
{
    switch (group) {
    case SC_GROUP_TP:
        return 1;
    case SC_GROUP_PP:
        return l->tp;
    default:
        return l->tp * l->pp;
    }
}

void sc_plan_tally_ranks(const sc_plan_t *plan, sc_plan_tally_t *tally)
{
    memset(tally, 0, sizeof(*tally));
    const sc_layout_t *l = &plan->layout;
    double ranks_per_stage = (double)l->tp * l->dp;
    for (int s = 0; s < plan->stages; s++) {
        size_t n;
        const sc_plan_op_t *ops = sc_plan_stage(plan, s, &n);
        for (size_t i = 0; i < n; i++) {
            if (s == 0 && ops[i].kind == SC_PLAN_COMPUTE)
                tally->compute_us += ops[i].compute_us;
            int k = sc_plan_op_index(&ops[i]);
            if (k < 0)
                continue;
            tally->calls[ops[i].group][k] += ranks_per_stage;
            tally->bytes[ops[i].group][k] += ranks_per_stage * ops[i].bytes;
            tally->total_calls += ranks_per_stage;
            tally->total_bytes += ranks_per_stage * ops[i].bytes;
        }
    }
}

double sc_plan_activation_bytes(const sc_workload_t *w)
{
    double per_sample = w->kind == SC_MODEL_TRANSFORMER ? (double)w->sequence * (double)w->hidden
                                                        : (double)w->hidden;
    return (double)w->micro_batch * per_sample *
           (double)sc_dtype_size(sc_precision_dtype(w->activations));
}

double sc_plan_layer_us(const sc_workload_t *w, const sc_layout_t *l)
{
    if (w->compute_mode == SC_COMPUTE_NONE)
        return 0.0;
    if (w->compute_mode == SC_COMPUTE_TIME) /* forward is a third of forward + backward */
        return w->step_time_ms * 1e3 / 3.0 / ((double)w->layers / l->pp) / l->micro_batches;
    sc_gemm_set_t sets[SC_PHASE_COUNT];
    sc_plan_gemm_sets(w, l, sets);
    double flops = sc_gemm_set_flops(&sets[SC_PHASE_FORWARD]);
    return flops / (w->gpu_tflops * 1e12 * sc_workload_efficiency(w)) * 1e6;
}

double sc_plan_backward_factor(const sc_workload_t *w)
{
    if (w->compute_mode == SC_COMPUTE_TIME) /* the stated time includes any recomputation */
        return 2.0;
    sc_layout_t one = {.dp = 1, .tp = 1, .pp = 1, .micro_batches = 1, .micro_batch = 1};
    sc_gemm_set_t sets[SC_PHASE_COUNT];
    sc_plan_gemm_sets(w, &one, sets);
    double forward = sc_gemm_set_flops(&sets[SC_PHASE_FORWARD]);
    return forward > 0 ? sc_gemm_set_flops(&sets[SC_PHASE_BACKWARD]) / forward : 2.0;
}

/* Activation bytes a layer keeps per token and hidden unit without recomputation, the
 * attention scores left out (a fused, flash-style attention keeps none of them). */
#define SC__ACTIVATION_BYTES_PER_UNIT 34.0

void sc_plan_memory(const sc_workload_t *w, const sc_layout_t *l, sc_plan_memory_t *out)
{
    double split = (double)l->tp * (double)l->pp;
    /* Bytes a parameter: fp16/bf16 weights and gradients, fp32 master weights, momentum and
     * variance (ZeRO's K = 12; fp32 training holds the same 4 + 4 + 8). ZeRO 1 shards the
     * optimizer state over dp, 2 the gradients too, 3 the weights too. */
    double weights = 2.0, grads = 2.0, optimizer = 12.0, dp = (double)l->dp;
    if (w->zero >= 1)
        optimizer /= dp;
    if (w->zero >= 2)
        grads /= dp;
    if (w->zero >= 3)
        weights /= dp;
    *out = (sc_plan_memory_t){0};
    out->model_state_bytes = w->parameters / split * (weights + grads + optimizer);
    if (w->kind == SC_MODEL_TRANSFORMER && w->layers > 0) {
        double tokens_units = (double)w->sequence * (double)l->micro_batch * (double)w->hidden;
        /* full recomputation keeps only each layer's input, whole on every tp rank */
        double per_layer =
            w->recompute == SC_RECOMPUTE_FULL
                ? tokens_units * (double)sc_dtype_size(sc_precision_dtype(w->activations))
                : SC__ACTIVATION_BYTES_PER_UNIT * tokens_units / (double)l->tp;
        double in_flight = l->pp > 1 ? (double)l->pp : 1.0;
        out->activation_bytes = per_layer * ((double)w->layers / (double)l->pp) * in_flight;
        out->activations_estimated = true;
    }
    out->total_bytes = out->model_state_bytes + out->activation_bytes;
}
