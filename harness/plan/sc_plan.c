/* sc_plan.c - building the step plan: the stage's pipeline schedule (1F1B or GPipe); in each
 * action the activation received from the previous stage, the stage's layers (ZeRO-3 parameter
 * gathers, compute, the TP block collectives, the MoE all-to-alls, and - in the last
 * micro-batch's backward - the gradients filling DDP buckets), the activation sent on; after
 * backward the remaining buckets and the wait for them, the ZeRO-1/2 parameter all-gather, and
 * the wait for the stage's sends. */
#include "sc_plan.h"

#include <stdlib.h>
#include <string.h>

/* What building one stage keeps between layers. */
typedef struct {
    const sc_workload_t *w;
    const sc_layout_t *l;
    sc_plan_t *plan;
    int stage;
    double bucket_fill; /* gradient bytes in the open bucket */
    double *deferred;   /* without overlap: buckets reduced after backward */
    int ndeferred;
    double forward_us, backward_us; /* one layer's compute, one micro-batch */
    sc_err_t *err;
} plan__builder_t;

static sc_status_t plan__push(plan__builder_t *b, sc_plan_op_t op)
{
    sc_plan_t *p = b->plan;
    if (p->nops == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        sc_plan_op_t *ops = realloc(p->ops, cap * sizeof(*ops));
        if (ops == NULL)
            return sc_err_set(b->err, SC_ERR_NOMEM, "no memory for a step plan of %zu operations",
                              cap);
        p->ops = ops;
        p->cap = cap;
    }
    p->ops[p->nops++] = op;
    return SC_OK;
}

static sc_status_t plan__coll(plan__builder_t *b, sc_plan_phase_t phase, sc_plan_group_t group,
                              sc_coll_id_t coll, double bytes, bool nonblocking, int mb, int layer)
{
    int precision =
        coll == SC_COLL_alltoall || group == SC_GROUP_TP ? b->w->activations : b->w->gradients;
    return plan__push(b, (sc_plan_op_t){.kind = SC_PLAN_COLL,
                                        .phase = phase,
                                        .group = group,
                                        .coll = coll,
                                        .nonblocking = nonblocking,
                                        .precision = precision,
                                        .micro_batch = mb,
                                        .layer = layer,
                                        .bytes = bytes});
}

static sc_status_t plan__simple(plan__builder_t *b, sc_plan_kind_t kind, sc_plan_phase_t phase,
                                sc_plan_group_t group, int peer, int mb, int layer)
{
    bool p2p = kind == SC_PLAN_SEND || kind == SC_PLAN_RECV;
    return plan__push(b, (sc_plan_op_t){.kind = kind,
                                        .phase = phase,
                                        .group = group,
                                        .precision = b->w->activations,
                                        .peer_stage = peer,
                                        .micro_batch = mb,
                                        .layer = layer,
                                        .bytes = p2p ? sc_plan_activation_bytes(b->w) : 0});
}

/* Gradient (and parameter) bytes of one layer on one rank: its tensor-parallel share. */
static double plan__layer_grad_bytes(const plan__builder_t *b)
{
    const sc_workload_t *w = b->w;
    return w->parameters / (double)w->layers / b->l->tp *
           (double)sc_dtype_size(sc_precision_dtype(w->gradients));
}

static sc_coll_id_t plan__bucket_coll(const plan__builder_t *b)
{
    return b->w->zero > 0 ? SC_COLL_reducescatter : SC_COLL_allreduce;
}

/* A full bucket: started now (overlap), or kept for after backward. */
static sc_status_t plan__bucket(plan__builder_t *b, double bytes, int mb, int layer)
{
    if (b->w->overlap)
        return plan__coll(b, SC_PHASE_BACKWARD, SC_GROUP_DP, plan__bucket_coll(b), bytes, true, mb,
                          layer);
    b->deferred[b->ndeferred++] = bytes;
    return SC_OK;
}

static bool plan__is_moe_layer(const sc_workload_t *w, long long layer)
{
    return w->experts > 0 && w->moe_every > 0 && (layer + 1) % w->moe_every == 0;
}

