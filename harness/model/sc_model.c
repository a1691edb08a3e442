/* sc_model.c - the alpha-beta model. Per algorithm step a latency alpha (the fabric's), per byte
 * 1/B with B the bottleneck per-GPU bandwidth as software reaches it (link rate x efficiency).
 * Ring all-reduce over n: 2(n-1) alpha + 2(n-1)/n S/B (inside a node NCCL's tree is a chain:
 * rings only). NVLS: 2 alpha + S x busbw factor / B_nvls. Across nodes: rings bounded by the
 * node's NICs, or a tree over nodes. The smallest predicted time wins, as in NCCL's tuner. */
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

static void sc__single_node(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                            sc_prediction_t *out)
{
    double B, alpha;
    sc_topology_intra_path(t, size, &alpha, &B);
    double ring = sc__ring_us(c, size, g, alpha, B);
    const char *alg = "ring";
    double best = ring;
    if (t->nvls && sc__is(c, SC_COLL_allreduce) && g > 1) {
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
    double ai, Bi, an, Bnode;
    sc_topology_intra_path(t, size, &ai, &Bi);
    sc_topology_inter_path(t, size, &an, &Bnode);
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
        if (sc__is(c, SC_COLL_allreduce)) {
            /* same bandwidth term (NCCL's trees reach the ring's busbw), fewer latencies */
            double tree = sc_coll_tree_steps(nodes) * an + 2.0 * (g - 1) * ai +
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
        double mem = sc_topology_memory_GBps(t) > 0 ? sc_topology_memory_GBps(t) : 100.0;
        sc__finish(coll, size_bytes, 1, t->intra_latency_us + size_bytes / (mem * 1e3), "local",
                   out);
    } else if (nodes <= 1) {
        sc__single_node(t, coll, size_bytes, gpus_per_node, out);
    } else {
        sc__multi_node(t, coll, size_bytes, gpus_per_node, nodes, out);
    }
}
