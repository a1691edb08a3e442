/* sc_model_compute.c - the share of its GPU's peak a step computes at, where nothing was measured
 * and the workload does not state it: priced from the step's shapes (docs/REFERENCE.md section
 * 8.1). A sample's time is its products' FLOPs at the share of peak cuBLAS reaches on large
 * products, in the compute precision, plus the memory traffic of its activations - what the
 * normalisations, activation functions, softmax, dropout and residual sums read and write -
 * at the GPU memory's rate: tensor cores speed the first term up, not the second, so FP32,
 * TF32 and mixed precision come apart as the published tables do. The traffic is each stored
 * activation byte read and written a number of times per training step, one figure per kind of
 * model fitted on one published row; the rest of the published rows are checks
 * (tests/integration/throughput.py). Without the memory's rate or the activations' count, the
 * published share of the model's kind on the GPU's generation is taken, and said. */
#include <stdbool.h>
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

/* How many bytes of traffic each byte of stored activations makes in one training step (its
 * writes and reads in forward, backward and the elementwise work), by kind: each fitted on one
 * published row, passes = (1 / samples/s - FLOPs / (peak x SC_DEFAULT_GEMM_SHARE)) x memory
 * rate / stored bytes. */
typedef struct {
    int kind;
    double passes;
} model_compute__traffic_t;

static const model_compute__traffic_t model_compute__traffic[] = {
    /* BERT-large at sequence 128 with AMP: 580 sequences/s on one A100 80GB (NVIDIA
     * DeepLearningExamples, PyTorch BERT README) */
    {SC_MODEL_TRANSFORMER, 9.43},
    /* ResNet-50 v1.5 with AMP: 2470 img/s on one A100 80GB (the PyTorch ResNet-50 v1.5 README) */
    {SC_MODEL_CNN, 31.4},
};

static const model_compute__traffic_t *model_compute__traffic_of(int kind)
{
    for (size_t i = 0; i < sizeof(model_compute__traffic) / sizeof(model_compute__traffic[0]); i++)
        if (model_compute__traffic[i].kind == kind)
            return &model_compute__traffic[i];
    return NULL;
}

/* Bytes of activations one sample's forward stores for its backward on one GPU, in the
 * activations' type: a transformer's from its shape - s h (34 + 5 a s / h) bytes a layer in
 * 16-bit types, of which tensor parallelism over t GPUs splits 24 + 5 a s / h and sequence
 * parallelism the rest (Korthikanti et al., arXiv:2205.05198, sections 4.1-4.2); the 5 a s / h
 * are the attention's scores, which FlashAttention never stores - and a CNN's
 * from the elements the workload states (0: unknown). */
static double model_compute__stored_bytes(const sc_workload_t *w)
{
    double element = w->activations == SC_PRECISION_FP32 ? 4.0 : 2.0;
    if (w->kind == SC_MODEL_TRANSFORMER) {
        double s = (double)w->sequence, h = (double)w->hidden, tp = (double)w->tp;
        double a = (double)(w->heads > 0 ? w->heads : 1);
        double scores = w->attention == SC_ATTENTION_FLASH ? 0.0 : 5.0 * a * s / h;
        double split = 24.0 + scores;
        double kept = w->sequence_parallel ? 10.0 / tp : 10.0;
        return (double)w->layers * s * h * (kept + split / tp) * element / 2.0;
    }
    return w->activations_per_sample * element / (double)w->tp;
}

/* A sample's time from its shapes on t, split into its products' and its traffic's (s); false
 * where t or w lacks what it takes (the memory's rate, the peak, the activations). */
typedef struct {
    double math_s, traffic_s, traffic_bytes, hbm_GBps;
} model_compute__shapes_t;

static bool model_compute__shapes(const sc_topology_t *t, const sc_workload_t *w,
                                  model_compute__shapes_t *out)
{
    double peak = sc_topology_tflops(t, w->compute_precision), hbm = sc_topology_hbm_GBps(t);
    const model_compute__traffic_t *fit = model_compute__traffic_of(w->kind);
    double stored = model_compute__stored_bytes(w);
    if (peak <= 0 || hbm <= 0 || fit == NULL || stored <= 0)
        return false;
    out->hbm_GBps = hbm;
    /* one GPU's share of a sample: its products split over the tensor-parallel group */
    out->math_s = sc_workload_train_flops_per_sample(w) / (double)w->tp /
                  (peak * 1e12 * SC_DEFAULT_GEMM_SHARE);
    out->traffic_bytes = fit->passes * stored;
    out->traffic_s = out->traffic_bytes / (hbm * 1e9);
    return true;
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
    model_compute__shapes_t shapes;
    if (model_compute__shapes(t, w, &shapes))
        return SC_DEFAULT_GEMM_SHARE * shapes.math_s / (shapes.math_s + shapes.traffic_s);
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
    model_compute__shapes_t shapes;
    if (model_compute__shapes(t, w, &shapes)) {
        snprintf(buf, len,
                 "compute: %.1f %% of %.0f TFLOP/s (from the step's shapes: products at %.0f %% "
                 "of peak, %.3g GB of activation traffic a sample at %.0f GB/s, %.0f %% of the "
                 "time; docs/REFERENCE.md 8.1)",
                 100 * e, peak, 100 * SC_DEFAULT_GEMM_SHARE, shapes.traffic_bytes * 1e-9,
                 shapes.hbm_GBps, 100 * shapes.traffic_s / (shapes.math_s + shapes.traffic_s));
        return;
    }
    bool nearest;
    const model_compute__published_t *f = model_compute__figure(t, w, &nearest);
    snprintf(buf, len, "compute: %.1f %% of %.0f TFLOP/s (assumed%s: %s)", 100 * e, peak,
             nearest ? ", the nearest published figure" : "", f ? f->basis : "no published figure");
}
