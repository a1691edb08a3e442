/* sc_model.c - the alpha-beta model. Per algorithm step a latency alpha (the fabric's), per byte
 * 1/B with B the bottleneck per-GPU bandwidth as software reaches it (link rate x efficiency).
 * Ring all-reduce over n: 2(n-1) alpha + 2(n-1)/n S/B (inside a node NCCL's tree is a chain:
 * rings only). NVLS (NVLink SHARP, in the switch): 2 alpha + S / algbw_nvls. Across nodes:
 * rings bounded by the node's NICs, a tree over nodes, or IB SHARP (the switches reduce: each
 * node's share crosses its NICs once each way). The smallest predicted time wins, as in NCCL's
 * tuner, unless the topology's `algo` (--algo) forces one; a forced algorithm the system lacks
 * falls back to the ring, as NCCL does. An MPI library on declared figures has algorithms and
 * protocols of its own (sc_model_mpi.c). */
#include "sc_model.h"

#include <math.h>

#include "model/sc_model_mpi.h"
#include "model/sc_model_proto.h"
#include "model/sc_model_symk.h"

static bool model__is(const sc_coll_t *c, sc_coll_id_t id)
{
    return c->id == id;
}

typedef struct {
    double us, latency_us;
    const char *protocol;
} model__cost_t;

/* What an algorithm's path costs: NCCL's protocols where they price t (sc_model_proto.h), else
 * alpha a step and the bytes over B. */
static model__cost_t model__path(const sc_topology_t *t, const sc_proto_path_t *p,
                                 double alpha_intra, double alpha_inter)
{
    if (sc_model_proto_applies(t)) {
        sc_proto_price_t q = sc_model_proto(t, p);
        return (model__cost_t){q.time_us, q.latency_us, q.protocol};
    }
    double latency = p->intra_steps * alpha_intra + p->inter_steps * alpha_inter;
    return (model__cost_t){latency + p->wire_bytes / (p->GBps * 1e3), latency, ""};
}

/* A ring over g GPUs of one node. */
static model__cost_t model__ring(const sc_topology_t *t, const sc_coll_t *c, double bytes, int g,
                                 double alpha_us, double B)
{
    if (g <= 1)
        return (model__cost_t){0.0, 0.0, ""};
    sc_proto_path_t p = {.intra_steps = sc_coll_ring_steps(c, g),
                         .wire_bytes = c->busbw_factor(g) * bytes,
                         .GBps = B,
                         .gpus = g,
                         .nodes = 1};
    return model__path(t, &p, alpha_us, 0.0);
}

static void model__finish(const sc_coll_t *c, double size, int n, model__cost_t cost,
                          const char *alg, sc_prediction_t *out)
{
    out->algorithm = alg;
    out->protocol = cost.protocol;
    out->time_us = cost.us > 0 ? cost.us : 0.5; /* a launch costs something even alone */
    out->latency_us = cost.latency_us < out->time_us ? cost.latency_us : out->time_us;
    out->algbw_GBps = size / out->time_us / 1e3;
    out->busbw_GBps = out->algbw_GBps * c->busbw_factor(n);
}

/* Whether the algorithm may be used: auto, or forced to it. */
static bool model__may(const sc_topology_t *t, sc_algo_t algo)
{
    return t->algo == SC_ALGO_auto || t->algo == (int)algo;
}

/* A run on symmetric buffers: NCCL's symmetric kernel for it (sc_model_symk.c), whose own model
 * knows the kernel, not the links: its bytes still cross them no faster than the best of the
 * other algorithms moves them (what the kernel saves is latency). */
static model__cost_t model__symmetric(const sc_topology_t *t, const sc_coll_t *c, double size,
                                      int g, model__cost_t regular)
{
    double us = sc_model_symk_us(t, c, size, g), line_us = regular.us - regular.latency_us;
    return us > line_us ? (model__cost_t){us, us - line_us, ""} : (model__cost_t){line_us, 0, ""};
}

