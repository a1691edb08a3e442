/* sc_model_proto.c - NCCL's three protocols priced as NCCL's own tuner prices them
 * (src/graph/tuning.cc, the defaults of NCCL 2.19-2.28; docs/REFERENCE.md §3.2): a protocol
 * pays a base latency per operation and a latency per algorithm step by the hardware the step
 * crosses (NVLink, PCIe, the network), and reaches a share of the path's bandwidth - LL sends
 * 8-byte lines of which half is data (and no more than the llMaxBw a GPU generation reaches on
 * one node, a CPU vendor across nodes), LL128 120 of every 128 bytes (NCCL enables it by
 * default only where the GPUs talk over NVLink), Simple the whole path. The fastest wins, as in
 * NCCL's tuner. A network step's latency is the topology's where it states one
 * (sc_topology_net_hop: nics.latency_us, or calibrated), with what each protocol adds above the
 * lightest network step NCCL prices; NCCL's constant where it states none. */
#include "sc_model_proto.h"

#include <math.h>
#include <string.h>

enum { SC__LL, SC__LL128, SC__SIMPLE, SC__PROTOS };
enum { SC__HW_NVLINK, SC__HW_PCI, SC__HW_NET };

static const char *const model_proto__proto_names[SC__PROTOS] = {"LL", "LL128", "Simple"};

/* The least a network step costs in NCCL's tuner (ring, LL): taken as the share of its constants
 * that is the network's own latency; the rest of each is the protocol's work. */
#define SC__NET_WIRE_US 2.7

/* [tree, ring][protocol], us */
static const double model_proto__base_us[2][SC__PROTOS] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};
/* [hardware][tree, ring][protocol], us a step */
static const double model_proto__hw_us[3][2][SC__PROTOS] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},  /* NVLink */
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},   /* PCIe */
    {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}}, /* network */
};
/* NVLink SHARP: Simple only, 25 us on a node, 18 more across nodes */
#define SC__NVLS_US     25.0
#define SC__NVLS_NET_US 18.0

/* LL's most (GB/s busbw) on one node by GPU generation: Volta, Ampere, Hopper, Blackwell. */
static const double model_proto__ll_max_node[] = {39.0, 87.7, 141.0, 282.0};

/* NCCL's index of the GPU's generation in its llMaxBw table (Volta, Ampere, Hopper, Blackwell):
 * compute capability below 8, 8.x, 9.x, 10 and up (sc_topology_gpu_cc); Ampere's for another
 * vendor's GPU. */
static int model_proto__gpu_generation(const sc_topology_t *t)
{
    int cc = sc_topology_gpu_cc(t);
    if (cc == 0)
        return 1;
    return cc >= 100 ? 3 : cc >= 90 ? 2 : cc >= 80 ? 1 : 0;
}

/* LL's bandwidth cap: the GPU generation's on one node; across nodes the CPU's (an AMD host's
 * lower), falling from 2 nodes to more. */
static double model_proto__ll_max(const sc_topology_t *t, int nodes)
{
    if (nodes <= 1)
        return model_proto__ll_max_node[model_proto__gpu_generation(t)];
    bool amd = sc_topology_cpu_vendor(t) == SC_CPU_AMD;
    if (nodes == 2)
        return amd ? 22.5 : 39.0;
    return amd ? 19.0 : 20.4;
}

bool sc_model_proto_applies(const sc_topology_t *t)
{
    bool nccl_like = t->library == SC_LIB_nccl || t->library == SC_LIB_rccl;
    return nccl_like && t->cal_intra.n == 0 && t->cal_inter.n == 0;
}

/* The bandwidth (GB/s busbw) protocol p reaches over a path of B. */
static double model_proto__proto_GBps(const sc_topology_t *t, bool tree, int p, double B, int nodes)
{
    double ll_max = model_proto__ll_max(t, nodes);
    if (p == SC__SIMPLE)
        return tree ? 0.92 * B : B;
    if (p == SC__LL) {
        double ll = tree ? B / 3.8 : 0.5 * B;
        return ll < ll_max ? ll : ll_max;
    }
    return tree ? B * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0) : 0.92 * B;
}

/* A network step of protocol p on algorithm alg: NCCL's constant, or the stated hop's latency
 * and the protocol's work. */
static double model_proto__net_step_us(sc_hop_t net, int alg, int p)
{
    double nccl = model_proto__hw_us[SC__HW_NET][alg][p];
    return net.stated ? net.latency_us + (nccl - SC__NET_WIRE_US) : nccl;
}

sc_proto_price_t sc_model_proto(const sc_topology_t *t, const sc_proto_path_t *path)
{
    int alg = path->tree ? 0 : 1;
    int intra_hw = sc_topology_all_nvlink(t, path->gpus) ? SC__HW_NVLINK : SC__HW_PCI;
    sc_proto_price_t best = {.time_us = -1};
    for (int p = 0; p < SC__PROTOS; p++) {
        if (p == SC__LL128 && intra_hw != SC__HW_NVLINK)
            continue; /* not enabled by default off NVLink */
        double B = model_proto__proto_GBps(t, path->tree, p, path->GBps, path->nodes);
        double intra =
            model_proto__hw_us[intra_hw][alg][p] * (path->nodes > 1 && p == SC__LL ? 1.8 : 1.0);
        double latency = model_proto__base_us[alg][p] + path->intra_steps * intra +
                         path->inter_steps * model_proto__net_step_us(path->net, alg, p);
        /* no path (a node without NICs): no time, as the alpha-beta line has none either */
        double us = latency + (B > 0                  ? path->wire_bytes / (B * 1e3)
                               : path->wire_bytes > 0 ? INFINITY
                                                      : 0.0);
        if (best.time_us < 0 || us < best.time_us)
            best = (sc_proto_price_t){us, latency, model_proto__proto_names[p]};
    }
    /* what is not the path's bandwidth: latencies, and a protocol's lines and flags */
    double line_us = path->GBps > 0 ? path->wire_bytes / (path->GBps * 1e3) : 0.0;
    best.latency_us = best.time_us > line_us ? best.time_us - line_us : 0.0;
    return best;
}

sc_proto_price_t sc_model_proto_nvls(int nodes, double wire_us)
{
    double latency = SC__NVLS_US + (nodes > 1 ? SC__NVLS_NET_US : 0.0);
    return (sc_proto_price_t){latency + wire_us, latency, "Simple"};
}
