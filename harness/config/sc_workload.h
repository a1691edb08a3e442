/* sc_workload.h - what one training step communicates and computes, as a practitioner writes
 * it (workloads/README.md): the model, the batch, precision, the parallel layout (dp, tp, pp,
 * ZeRO stage, micro-batches, schedule), DDP buckets and overlap, and how long compute takes.
 * Loaded from YAML through the schema engine; every error names file:line:column. */
#ifndef SC_WORKLOAD_H
#define SC_WORKLOAD_H

#include <stdbool.h>

#include "util/sc_dtype.h"
#include "util/sc_status.h"

typedef enum { SC_MODEL_TRANSFORMER, SC_MODEL_CNN } sc_model_kind_t;
typedef enum { SC_SCHEDULE_1F1B, SC_SCHEDULE_GPIPE } sc_schedule_t;
/* weak: per-GPU batch fixed; strong: global batch fixed; model: tp grows with the GPU count and
 * the model with it as Megatron-LM's table grows it (sc_workload_at). */
typedef enum { SC_SCALING_WEAK, SC_SCALING_STRONG, SC_SCALING_MODEL } sc_scaling_t;
typedef enum { SC_COMPUTE_FLOPS, SC_COMPUTE_TIME, SC_COMPUTE_NONE } sc_compute_mode_t;
/* Activation recomputation (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
 * Transformer Models"): none; selective (the attention's score and context products are computed
 * again in backward); full (every layer's forward again, its tensor-parallel collectives too,
 * keeping only the layer's input). */
typedef enum { SC_RECOMPUTE_NONE, SC_RECOMPUTE_SELECTIVE, SC_RECOMPUTE_FULL } sc_recompute_t;
#define SC_RECOMPUTE_NAMES "none|selective|full"
/* How attention keeps its score matrices: in GPU memory for backward (standard), or recomputed
 * in on-chip memory (FlashAttention: Dao et al., arXiv:2205.14135) - no traffic for them. */
typedef enum { SC_ATTENTION_STANDARD, SC_ATTENTION_FLASH } sc_attention_t;
#define SC_ATTENTION_NAMES "standard|flash"
/* Who prepares the samples: the host's cores (input.cpu_ms_per_sample each), the GPU (DALI or
 * nvJPEG decode: part of the GPU's work, no host bound), or nobody (synthetic data). */
typedef enum { SC_LOADER_CPU, SC_LOADER_GPU, SC_LOADER_SYNTHETIC } sc_loader_t;
/* tf32 is a compute precision only (tensor cores on fp32 data); data travels as fp32. */
typedef enum {
    SC_PRECISION_FP32,
    SC_PRECISION_FP16,
    SC_PRECISION_BF16,
    SC_PRECISION_TF32
} sc_precision_t;

typedef struct {
    char name[64];
    char description[256];
    /* model */
    int kind; /* sc_model_kind_t */
    double parameters;
    long long layers, hidden, sequence, vocabulary;
    long long heads;                     /* attention heads (0 in the file: hidden / 128) */
    long long experts, top_k, moe_every; /* mixture of experts: every moe_every-th layer */
    double capacity_factor;
    int recompute; /* sc_recompute_t */
    int attention; /* sc_attention_t */
    /* batch */
    long long micro_batch, global_batch, per_gpu_batch;
    int scaling; /* sc_scaling_t */
    /* precision */
    int gradients, activations; /* sc_precision_t */
    int compute_precision;      /* the math the GPU's peak is taken for; default: activations */
    /* parallel */
    long long dp, tp, pp, zero, micro_batches; /* dp 0 = whatever the rank count leaves */
    int schedule;                              /* sc_schedule_t */
    bool sequence_parallel;
    /* data_parallel */
    double bucket_mb;
    bool overlap;
    /* compute */
    int compute_mode;                 /* sc_compute_mode_t */
    double forward_gflops_per_sample; /* 0: derived from the transformer's shape */
    double activations_per_sample;    /* CNNs: elements a forward writes; 0: not stated */
    double gpu_tflops;
    double efficiency;   /* of peak; 0: not stated - the model prices the step from its shapes
                            (sc_model_compute.c), a run spins at SC_DEFAULT_COMPUTE_EFFICIENCY */
    double step_time_ms; /* SC_COMPUTE_TIME: compute per step */
    /* input pipeline: host CPU time per sample (decode, augment); the node's cores feed its
     * GPUs, so a step is never shorter than the node's samples x this / cores. 0: not bound */
    double input_cpu_ms_per_sample;
    long long input_workers_per_gpu; /* decode threads a GPU; 0: all the node's cores */
    double input_gpu_ms_per_sample;  /* loader gpu: the decode's GPU time a sample */
    int input_loader;                /* sc_loader_t */
} sc_workload_t;

/* Loads and checks a file, or a shipped workload by its name ("resnet50-dp"): schema and
 * cross-field rules. */
sc_status_t sc_workload_load(const char *name, sc_workload_t *w, sc_err_t *err);

/* The layout on n ranks: dp = n / (tp pp) when not given. SC_ERR_USAGE with a clear message
 * when it does not fit ("tp 8 x pp 4 = 32 does not divide 8 ranks"). */
typedef struct {
    int dp, tp, pp;
    int micro_batches; /* per step, per pipeline */
    long long micro_batch;
} sc_layout_t;
sc_status_t sc_workload_layout(const sc_workload_t *w, int nranks, sc_layout_t *layout,
                               sc_err_t *err);

/* The workload as it runs on nranks: itself, or - scaling model - tp grown to nranks / pp and
 * the model with it: hidden x growth^0.47 (a multiple of tp) and layers x growth^0.25 (a
 * multiple of pp), the growth of Megatron-LM's weak-scaling table (Narayanan et al., SC21,
 * table 1: tp 1 to 8 took hidden 2304 to 6144 and layers 24 to 40); parameters as 12 L h^2. */
void sc_workload_at(const sc_workload_t *w, int nranks, sc_workload_t *out);

/* --tp/--pp given on the command line, applied and checked as the file's own values are. */
sc_status_t sc_workload_override(sc_workload_t *w, int tp, int pp, sc_err_t *err);

sc_dtype_t sc_precision_dtype(int precision);

/* The share of the GPU's peak the step plan computes at: compute.efficiency, else
 * SC_DEFAULT_COMPUTE_EFFICIENCY (the model replaces an unstated one by the GPU's published
 * figure: sc_model_compute_efficiency). */
double sc_workload_efficiency(const sc_workload_t *w);
/* Samples one step processes on the whole layout (global batch). */
double sc_workload_samples_per_step(const sc_workload_t *w, const sc_layout_t *l);
/* Forward FLOPs of one sample through one layer. */
double sc_workload_layer_forward_flops(const sc_workload_t *w);
/* A sample's training FLOPs: forward and backward (twice the forward) through every layer - the
 * work a scaling efficiency counts (Megatron-LM's per-GPU FLOP/s). */
double sc_workload_train_flops_per_sample(const sc_workload_t *w);

#endif