static void model__single_node(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                               sc_prediction_t *out)
{
    sc_hop_t node = sc_topology_node_hop(t, size, g);
    double B = node.GBps, alpha = node.latency_us;
    model__cost_t best = model__ring(t, c, size, g, alpha, B);
    const char *alg = "ring";
    if (sc_topology_nvls(t) && model__is(c, SC_COLL_allreduce) && g > 1 &&
        model__may(t, SC_ALGO_nvls)) {
        double wire_us = size / (sc_topology_nvls_algbw_GBps(t) * 1e3);
        sc_proto_price_t q = sc_model_proto_nvls(1, wire_us);
        model__cost_t nvls = sc_model_proto_applies(t)
                                 ? (model__cost_t){q.time_us, q.latency_us, q.protocol}
                                 : (model__cost_t){2.0 * alpha + wire_us, 2.0 * alpha, ""};
        if (nvls.us < best.us || t->algo == SC_ALGO_nvls) {
            best = nvls;
            alg = "nvls";
        }
    }
    if (sc_model_symk_applies(t, c, g, 1)) {
        best = model__symmetric(t, c, size, g, best);
        alg = "symmetric";
    }
    model__finish(c, size, g, best, alg, out);
}

/* NVLSTree, NCCL's all-reduce across NVSwitch nodes: NVLink SHARP reduces inside each node, and
 * a tree over the nodes carries each node's buffer through its NICs - once each way on 2 nodes
 * (each node the root of one of NCCL's two trees and a leaf of the other), twice beyond (an inner
 * node of one tree), where the ring sends 2(n-1)/n of it (NCCL's maintainers, NCCL issue 812;
 * its tuner doubles NVLSTree's network bandwidth on 2 nodes, src/graph/tuning.cc). The slower
 * of the two stages bounds it. --algo nvls forces it across nodes. */
static void model__nvls_tree(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                             int nodes, sc_hop_t net, model__cost_t *best, const char **alg)
{
    if (!sc_topology_nvls(t) || g < 2 || !model__is(c, SC_COLL_allreduce) ||
        !model__may(t, SC_ALGO_nvls))
        return;
    double inside = sc_topology_nvls_algbw_GBps(t);
    double across = nodes <= 2 ? net.GBps : net.GBps / 2.0;
    double wire_us = size / ((inside < across ? inside : across) * 1e3);
    sc_proto_price_t q = sc_model_proto_nvls(nodes, wire_us);
    model__cost_t tree = sc_model_proto_applies(t)
                             ? (model__cost_t){q.time_us, q.latency_us, q.protocol}
                             : (model__cost_t){q.latency_us + wire_us, q.latency_us, ""};
    if (tree.us < best->us || t->algo == SC_ALGO_nvls) {
        *best = tree;
        *alg = "nvlstree";
    }
}

/* All-reduce across nodes by a tree (the ring's bandwidth term - NCCL's trees reach the ring's
 * busbw - with log2(nodes) network latencies) or by IB SHARP (inside each node a reduce-scatter
 * and an all-gather over its GPUs; between nodes each node's buffer crosses its NICs once each
 * way and the switches reduce: two latencies per switch tier): the faster, or the forced one. */
static void model__tree_or_sharp(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                                 int nodes, double ai, double Bi, sc_hop_t net, model__cost_t *best,
                                 const char **alg)
{
    double an = net.latency_us, Bnode = net.GBps;
    double B = Bi < Bnode ? Bi : Bnode;
    if (model__may(t, SC_ALGO_tree)) {
        sc_proto_path_t p = {.tree = true,
                             .intra_steps = 2.0 * (g - 1),
                             .inter_steps = sc_coll_tree_steps(nodes),
                             .wire_bytes = c->busbw_factor(g * nodes) * size,
                             .GBps = B,
                             .gpus = g,
                             .nodes = nodes,
                             .net = net};
        model__cost_t tree = model__path(t, &p, ai, an);
        if (tree.us < best->us || t->algo == SC_ALGO_tree) {
            *best = tree;
            *alg = "tree";
        }
    }
    model__nvls_tree(t, c, size, g, nodes, net, best, alg);
    if (t->sharp && model__may(t, SC_ALGO_sharp)) {
        double intra = g > 1 ? c->busbw_factor(g) * size / (Bi * 1e3) : 0.0;
        double inter = size / (Bnode * 1e3);
        double latency = 2.0 * (g - 1) * ai + 2.0 * (double)(t->switch_tiers + 1) * an;
        model__cost_t sharp = {latency + (intra > inter ? intra : inter), latency, ""};
        if (sharp.us < best->us || t->algo == SC_ALGO_sharp) {
            *best = sharp;
            *alg = "sharp";
        }
    }
}

