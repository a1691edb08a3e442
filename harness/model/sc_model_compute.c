/* sc_model_compute.c - the share of its GPU's peak a step computes at, where the workload does
 * not state it: one published figure per kind of model and GPU generation (docs/REFERENCE.md
 * section 8.1), the same for every system, and said in the output. A workload written from a
 * model card alone then predicts what such models reach, not half the peak. */
#include <stdio.h>
#include <string.h>

#include "sc_model.h"
#include "util/sc_defaults.h"

typedef struct {
    int kind;     /* sc_model_kind_t */
    int cc_from;  /* the generation: compute capability at least this ... */
    int cc_below; /* ... and below this */
    double efficiency;
    const char *basis;
} model_compute__published_t;

/* Transformers: hardware FLOPs over peak in published large runs (mixed precision). CNNs: the
 * published ResNet-50 v1.5 throughput at its model card's 4.1 GFLOPs a forward. */
static const model_compute__published_t model_compute__published[] = {
    {SC_MODEL_TRANSFORMER, 70, 80, 0.30,
     "transformer on Volta: 39 of 125 TFLOP/s a V100 (Shoeybi et al. 2019, Megatron-LM)"},
    {SC_MODEL_TRANSFORMER, 80, 90, 0.45,
     "transformer on Ampere: 137-163 of 312 TFLOP/s an A100 (Narayanan et al. 2021, table 1)"},
    {SC_MODEL_TRANSFORMER, 90, 100, 0.40,
     "transformer on Hopper: 38-43 % BF16 MFU on 16k H100 (Llama 3 paper 2024, table 4)"},
    {SC_MODEL_CNN, 80, 90, 0.0974,
     "CNN: ResNet-50 v1.5, 2470 img/s an A100 with AMP at 4.1 GFLOPs (NVIDIA "
     "DeepLearningExamples)"},
};

/* The figure for w's kind on t's GPU generation, else the nearest generation's (*nearest set;
 * another vendor's GPU counts as Ampere's peer). */
static const model_compute__published_t *
model_compute__figure(const sc_topology_t *t, const sc_workload_t *w, bool *nearest)
{
    int known = sc_topology_gpu_cc(t); /* 0: another vendor's GPU, Ampere's peer */
    int cc = known > 0 ? known : 80;
    const model_compute__published_t *near = NULL;
    int best = 1 << 20;
    for (size_t i = 0; i < sizeof(model_compute__published) / sizeof(model_compute__published[0]);
         i++) {
        const model_compute__published_t *f = &model_compute__published[i];
        if (f->kind != w->kind)
            continue;
        if (known > 0 && cc >= f->cc_from && cc < f->cc_below) {
            *nearest = false;
            return f;
        }
        int distance = cc < f->cc_from ? f->cc_from - cc : cc - (f->cc_below - 1);
        if (distance < best) {
            best = distance;
            near = f;
        }
    }
    *nearest = true;
    return near;
}

/* The TFLOP/s calibrate measured on w's own products here (0: none for w). */
static double model_compute__measured(const sc_topology_t *t, const sc_workload_t *w)
{
    return t->cal_compute_tflops > 0 && strcmp(t->cal_compute_workload, w->name) == 0
               ? t->cal_compute_tflops
               : 0.0;
}

double sc_model_compute_efficiency(const sc_topology_t *t, const sc_workload_t *w)
{
    double measured = model_compute__measured(t, w),
           peak = sc_topology_tflops(t, w->compute_precision);
    if (measured > 0 && peak > 0) /* what this machine did beats any stated share */
        return measured / peak;
    if (w->efficiency > 0)
        return w->efficiency;
    bool nearest;
    const model_compute__published_t *f = model_compute__figure(t, w, &nearest);
    return f != NULL ? f->efficiency : SC_DEFAULT_COMPUTE_EFFICIENCY;
}

void sc_model_compute_describe(const sc_topology_t *t, const sc_workload_t *w, char *buf,
                               size_t len)
{
    double peak = sc_topology_tflops(t, w->compute_precision);
    double e = sc_model_compute_efficiency(t, w);
    if (w->compute_mode != SC_COMPUTE_FLOPS) {
        snprintf(buf, len, "compute: %s",
                 w->compute_mode == SC_COMPUTE_TIME
                     ? "compute.step_time_ms as the workload states it"
                     : "none");
        return;
    }
    if (model_compute__measured(t, w) > 0 && peak > 0) {
        snprintf(buf, len,
                 "compute: %.1f %% of %.0f TFLOP/s (measured here: calibrate timed the "
                 "workload's own products, %.4g TFLOP/s)",
                 100 * e, peak, model_compute__measured(t, w));
        return;
    }
    if (w->efficiency > 0) {
        snprintf(buf, len, "compute: %.1f %% of %.0f TFLOP/s (declared by the workload)", 100 * e,
                 peak);
        return;
    }
    bool nearest;
    const model_compute__published_t *f = model_compute__figure(t, w, &nearest);
    snprintf(buf, len, "compute: %.1f %% of %.0f TFLOP/s (assumed%s: %s)", 100 * e, peak,
             nearest ? ", the nearest published figure" : "", f ? f->basis : "no published figure");
}
