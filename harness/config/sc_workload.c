#include "sc_workload.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config/sc_yaml.h"
#include "sc_config.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"
#include "config/sc_workload_schema.h"

#define W(field) offsetof(sc_workload_t, field)
#define BIG      1e15

/* The schema, once: parsing, defaults documentation and workloads/README.md follow it. */
static const sc_field_t workload__workload_fields[] = {
    {"name", SC_FIELD_NAME, W(name), 64, true, 0, 0, NULL, "short name"},
    {"description", SC_FIELD_STRING, W(description), 256, false, 0, 0, NULL, "one line"},
    {"model", SC_FIELD_SECTION, 0, 0, true, 0, 0, NULL, "the model"},
    {"model.kind", SC_FIELD_ENUM, W(kind), 0, false, 0, 0, "transformer|cnn", "architecture"},
    {"model.parameters", SC_FIELD_NUMBER, W(parameters), 0, true, 1, BIG, NULL,
     "trainable parameters (13B, 340M)"},
    {"model.layers", SC_FIELD_INT, W(layers), 0, true, 1, 4096, NULL, "layers"},
    {"model.hidden", SC_FIELD_INT, W(hidden), 0, false, 1, 1e7, NULL, "hidden size"},
    {"model.heads", SC_FIELD_INT, W(heads), 0, false, 1, 1e5, NULL,
     "attention heads (default: hidden / 128): the shape of the attention's batched products"},
    {"model.sequence", SC_FIELD_INT, W(sequence), 0, false, 1, 1e8, NULL, "sequence length"},
    {"model.vocabulary", SC_FIELD_INT, W(vocabulary), 0, false, 1, 1e8, NULL, "vocabulary"},
    {"model.experts", SC_FIELD_INT, W(experts), 0, false, 1, 1e5, NULL, "MoE experts"},
    {"model.top_k", SC_FIELD_INT, W(top_k), 0, false, 1, 64, NULL, "MoE experts per token"},
    {"model.moe_every", SC_FIELD_INT, W(moe_every), 0, false, 1, 1000, NULL,
     "every n-th layer is MoE"},
    {"model.capacity_factor", SC_FIELD_NUMBER, W(capacity_factor), 0, false, 0.1, 100, NULL,
     "MoE capacity factor"},
    {"model.recompute", SC_FIELD_ENUM, W(recompute), 0, false, 0, 0, SC_RECOMPUTE_NAMES,
     "activation recomputation: selective (attention) or full (every layer's forward again)"},
    {"model.attention", SC_FIELD_ENUM, W(attention), 0, false, 0, 0, SC_ATTENTION_NAMES,
     "how attention keeps its scores: standard (in GPU memory for backward) or flash (recomputed "
     "on chip, FlashAttention): the memory traffic the model prices"},
    {"batch", SC_FIELD_SECTION, 0, 0, true, 0, 0, NULL, "the batch"},
    {"batch.micro_batch", SC_FIELD_INT, W(micro_batch), 0, false, 1, 1e7, NULL,
     "samples per micro-batch"},
    {"batch.global_batch", SC_FIELD_INT, W(global_batch), 0, false, 1, 1e9, NULL,
     "samples per step, all GPUs (strong scaling)"},
    {"batch.per_gpu_batch", SC_FIELD_INT, W(per_gpu_batch), 0, false, 1, 1e7, NULL,
     "samples per step per data-parallel rank (weak scaling)"},
    {"batch.scaling", SC_FIELD_ENUM, W(scaling), 0, false, 0, 0, "weak|strong|model",
     "weak: per-GPU batch fixed; strong: global batch fixed; model: tp and the model grow"},
    {"precision", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "number formats"},
    {"precision.gradients", SC_FIELD_ENUM, W(gradients), 0, false, 0, 0, "fp32|fp16|bf16",
     "gradient type"},
    {"precision.activations", SC_FIELD_ENUM, W(activations), 0, false, 0, 0, "fp32|fp16|bf16",
     "activation type"},
    {"precision.compute", SC_FIELD_ENUM, W(compute_precision), 0, false, 0, 0,
     "fp32|fp16|bf16|tf32", "math precision of compute (AMP: fp16); default the activations'"},
    {"parallel", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "the parallel layout"},
    {"parallel.dp", SC_FIELD_INT, W(dp), 0, false, 1, 1e6, NULL, "data-parallel ranks"},
    {"parallel.tp", SC_FIELD_INT, W(tp), 0, false, 1, 1024, NULL, "tensor-parallel ranks"},
    {"parallel.pp", SC_FIELD_INT, W(pp), 0, false, 1, 1024, NULL, "pipeline stages"},
    {"parallel.zero", SC_FIELD_INT, W(zero), 0, false, 0, 3, NULL, "ZeRO stage 0-3"},
    {"parallel.micro_batches", SC_FIELD_INT, W(micro_batches), 0, false, 1, 1e5, NULL,
     "micro-batches per step (pipeline)"},
    {"parallel.schedule", SC_FIELD_ENUM, W(schedule), 0, false, 0, 0, "1f1b|gpipe",
     "pipeline schedule"},
    {"parallel.sequence_parallel", SC_FIELD_BOOL, W(sequence_parallel), 0, false, 0, 0, NULL,
     "TP with reduce-scatter/all-gather"},
    {"data_parallel", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "gradient synchronisation"},
    {"data_parallel.bucket_mb", SC_FIELD_NUMBER, W(bucket_mb), 0, false, 0.001, 1e5, NULL,
     "DDP bucket size in MiB (PyTorch's bucket_cap_mb)"},
    {"data_parallel.overlap", SC_FIELD_BOOL, W(overlap), 0, false, 0, 0, NULL,
     "gradient all-reduce overlaps backward compute"},
    {"compute", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "compute per step"},
    {"compute.mode", SC_FIELD_ENUM, W(compute_mode), 0, false, 0, 0, "flops|time|none",
     "from FLOPs, a fixed time, or none"},
    {"compute.forward_gflops_per_sample", SC_FIELD_NUMBER, W(forward_gflops_per_sample), 0, false,
     1e-6, 1e9, NULL, "forward GFLOPs per sample (CNNs)"},
    {"compute.activations_per_sample", SC_FIELD_NUMBER, W(activations_per_sample), 0, false, 1,
     1e12, NULL,
     "activation elements one sample's forward writes, every layer's outputs (CNNs; a "
     "transformer's come from its shape): the memory traffic the model prices"},
    {"compute.gpu_tflops", SC_FIELD_NUMBER, W(gpu_tflops), 0, false, 0.001, 1e6, NULL,
     "GPU peak TFLOP/s in the compute precision"},
    {"compute.efficiency", SC_FIELD_NUMBER, W(efficiency), 0, false, 0.001, 1, NULL,
     "fraction of peak reached (default: priced from the step's shapes on the system's GPU, "
     "docs/REFERENCE.md section 8.1)"},
    {"compute.step_time_ms", SC_FIELD_NUMBER, W(step_time_ms), 0, false, 0, 1e7, NULL,
     "compute per step (mode time)"},
    {"input", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "the host's input pipeline"},
    {"input.loader", SC_FIELD_ENUM, W(input_loader), 0, false, 0, 0, "cpu|gpu|synthetic",
     "who prepares samples: the host's cores (default), the GPU (DALI/nvJPEG decode, no host "
     "bound) or nobody (synthetic data)"},
    {"input.cpu_ms_per_sample", SC_FIELD_NUMBER, W(input_cpu_ms_per_sample), 0, false, 0, 1e6, NULL,
     "CPU core time per sample (decode, augment) with loader cpu; 0: never the bound"},
    {"input.workers_per_gpu", SC_FIELD_INT, W(input_workers_per_gpu), 0, false, 1, 4096, NULL,
     "decode workers a GPU with loader cpu (a DataLoader's num_workers, DALI's num_threads): a "
     "node decodes on this x its GPUs cores at most (default: all its cores)"},
    {"input.gpu_ms_per_sample", SC_FIELD_NUMBER, W(input_gpu_ms_per_sample), 0, false, 0, 1e6, NULL,
     "GPU time per sample its decode takes with loader gpu (nvJPEG, DALI's mixed "
     "decoder), added to each step's compute; default 0"},
    {NULL, 0, 0, 0, false, 0, 0, NULL, NULL},
};

