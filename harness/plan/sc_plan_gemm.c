/* sc_plan_gemm.c - the matrix products of one layer, for one micro-batch on one rank: what the
 * step runs on a GPU and what the plan's compute time is priced from (docs/REFERENCE.md §8.1).
 * A transformer layer is Megatron-LM's tensor-parallel split (Shoeybi et al. 2019, section 3):
 * the QKV projection and the MLP's first product split by columns, the output projection and
 * the MLP's second by rows, the attention's score and context products batched over the rank's
 * heads - 24 b s h^2 / tp + 4 b s^2 h / tp FLOPs, Megatron's count. A CNN layer is one
 * convolution as the implicit GEMM cuDNN runs it (output pixels x output channels x input
 * channels x 3 x 3) at 14 x 14, its channels chosen so that it computes the layer's declared
 * FLOPs. Backward: for every product its input gradient (m x k from m x n by n x k) and its
 * weight gradient (k x n from k x m by m x n), after the recomputed forward products. */
#include "sc_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static sc_gemm_type_t plan_gemm__type(int precision)
{
    switch (precision) {
    case SC_PRECISION_FP16:
        return SC_GEMM_fp16;
    case SC_PRECISION_BF16:
        return SC_GEMM_bf16;
    case SC_PRECISION_TF32:
        return SC_GEMM_tf32;
    default:
        return SC_GEMM_fp32;
    }
}

static void plan_gemm__transformer(const sc_workload_t *w, const sc_layout_t *l, sc_gemm_set_t *f)
{
    double b = (double)w->micro_batch, s = (double)w->sequence, h = (double)w->hidden;
    double a = (double)(w->heads > 0 ? w->heads : 1), t = (double)l->tp, tokens = b * s;
    sc_gemm_set_add(f, "qkv", tokens, 3 * h / t, h, 1);
    sc_gemm_set_add(f, "scores", s, s, h / a, b * a / t);
    sc_gemm_set_add(f, "context", s, h / a, s, b * a / t);
    sc_gemm_set_add(f, "proj", tokens, h, h / t, 1);
    sc_gemm_set_add(f, "mlp_up", tokens, 4 * h / t, h, 1);
    sc_gemm_set_add(f, "mlp_down", tokens, h, 4 * h / t, 1);
    if (w->forward_gflops_per_sample > 0) { /* stated: the shapes' tokens scaled to it */
        double stated = w->forward_gflops_per_sample * 1e9 / (double)w->layers * b / t;
        double ratio = stated / sc_gemm_set_flops(f);
        for (int i = 0; i < f->n; i++)
            f->items[i].m *= ratio;
    }
}

/* 14 x 14 output pixels, a 3 x 3 kernel, as many channels in as out */
#define PLAN_GEMM__PIXELS 196.0
#define PLAN_GEMM__TAPS   9.0

static void plan_gemm__cnn(const sc_workload_t *w, const sc_layout_t *l, sc_gemm_set_t *f)
{
    double per_sample = w->forward_gflops_per_sample * 1e9 / (double)w->layers;
    double channels = sqrt(per_sample / (2.0 * PLAN_GEMM__PIXELS * PLAN_GEMM__TAPS));
    sc_gemm_set_add(f, "conv3x3", (double)w->micro_batch * PLAN_GEMM__PIXELS, channels / l->tp,
                    PLAN_GEMM__TAPS * channels, 1);
}

/* name + suffix, cut to the shape's name */
static void plan_gemm__add(sc_gemm_set_t *set, const sc_gemm_shape_t *s, const char *suffix,
                           double m, double n, double k)
{
    char name[sizeof(s->name)];
    size_t keep = sizeof(name) - 1 - strlen(suffix);
    snprintf(name, sizeof(name), "%.*s%s", (int)keep, s->name, suffix);
    sc_gemm_set_add(set, name, m, n, k, s->batch);
}

static bool plan_gemm__recomputed(const sc_workload_t *w, const sc_gemm_shape_t *s)
{
    if (w->recompute == SC_RECOMPUTE_FULL)
        return true;
    return w->recompute == SC_RECOMPUTE_SELECTIVE && w->kind == SC_MODEL_TRANSFORMER &&
           w->forward_gflops_per_sample == 0 &&
           (strcmp(s->name, "scores") == 0 || strcmp(s->name, "context") == 0);
}

static void plan_gemm__backward(const sc_workload_t *w, const sc_gemm_set_t *f, sc_gemm_set_t *b)
{
    b->type = f->type;
    for (int i = 0; i < f->n; i++)
        if (plan_gemm__recomputed(w, &f->items[i]))
            plan_gemm__add(b, &f->items[i], ".re", f->items[i].m, f->items[i].n, f->items[i].k);
    for (int i = f->n - 1; i >= 0; i--) { /* backward runs the layer in reverse */
        const sc_gemm_shape_t *s = &f->items[i];
        plan_gemm__add(b, s, ".dgrad", s->m, s->k, s->n);
        plan_gemm__add(b, s, ".wgrad", s->k, s->n, s->m);
    }
}

void sc_plan_gemm_sets(const sc_workload_t *w, const sc_layout_t *l,
                       sc_gemm_set_t sets[SC_PHASE_COUNT])
{
    memset(sets, 0, SC_PHASE_COUNT * sizeof(*sets));
    sc_gemm_set_t *f = &sets[SC_PHASE_FORWARD];
    f->type = plan_gemm__type(w->compute_precision);
    sets[SC_PHASE_OPTIMIZER].type = f->type;
    if (w->kind == SC_MODEL_TRANSFORMER)
        plan_gemm__transformer(w, l, f);
    else if (w->forward_gflops_per_sample > 0)
        plan_gemm__cnn(w, l, f);
    plan_gemm__backward(w, f, &sets[SC_PHASE_BACKWARD]);
}
