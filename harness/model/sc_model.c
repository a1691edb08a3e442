/* sc_model.c - the alpha-beta model. Per algorithm step a latency alpha (the fabric's), per byte
 * 1/B with B the bottleneck per-GPU bandwidth as software reaches it (link rate x efficiency).
 * Ring all-reduce over n: 2(n-1) alpha + 2(n-1)/n S/B (inside a node NCCL's tree is a chain:
 * rings only). NVLS (NVLink SHARP, in the switch): 2 alpha + S / algbw_nvls. Across nodes:
 * rings bounded by the node's NICs, a tree over nodes, or IB SHARP (the switches reduce: each
 * node's share crosses its NICs once each way). The smallest predicted time wins, as in NCCL's
 * tuner, unless the topology's `algo` (--algo) forces one; a forced algorithm the system lacks
 * falls back to the ring, as NCCL does. */
#include "sc_model.h"

#include <math.h>

static bool sc__is(const sc_coll_t *c, sc_coll_id_t id)
{
    return c->id == id;
}

/* One level (intra or inter) of a ring: alpha per step, bandwidth B (GB/s). */
static double sc__ring_us(const sc_coll_t *c, double bytes, int n, double alpha_us, double B)
{
    if (n <= 1)
        return 0.0;
    return sc_coll_ring_steps(c, n) * alpha_us + c->busbw_factor(n) * bytes / (B * 1e3);
}

static void sc__finish(const sc_coll_t *c, double size, int n, double us, const char *alg,
                       sc_prediction_t *out)
{
    out->algorithm = alg;
    out->time_us = us > 0 ? us : 0.5; /* a launch costs something even alone */
    out->algbw_GBps = size / out->time_us / 1e3;
    out->busbw_GBps = out->algbw_GBps * c->busbw_factor(n);
}

/* Whether the algorithm may be used: auto, or forced to it. */
static bool sc__may(const sc_topology_t *t, sc_algo_t algo)
{
    return t->algo == SC_ALGO_auto || t->algo == (int)algo;
}

static void sc__single_node(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                            sc_prediction_t *out)
{
    double B, alpha;
    sc_topology_intra_path(t, size, g, &alpha, &B);
    double best = sc__ring_us(c, size, g, alpha, B);
    const char *alg = "ring";
    if (sc_topology_nvls(t) && sc__is(c, SC_COLL_allreduce) && g > 1 && sc__may(t, SC_ALGO_nvls)) {
        double nvls = 2.0 * alpha + size / (sc_topology_nvls_algbw_GBps(t) * 1e3);
        if (nvls < best || t->algo == SC_ALGO_nvls) {
            best = nvls;
            alg = "nvls";
        }
    }
    sc__finish(c, size, g, best, alg, out);
}

/* All-reduce across nodes by a tree (the ring's bandwidth term - NCCL's trees reach the ring's
 * busbw - with log2(nodes) network latencies) or by IB SHARP (inside each node a reduce-scatter
 * and an all-gather over its GPUs; between nodes each node's buffer crosses its NICs once each
 * way and the switches reduce: two latencies per switch tier): the faster, or the forced one. */
static void sc__tree_or_sharp(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                              int nodes, double ai, double Bi, double an, double Bnode, double *us,
                              const char **alg)
{
    double B = Bi < Bnode ? Bi : Bnode;
    if (sc__may(t, SC_ALGO_tree)) {
        double tree = sc_coll_tree_steps(nodes) * an + 2.0 * (g - 1) * ai +
                      c->busbw_factor(g * nodes) * size / (B * 1e3);
        if (tree < *us || t->algo == SC_ALGO_tree) {
            *us = tree;
            *alg = "tree";
        }
    }
    if (t->sharp && sc__may(t, SC_ALGO_sharp)) {
        double intra = g > 1 ? c->busbw_factor(g) * size / (Bi * 1e3) : 0.0;
        double inter = size / (Bnode * 1e3);
        double sharp = 2.0 * (g - 1) * ai + 2.0 * (double)(t->switch_tiers + 1) * an +
                       (intra > inter ? intra : inter);
        if (sharp < *us || t->algo == SC_ALGO_sharp) {
            *us = sharp;
            *alg = "sharp";
        }
    }
}

/* Across nodes. NCCL runs one ring (or tree) per channel with a NIC per channel, so every
 * ring's node crossing gets a NIC: the ring's bottleneck is min(per-GPU intra bandwidth, the
 * node's total NIC bandwidth) - 8 x HDR gives ~188 GB/s busbw on DGX A100 pairs, as measured
 * publicly. The tree (all-reduce) pays log2(nodes) network latencies instead of n. All-to-all
 * sends (N-1)/N of every GPU's buffer through the node's NICs. */
static void sc__multi_node(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                           int nodes, sc_prediction_t *out)
{
    double ai, Bi, an, Bnode;
    sc_topology_intra_path(t, size, g, &ai, &Bi);
    sc_topology_inter_path(t, size, nodes, &an, &Bnode);
    Bi = g > 1 ? Bi : 1e9;
    double B = Bi < Bnode ? Bi : Bnode;
    int n = g * nodes;
    const char *alg = "ring";
    double us;
    if (sc__is(c, SC_COLL_alltoall)) {
        us = (n - 1) * an + g * size * (double)(nodes - 1) / nodes / (Bnode * 1e3) +
             size / nodes * (double)(g - 1) / g / (Bi * 1e3);
        alg = "p2p";
    } else {
        double steps = sc__is(c, SC_COLL_allreduce) ? 2.0 : 1.0;
        us = steps * ((n - nodes) * ai + nodes * an) + c->busbw_factor(n) * size / (B * 1e3);
        if (sc__is(c, SC_COLL_allreduce))
            sc__tree_or_sharp(t, c, size, g, nodes, ai, Bi, an, Bnode, &us, &alg);
    }
    sc__finish(c, size, n, us, alg, out);
}

void sc_model_collective(const sc_topology_t *t, const sc_coll_t *coll, double size_bytes,
                         int gpus_per_node, int nodes, sc_prediction_t *out)
{
    int n = gpus_per_node * nodes;
    if (n <= 1) {
        /* one GPU: a local copy at memory speed */
        double mem = sc_topology_memory_GBps(t) > 0 ? sc_topology_memory_GBps(t) : 100.0;
        sc__finish(coll, size_bytes, 1, t->intra_latency_us + size_bytes / (mem * 1e3), "local",
                   out);
    } else if (nodes <= 1) {
        sc__single_node(t, coll, size_bytes, gpus_per_node, out);
    } else {
        sc__multi_node(t, coll, size_bytes, gpus_per_node, nodes, out);
    }
}