static void workload__defaults(sc_workload_t *w)
{
    memset(w, 0, sizeof(*w));
    w->kind = SC_MODEL_TRANSFORMER;
    w->micro_batch = 1;
    w->tp = w->pp = 1;
    w->capacity_factor = 1.0;
    w->top_k = 1;
    w->gradients = w->activations = SC_PRECISION_FP32;
    w->compute_precision = -1; /* the activations', once they are read */
    w->bucket_mb = 25.0;
    w->overlap = true;
    w->gpu_tflops = 100.0;
    w->efficiency = 0; /* not stated: sc_workload_efficiency, sc_model_compute_efficiency */
}

/* Rules between fields; the message names the file and the fields. */
static sc_status_t workload__check(const char *path, const sc_workload_t *w, sc_err_t *err)
{
    const char *problem = NULL;
    if (w->kind == SC_MODEL_TRANSFORMER && (w->hidden == 0 || w->sequence == 0))
        problem = "a transformer needs model.hidden and model.sequence";
    else if (w->kind == SC_MODEL_CNN && w->compute_mode == SC_COMPUTE_FLOPS &&
             w->forward_gflops_per_sample == 0)
        problem = "a cnn with compute.mode flops needs compute.forward_gflops_per_sample";
    else if (w->compute_mode == SC_COMPUTE_TIME && w->step_time_ms == 0)
        problem = "compute.mode time needs compute.step_time_ms";
    else if ((w->global_batch == 0) == (w->per_gpu_batch == 0))
        problem = "give exactly one of batch.global_batch and batch.per_gpu_batch";
    else if (w->layers % w->pp != 0)
        problem = "model.layers must be a multiple of parallel.pp";
    else if (w->hidden > 0 && w->hidden % w->tp != 0)
        problem = "model.hidden must be a multiple of parallel.tp";
    else if (w->pp > 1 && w->micro_batches == 0)
        problem = "a pipeline (parallel.pp > 1) needs parallel.micro_batches";
    else if (w->experts > 0 && w->moe_every == 0)
        problem = "model.experts needs model.moe_every";
    else if (w->zero > 0 && (w->tp > 1 || w->pp > 1))
        problem = "parallel.zero is supported with data parallelism alone (tp = pp = 1)";
    else if (w->scaling == SC_SCALING_MODEL && (w->kind != SC_MODEL_TRANSFORMER || w->dp > 1))
        problem = "batch.scaling model grows a transformer's tp (and needs no parallel.dp)";
    if (problem == NULL)
        return SC_OK;
    return sc_err_set(err, SC_ERR_INPUT, "%s: %s", path, problem);
}