/* The TP block collectives of one layer: attention, then MLP; backward mirrors forward. */
static sc_status_t plan__tp_blocks(plan__builder_t *b, sc_plan_phase_t phase, int mb, int layer)
{
    double act = sc_plan_activation_bytes(b->w);
    sc_status_t status = SC_OK;
    for (int block = 0; block < 2 && status == SC_OK; block++) {
        if (b->w->sequence_parallel) {
            status = plan__coll(b, phase, SC_GROUP_TP, SC_COLL_allgather, act, false, mb, layer);
            if (status == SC_OK)
                status =
                    plan__coll(b, phase, SC_GROUP_TP, SC_COLL_reducescatter, act, false, mb, layer);
        } else {
            status = plan__coll(b, phase, SC_GROUP_TP, SC_COLL_allreduce, act, false, mb, layer);
        }
    }
    return status;
}

static sc_status_t plan__layer(plan__builder_t *b, int layer, bool backward, int mb, bool last)
{
    const sc_workload_t *w = b->w;
    const sc_layout_t *l = b->l;
    sc_plan_phase_t phase = backward ? SC_PHASE_BACKWARD : SC_PHASE_FORWARD;
    sc_status_t status = SC_OK;
    if (w->zero == 3 && l->dp > 1) /* the layer's parameters, gathered before use */
        status = plan__coll(b, phase, SC_GROUP_DP, SC_COLL_allgather, plan__layer_grad_bytes(b),
                            false, mb, layer);
    double us = backward ? b->backward_us : b->forward_us;
    if (status == SC_OK && us > 0)
        status = plan__push(b, (sc_plan_op_t){.kind = SC_PLAN_COMPUTE,
                                              .phase = phase,
                                              .micro_batch = mb,
                                              .layer = layer,
                                              .compute_us = us});
    if (status == SC_OK && l->tp > 1)
        status = plan__tp_blocks(b, phase, mb, layer);
    /* full recomputation runs the layer's forward again in backward, its collectives too */
    if (status == SC_OK && l->tp > 1 && backward && w->recompute == SC_RECOMPUTE_FULL)
        status = plan__tp_blocks(b, phase, mb, layer);
    if (status == SC_OK && l->dp > 1 && plan__is_moe_layer(w, layer)) { /* tokens out, back */
        double bytes = sc_plan_activation_bytes(w) * (double)w->top_k * w->capacity_factor;
        for (int i = 0; i < 2 && status == SC_OK; i++)
            status = plan__coll(b, phase, SC_GROUP_EP, SC_COLL_alltoall, bytes, false, mb, layer);
    }
    if (status == SC_OK && backward && last && l->dp > 1) {
        b->bucket_fill += plan__layer_grad_bytes(b);
        if (b->bucket_fill >= w->bucket_mb * 1048576.0) { /* MiB, as PyTorch's bucket_cap_mb */
            double bytes = b->bucket_fill;
            b->bucket_fill = 0;
            status = plan__bucket(b, bytes, mb, layer);
        }
    }
    return status;
}

/* One schedule action: forward (action >= 0) or backward (-action - 1) of a micro-batch. */
static sc_status_t plan__action(plan__builder_t *b, int action)
{
    int p = b->stage, pp = b->l->pp, m = b->l->micro_batches;
    bool backward = action < 0;
    int mb = backward ? -action - 1 : action;
    sc_plan_phase_t phase = backward ? SC_PHASE_BACKWARD : SC_PHASE_FORWARD;
    int per_stage = (int)(b->w->layers / pp), first = p * per_stage;
    int from = backward ? p + 1 : p - 1, to = backward ? p - 1 : p + 1;
    sc_status_t status = SC_OK;
    if (from >= 0 && from < pp)
        status = plan__simple(b, SC_PLAN_RECV, phase, SC_GROUP_PP, from, mb, -1);
    for (int i = 0; i < per_stage && status == SC_OK; i++)
        status = plan__layer(b, backward ? first + per_stage - 1 - i : first + i, backward, mb,
                             mb == m - 1);
    if (status == SC_OK && to >= 0 && to < pp)
        status = plan__simple(b, SC_PLAN_SEND, phase, SC_GROUP_PP, to, mb, -1);
    return status;
}

