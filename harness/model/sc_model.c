/* sc_model.c - the alpha-beta model. Per algorithm step a latency alpha (the fabric's), per byte
 * 1/B with B the bottleneck per-GPU bandwidth as software reaches it (link rate x efficiency).
 * Ring all-reduce over n: 2(n-1) alpha + 2(n-1)/n S/B (inside a node NCCL's tree is a chain:
 * rings only). NVLS: 2 alpha + S x busbw factor / B_nvls. Across nodes: rings bounded by the
 * node's NICs, or a tree over nodes. The smallest predicted time wins, as in NCCL's tuner. */
#include "sc_model.h"

#include <math.h>
#include <string.h>

static bool sc__is(const sc_coll_t *c, const char *name)
{
    return strcmp(c->name, name) == 0;
}

/* One level (intra or inter) of a ring: alpha per step, bandwidth B (GB/s). */
static double sc__ring_us(const sc_coll_t *c, double bytes, int n, double alpha_us, double B)
{
    if (n <= 1)
        return 0.0;
    double steps = sc__is(c, "allreduce") ? 2.0 * (n - 1) : (double)(n - 1);
    double factor = c->busbw_factor(n);
    if (sc__is(c, "sendrecv"))
        steps = 1;
    return steps * alpha_us + factor * bytes / (B * 1e3); /* GB/s = 1e3 bytes/us */
}

static void sc__finish(const sc_coll_t *c, double size, int n, double us, const char *alg,
                       sc_prediction_t *out)
{
    out->algorithm = alg;
    out->time_us = us > 0 ? us : 0.5; /* a launch costs something even alone */
    out->algbw_GBps = size / out->time_us / 1e3;
    out->busbw_GBps = out->algbw_GBps * c->busbw_factor(n);
}

static void sc__single_node(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                            sc_prediction_t *out)
{
    double B = sc_topology_intra_GBps(t), alpha = t->intra_latency_us;
    double ring = sc__ring_us(c, size, g, alpha, B);
    const char *alg = "ring";
    double best = ring;
    if (t->nvls && sc__is(c, "allreduce") && g > 1) {
        double nvls = 2.0 * alpha + size * c->busbw_factor(g) / (t->nvls_busbw_GBps * 1e3);
        if (nvls < best) {
            best = nvls;
            alg = "nvls";
        }
    }
    sc__finish(c, size, g, best, alg, out);
}

/* Across nodes. NCCL runs one ring (or tree) per channel with a NIC per channel, so every
 * ring's node crossing gets a NIC: the ring's bottleneck is min(per-GPU intra bandwidth, the
 * node's total NIC bandwidth) - 8 x HDR gives ~188 GB/s busbw on DGX A100 pairs, as measured
 * publicly. The tree (all-reduce) pays log2(nodes) network latencies instead of n. All-to-all
 * sends (N-1)/N of every GPU's buffer through the node's NICs. */
static void sc__multi_node(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                           int nodes, sc_prediction_t *out)
{
    double Bi = g > 1 ? sc_topology_intra_GBps(t) : 1e9, Bnode = sc_topology_inter_GBps(t, 1);
    double B = Bi < Bnode ? Bi : Bnode;
    double ai = t->intra_latency_us, an = t->nic_latency_us * (1.0 + 0.5 * t->switch_tiers);
    int n = g * nodes;
    const char *alg = "ring";
    double us;
    if (sc__is(c, "alltoall")) {
        us = (n - 1) * an + g * size * (double)(nodes - 1) / nodes / (Bnode * 1e3) +
             size / nodes * (double)(g - 1) / g / (Bi * 1e3);
        alg = "p2p";
    } else {
        double steps = sc__is(c, "allreduce") ? 2.0 : 1.0;
        us = steps * ((n - nodes) * ai + nodes * an) + c->busbw_factor(n) * size / (B * 1e3);
        if (sc__is(c, "allreduce")) {
            /* same bandwidth term (NCCL's trees reach the ring's busbw), fewer latencies */
            double tree = 2.0 * ceil(log2((double)nodes)) * an + 2.0 * (g - 1) * ai +
                          c->busbw_factor(n) * size / (B * 1e3);
            if (tree < us) {
                us = tree;
                alg = "tree";
            }
        }
    }
    sc__finish(c, size, n, us, alg, out);
}

void sc_model_collective(const sc_topology_t *t, const sc_coll_t *coll, double size_bytes,
                         int gpus_per_node, int nodes, sc_prediction_t *out)
{
    int n = gpus_per_node * nodes;
    if (n <= 1) {
        /* one GPU: a local copy at memory speed */
        double mem = t->gpu_memory_GBps > 0 ? t->gpu_memory_GBps / 2 : 100.0;
        sc__finish(coll, size_bytes, 1, t->intra_latency_us + size_bytes / (mem * 1e3), "local",
                   out);
    } else if (nodes <= 1) {
        sc__single_node(t, coll, size_bytes, gpus_per_node, out);
    } else {
        sc__multi_node(t, coll, size_bytes, gpus_per_node, nodes, out);
    }
}