sc_status_t sc_workload_load(const char *name, sc_workload_t *w, sc_err_t *err)
{
    char path[PATH_MAX]; /* a shipped workload by its name: resnet50-dp */
    char dirs[SC_FILES_DIRS_MAX];
    sc_files_shipped(name, sc_files_data_dirs("workloads", dirs, sizeof(dirs)), path, sizeof(path));
    workload__defaults(w);
    sc_yaml_doc_t doc;
    sc_status_t status = sc_yaml_load(path, &doc, err);
    if (status != SC_OK)
        return sc_files_shipped_hint(name, dirs, "workload", status, err);
    status = sc_yaml_apply(&doc, workload__workload_fields, w, NULL, err);
    sc_yaml_free(&doc);
    if (status == SC_OK && w->micro_batches == 0)
        w->micro_batches = 1;
    if (status == SC_OK && w->compute_precision < 0)
        w->compute_precision = w->activations;
    if (status == SC_OK && w->heads == 0)
        w->heads = w->hidden >= 128 && w->hidden % 128 == 0 ? w->hidden / 128 : 1;
    return status == SC_OK ? workload__check(path, w, err) : status;
}

sc_status_t sc_workload_layout(const sc_workload_t *w, int nranks, sc_layout_t *l, sc_err_t *err)
{
    long long model = w->tp * w->pp;
    if (nranks % model != 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "workload %s: tp %lld x pp %lld = %lld does not divide %d rank%s",
                          w->name, w->tp, w->pp, model, nranks, nranks == 1 ? "" : "s");
    long long dp = nranks / model;
    if (w->dp > 0 && w->dp != dp)
        return sc_err_set(err, SC_ERR_USAGE,
                          "workload %s: dp %lld x tp %lld x pp %lld needs %lld ranks, not %d",
                          w->name, w->dp, w->tp, w->pp, w->dp * model, nranks);
    if (w->global_batch > 0 && w->global_batch % (dp * w->micro_batch) != 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "workload %s: global batch %lld does not split over dp %lld x "
                          "micro-batch %lld",
                          w->name, w->global_batch, dp, w->micro_batch);
    l->dp = (int)dp;
    l->tp = (int)w->tp;
    l->pp = (int)w->pp;
    l->micro_batch = w->micro_batch;
    /* micro-batches per step: the pipeline's, or what the per-rank batch needs */
    long long per_rank = w->global_batch > 0 ? w->global_batch / dp : w->per_gpu_batch;
    long long needed = (per_rank + w->micro_batch - 1) / w->micro_batch;
    l->micro_batches = (int)(w->pp > 1 ? w->micro_batches : needed);
    return SC_OK;
}