/* After backward: the last bucket, the deferred ones, the wait, ZeRO-1/2's parameters back. */
static sc_status_t plan__finish_dp(plan__builder_t *b)
{
    int m = b->l->micro_batches;
    sc_status_t status = SC_OK;
    if (b->bucket_fill > 0)
        status = plan__bucket(b, b->bucket_fill, m - 1, -1);
    b->bucket_fill = 0;
    for (int i = 0; i < b->ndeferred && status == SC_OK; i++)
        status = plan__coll(b, SC_PHASE_BACKWARD, SC_GROUP_DP, plan__bucket_coll(b), b->deferred[i],
                            false, m - 1, -1);
    if (status == SC_OK)
        status = plan__simple(b, SC_PLAN_WAIT, SC_PHASE_BACKWARD, SC_GROUP_DP, 0, -1, -1);
    if (status == SC_OK && (b->w->zero == 1 || b->w->zero == 2))
        status = plan__coll(b, SC_PHASE_OPTIMIZER, SC_GROUP_DP, SC_COLL_allgather,
                            plan__layer_grad_bytes(b) * (double)b->w->layers, false, -1, -1);
    return status;
}

/* The stage's schedule: action >= 0 is the forward of micro-batch action, < 0 the backward of
 * micro-batch -action - 1. GPipe: every forward, then every backward. 1F1B: stage p runs
 * pp - p - 1 forwards, then alternates one forward and one backward, then drains. */
static int plan__schedule(int schedule, int p, int pp, int m, int *actions)
{
    int n = 0, forward = 0, backward = 0;
    int warmup = schedule == SC_SCHEDULE_GPIPE ? m : (pp - p - 1 < m ? pp - p - 1 : m);
    while (forward < warmup)
        actions[n++] = forward++;
    while (forward < m) {
        actions[n++] = forward++;
        actions[n++] = -(backward++) - 1;
    }
    while (backward < m)
        actions[n++] = -(backward++) - 1;
    return n;
}

static sc_status_t plan__stage(plan__builder_t *b, int *actions)
{
    const sc_layout_t *l = b->l;
    int n = plan__schedule(b->w->schedule, b->stage, l->pp, l->micro_batches, actions);
    sc_status_t status = SC_OK;
    for (int i = 0; i < n && status == SC_OK; i++)
        status = plan__action(b, actions[i]);
    if (status == SC_OK && l->dp > 1)
        status = plan__finish_dp(b);
    if (status == SC_OK && l->pp > 1) /* the stage's last sends */
        status = plan__simple(b, SC_PLAN_WAIT, SC_PHASE_BACKWARD, SC_GROUP_PP, 0, -1, -1);
    return status;
}

sc_status_t sc_plan_build(const sc_workload_t *w, const sc_layout_t *l, sc_plan_t *plan,
                          sc_err_t *err)
{
    memset(plan, 0, sizeof(*plan));
    plan->layout = *l;
    plan->stages = l->pp;
    if (l->pp < 1 || w->layers % l->pp != 0)
        return sc_err_set(err, SC_ERR_USAGE, "workload %s: %lld layers do not split into %d stages",
                          w->name, w->layers, l->pp);
    int m = l->micro_batches;
    int *actions = malloc(2 * (size_t)m * sizeof(int));
    double *deferred = malloc((size_t)w->layers * sizeof(double) + sizeof(double));
    plan->stage_start = calloc((size_t)l->pp + 1, sizeof(size_t));
    sc_plan_gemm_sets(w, l, plan->gemms);
    double forward_us = sc_plan_layer_us(w, l);
    sc_status_t status = SC_OK;
    if (actions == NULL || deferred == NULL || plan->stage_start == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "no memory for a step plan of %d micro-batches", m);
    for (int s = 0; s < l->pp && status == SC_OK; s++) {
        plan__builder_t b = {.w = w,
                             .l = l,
                             .plan = plan,
                             .stage = s,
                             .deferred = deferred,
                             .forward_us = forward_us,
                             .backward_us = forward_us * sc_plan_backward_factor(w),
                             .err = err};
        plan->stage_start[s] = plan->nops;
        status = plan__stage(&b, actions);
    }
    if (status == SC_OK)
        plan->stage_start[l->pp] = plan->nops;
    free(actions);
    free(deferred);
    if (status != SC_OK)
        sc_plan_free(plan);
    return status;
}

void sc_plan_free(sc_plan_t *plan)
{
    free(plan->ops);
    free(plan->stage_start);
    memset(plan, 0, sizeof(*plan));
}

const sc_plan_op_t *sc_plan_stage(const sc_plan_t *plan, int s, size_t *nops)
{
    *nops = plan->stage_start[s + 1] - plan->stage_start[s];
    return plan->ops + plan->stage_start[s];
}