static double sc__coll_us(const sc_topology_t *t, const char *name, double bytes, int g, int nodes)
{
    const sc_coll_t *coll = NULL;
    if (sc_coll_find(name, "model", &coll, NULL) != SC_OK || g * nodes <= 1)
        return 0.0;
    sc_prediction_t p;
    sc_model_collective(t, coll, bytes, g, nodes, &p);
    return p.time_us;
}

/* Where a group of `size` ranks, `stride` apart in the grid, lands: GPUs per node and nodes. */
static void sc__place(int size, int stride, int gpus_per_node, int *g, int *nodes)
{
    int span = size * stride; /* ranks the group stretches over */
    if (span <= gpus_per_node) {
        *g = size;
        *nodes = 1;
    } else {
        *nodes = (span + gpus_per_node - 1) / gpus_per_node;
        *g = size / *nodes > 0 ? size / *nodes : 1;
    }
}

sc_status_t sc_model_step(const sc_topology_t *t, const sc_workload_t *w, int gpus_per_node,
                          int nodes, double bytes_scale, double compute_scale,
                          sc_step_prediction_t *out, sc_err_t *err)
{
    sc_layout_t l;
    sc_status_t status = sc_workload_layout(w, gpus_per_node * nodes, &l, err);
    if (status != SC_OK)
        return status;
    sc_workload_t wt = *w;
    double peak = sc_topology_tflops(t, w->gradients);
    if (peak > 0)
        wt.gpu_tflops = peak;
    int m = l.micro_batches;
    double layers = (double)w->layers / l.pp;
    double fwd_ms = 0;
    if (w->compute_mode == SC_COMPUTE_FLOPS)
        fwd_ms = sc_workload_layer_forward_flops(&wt) * (double)w->micro_batch / l.tp /
                 (wt.gpu_tflops * 1e12 * wt.efficiency) * 1e3;
    else if (w->compute_mode == SC_COMPUTE_TIME)
        fwd_ms = w->step_time_ms / 3.0 / layers / m;
    fwd_ms *= compute_scale;
    double compute = 3.0 * fwd_ms * layers * m;
    double gsize = (double)sc_dtype_size(sc_precision_dtype(w->gradients));
    double act = (double)w->micro_batch * (double)(w->sequence ? w->sequence : 1) *
                 (double)w->hidden * (double)sc_dtype_size(sc_precision_dtype(w->activations)) *
                 bytes_scale;
    int g, nn;
    double comm = 0;
    /* TP: 4 all-reduces per layer and micro-batch (not overlapped) */
    sc__place(l.tp, 1, gpus_per_node, &g, &nn);
    comm += 4.0 * layers * m * sc__coll_us(t, "allreduce", act, g, nn) * 1e-3;
    /* PP: the bubble, and 2 messages per micro-batch */
    if (l.pp > 1) {
        sc__place(l.pp, l.tp, gpus_per_node, &g, &nn);
        comm += 2.0 * m * sc__coll_us(t, "sendrecv", act, nn > 1 ? 1 : 2, nn > 1 ? 2 : 1) * 1e-3;
        compute += (double)(l.pp - 1) / m * compute;
    }
    /* DP: the gradients; overlapped with the last micro-batch's backward when asked */
    sc__place(l.dp, l.tp * l.pp, gpus_per_node, &g, &nn);
    double grads = w->parameters / l.tp / l.pp * gsize * bytes_scale;
    double dp_ms = sc__coll_us(t, w->zero ? "reducescatter" : "allreduce", grads, g, nn) * 1e-3;
    if (w->zero == 3)
        dp_ms += 2.0 * w->layers * m *
                 sc__coll_us(t, "allgather", grads / (double)w->layers, g, nn) * 1e-3;
    if (w->experts > 0)
        dp_ms += 4.0 * ((double)w->layers / w->moe_every) * m *
                 sc__coll_us(t, "alltoall", act * w->top_k * w->capacity_factor, g, nn) * 1e-3;
    double window = w->overlap && w->zero != 3 ? 2.0 * fwd_ms * layers : 0.0;
    comm += dp_ms > window ? dp_ms - window : 0.0;
    out->gpus = gpus_per_node * nodes;
    out->nodes = nodes;
    out->dp = l.dp;
    out->tp = l.tp;
    out->pp = l.pp;
    out->compute_ms = compute;
    out->comm_ms = comm;
    out->step_ms = compute + comm > 1e-6 ? compute + comm : 1e-6;
    out->throughput = sc_workload_samples_per_step(w, &l) / (out->step_ms * 1e-3);
    out->speedup = out->efficiency = 1.0;
    return SC_OK;
}