sc_status_t sc_workload_override(sc_workload_t *w, int tp, int pp, sc_err_t *err)
{
    if (tp > 0)
        w->tp = tp;
    if (pp > 0)
        w->pp = pp;
    char where[128];
    snprintf(where, sizeof(where), "--tp %lld --pp %lld on workload %s", w->tp, w->pp, w->name);
    return tp > 0 || pp > 0 ? workload__check(where, w, err) : SC_OK;
}

/* A multiple of m near x (at least m). */
static long long workload__multiple(double x, long long m)
{
    long long k = (long long)(x / (double)m + 0.5);
    return (k > 0 ? k : 1) * m;
}

void sc_workload_at(const sc_workload_t *w, int nranks, sc_workload_t *out)
{
    *out = *w;
    if (w->scaling != SC_SCALING_MODEL || nranks % w->pp != 0)
        return;
    long long tp = nranks / w->pp;
    double growth = (double)tp / (double)w->tp;
    out->tp = tp;
    out->hidden = workload__multiple((double)w->hidden * pow(growth, 0.47), tp);
    out->layers = workload__multiple((double)w->layers * pow(growth, 0.25), w->pp);
    double h = (double)out->hidden / (double)w->hidden;
    out->parameters = w->parameters * h * h * ((double)out->layers / (double)w->layers);
}

double sc_workload_efficiency(const sc_workload_t *w)
{
    return w->efficiency > 0 ? w->efficiency : SC_DEFAULT_COMPUTE_EFFICIENCY;
}

sc_dtype_t sc_precision_dtype(int precision)
{
    return precision == SC_PRECISION_FP16   ? SC_DTYPE_fp16
           : precision == SC_PRECISION_BF16 ? SC_DTYPE_bf16
                                            : SC_DTYPE_float;
}

double sc_workload_samples_per_step(const sc_workload_t *w, const sc_layout_t *l)
{
    return (double)l->dp * (double)l->micro_batches * (double)w->micro_batch;
}

double sc_workload_layer_forward_flops(const sc_workload_t *w)
{
    if (w->forward_gflops_per_sample > 0)
        return w->forward_gflops_per_sample * 1e9 / (double)w->layers;
    /* Transformer layer, per sample (Megatron-LM's count): 24 s h^2 + 4 s^2 h. */
    double s = (double)w->sequence, h = (double)w->hidden;
    return 24.0 * s * h * h + 4.0 * s * s * h;
}

double sc_workload_train_flops_per_sample(const sc_workload_t *w)
{
    return 3.0 * sc_workload_layer_forward_flops(w) * (double)w->layers;
}

const sc_field_t *sc_workload_schema(void)
{
    return workload__workload_fields;
}