/* Across nodes. NCCL runs one ring (or tree) per channel with a NIC per channel, so every
 * ring's node crossing gets a NIC: the ring's bottleneck is min(per-GPU intra bandwidth, the
 * node's total NIC bandwidth) - 8 x HDR gives ~188 GB/s busbw on DGX A100 pairs, as measured
 * publicly. The tree (all-reduce) pays log2(nodes) network latencies instead of n. All-to-all
 * sends (N-1)/N of every GPU's buffer through the node's NICs. */
static void model__multi_node(const sc_topology_t *t, const sc_coll_t *c, double size, int g,
                              int nodes, sc_prediction_t *out)
{
    sc_hop_t node = sc_topology_node_hop(t, size, g), net = sc_topology_net_hop(t, size, nodes, g);
    double ai = node.latency_us, an = net.latency_us, Bnode = net.GBps;
    double Bi = g > 1 ? node.GBps : 1e9;
    double B = Bi < Bnode ? Bi : Bnode;
    int n = g * nodes;
    const char *alg = "ring";
    model__cost_t cost;
    if (model__is(c, SC_COLL_alltoall)) {
        cost.latency_us = (n - 1) * an;
        cost.us = cost.latency_us + g * size * (double)(nodes - 1) / nodes / (Bnode * 1e3) +
                  size / nodes * (double)(g - 1) / g / (Bi * 1e3);
        cost.protocol = "";
        alg = "p2p";
    } else {
        double steps = model__is(c, SC_COLL_allreduce) ? 2.0 : 1.0;
        sc_proto_path_t p = {.intra_steps = steps * (n - nodes),
                             .inter_steps = steps * nodes,
                             .wire_bytes = c->busbw_factor(n) * size,
                             .GBps = B,
                             .gpus = g,
                             .nodes = nodes,
                             .net = net};
        cost = model__path(t, &p, ai, an);
        if (model__is(c, SC_COLL_allreduce))
            model__tree_or_sharp(t, c, size, g, nodes, ai, Bi, net, &cost, &alg);
    }
    model__finish(c, size, n, cost, alg, out);
}

/* One GPU's collective is a local copy. A GPU library launches one copy kernel for it and no
 * algorithm (NCCL: ncclLaunchOneRank), so what it costs besides the copy is a kernel's launch
 * and completion, not a link's latency, and back to back the next launch hides under the copy:
 * the larger of the two. Both figures were measured on an H200 through CUDA events (device
 * check, 2026-12-04; docs/REFERENCE.md §3.3): 5.0-5.9 us from 4 B to 4 MiB, 8.3 us at 16 MiB,
 * 1 GiB in 505 us, 0.88 of the 4814 GB/s NVML's clock and bus width give. A host-path rank
 * copies in host memory after its link's latency. */
#define SC__ONE_GPU_LAUNCH_US    5.0
#define SC__DEVICE_COPY_SHARE    0.88
#define SC__UNDECLARED_COPY_GBps 100.0
static model__cost_t model__one_gpu(const sc_topology_t *t, double size_bytes)
{
    bool gpu_library = t->library != SC_LIB_mpi;
    double mem = sc_topology_memory_GBps(t);
    if (mem <= 0)
        mem = SC__UNDECLARED_COPY_GBps;
    else if (gpu_library && t->cal_memory_GBps <= 0)
        mem *= SC__DEVICE_COPY_SHARE;
    double copy_us = size_bytes / (mem * 1e3);
    if (!gpu_library)
        return (model__cost_t){t->intra_latency_us + copy_us, t->intra_latency_us, ""};
    double us = copy_us > SC__ONE_GPU_LAUNCH_US ? copy_us : SC__ONE_GPU_LAUNCH_US;
    return (model__cost_t){us, us - copy_us, ""};
}

void sc_model_collective(const sc_topology_t *t, const sc_coll_t *coll, double size_bytes,
                         int gpus_per_node, int nodes, sc_prediction_t *out)
{
    int n = gpus_per_node * nodes;
    if (n <= 1) {
        model__cost_t copy = model__one_gpu(t, size_bytes);
        model__finish(coll, size_bytes, 1, copy, "local", out);
    } else if (sc_model_mpi_applies(t)) {
        sc_mpi_price_t q = sc_model_mpi(t, coll, size_bytes, gpus_per_node, nodes);
        model__finish(coll, size_bytes, n, (model__cost_t){q.time_us, q.latency_us, q.protocol},
                      q.algorithm, out);
    } else if (nodes <= 1) {
        model__single_node(t, coll, size_bytes, gpus_per_node, out);
    } else {
        model__multi_node(t, coll, size_bytes, gpus_per_node, nodes, out);
    }
}
