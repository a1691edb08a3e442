/* sc_topology_paths.c - what a topology's paths deliver, derived from what its file declares
 * (docs/REFERENCE.md §2): the GPU's generation (NCCL's compute capability), NVLink as NCCL
 * reaches it per link by generation, NVLink SHARP, the PCIe tree (switches, root complexes,
 * sockets, traffic staged through host memory), the NICs, and the calibrated regimes that
 * replace all of it where `scalecheck calibrate` measured them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sc_topology.h"

/* PCIe x16 per direction by generation: the raw rate, and what collective libraries reach
 * (docs/REFERENCE.md section 2: 12, 25 and 50 GB/s for gens 3, 4 and 5; other generations at
 * the neighbouring generation's fraction). */
static const double topology_paths__pcie_raw_x16[] = {0, 4.0, 8.0, 15.75, 31.5, 63.0, 121.0, 242.0};
static const double topology_paths__pcie_reach_x16[] = {0, 3.0, 6.0, 12.0, 25.0, 50.0, 96.0, 192.0};
/* NVLink SHARP's all-reduce algbw against the line rate on Hopper: 8x H100 reach ~275 GB/s
 * algbw (480 busbw) of 450 (nccl-tests issue 212; NCCL issue 1455: algbw 258-273 GB/s on 5-8
 * GPUs). Other generations scale it as NCCL's own tuner does (src/graph/tuning.cc,
 * nvlsEfficiency: 0.85 on Hopper, 0.74 on Blackwell - NVLink 5 doubles the links' rate, its
 * switches' reductions do not keep up in proportion). */
#define SC__NVLS_EFFICIENCY      0.61
#define SC__NVLS_HOPPER_TUNER    0.85
#define SC__NVLS_BLACKWELL_TUNER 0.74
/* A link's reachable share where neither NCCL's tables nor the file say (other vendors' links) */
#define SC__LINK_EFFICIENCY 0.8
/* Intel root complexes cut GPU peer-to-peer traffic into 64-byte TLPs: it costs 6/5 of its bytes
 * (NCCL src/graph/topo.h, INTEL_P2P_OVERHEAD). */
#define SC__INTEL_P2P_SHARE (5.0 / 6.0)
/* The share of the host's memory bandwidth (channels x transfer rate, as the spec sheet gives
 * it) that streaming copies reach - the STREAM benchmark's usual share on server DDR4/DDR5. */
#define SC__HOST_MEMORY_EFFICIENCY 0.8

static bool topology_paths__has(const char *s, const char *const *words)
{
    for (; *words != NULL; words++)
        if (strstr(s, *words) != NULL)
            return true;
    return false;
}

/* Name fragments by compute capability, the more specific first ("A100" before "A10"). */
static int topology_paths__cc_from_name(const char *gpu)
{
    static const struct {
        int cc;
        const char *const names[8];
    } table[] = {
        {120, {"RTX 50", "RTX PRO 6000", "RTX PRO 5000", NULL}},
        {100, {"B100", "B200", "B300", "GB200", "GB300", NULL}},
        {90, {"H100", "H200", "H800", "H20", "GH200", NULL}},
        {80, {"A100", "A800", "A30", NULL}},
        {89, {"RTX 40", "L40", "L4", "Ada", NULL}},
        {86, {"RTX 30", "RTX A", "A40", "A10", "A16", NULL}},
        {75, {"RTX 20", "TITAN RTX", "Titan RTX", "Quadro RTX", "T4", NULL}},
        {70, {"V100", "Titan V", "TITAN V", NULL}},
        {60, {"P100", NULL}},
    };
    static const char *const other_vendors[] = {"Instinct", "MI100", "MI2", "MI3",
                                                "Ascend",   "Gaudi", NULL};
    if (topology_paths__has(gpu, other_vendors))
        return 0;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (topology_paths__has(gpu, table[i].names))
            return table[i].cc;
    return 80; /* NCCL's own default where it knows nothing (topo.h: SM80's figures) */
}

int sc_topology_gpu_cc(const sc_topology_t *t)
{
    if (t->compute_capability > 0)
        return (int)(t->compute_capability * 10.0 + 0.5);
    /* the last name's answer kept: the model asks for every case row it prices, and a
     * fleet's judge prices a million */
    static _Thread_local char named[64];
    static _Thread_local int cc;
    if (named[0] == '\0' || strcmp(named, t->gpu) != 0) {
        cc = topology_paths__cc_from_name(t->gpu);
        snprintf(named, sizeof(named), "%s", strlen(t->gpu) < sizeof(named) ? t->gpu : "");
    }
    return cc;
}

/* What NCCL reaches on one NVLink by compute capability (src/graph/topo.h: SM60 18, SM70 and
 * SM80 20, SM86 12, SM90 20.6, SM100 40.1 GB/s - SMs move 128-byte payloads; nccl-tests issue
 * 149) against the link's rate per direction in that generation (20, 25, 25, 14.0625, 25, 50). */
static double topology_paths__nvlink_share(int cc)
{
    if (cc >= 100)
        return 40.1 / 50.0;
    if (cc >= 90)
        return 20.6 / 25.0;
    if (cc == 86)
        return 12.0 / 14.0625;
    if (cc >= 70)
        return 20.0 / 25.0;
    if (cc >= 60)
        return 18.0 / 20.0;
    return cc > 0 ? 20.0 / 25.0 : SC__LINK_EFFICIENCY;
}

double sc_topology_pcie_raw_GBps(int gen, int lanes)
{
    int top = (int)(sizeof(topology_paths__pcie_raw_x16) / sizeof(topology_paths__pcie_raw_x16[0]));
    return gen > 0 && gen < top && lanes > 0 ? topology_paths__pcie_raw_x16[gen] * lanes / 16.0 : 0;
}

double sc_topology_line_GBps(const sc_topology_t *t)
{
    double raw = t->gpu_bandwidth_GBps;
    if (raw <= 0 && t->links_per_gpu > 0)
        raw = (double)t->links_per_gpu * t->link_GBps;
    if (raw <= 0 && t->pcie_gen > 0)
        raw = topology_paths__pcie_raw_x16[t->pcie_gen] *
              (double)(t->pcie_lanes ? t->pcie_lanes : 16) / 16.0;
    return raw;
}

static bool topology_paths__nvlink(const sc_topology_t *t)
{
    return t->fabric == SC_FABRIC_nvswitch || t->fabric == SC_FABRIC_nvlink_mesh ||
           t->fabric == SC_FABRIC_nvlink_bridge;
}

double sc_topology_link_share(const sc_topology_t *t)
{
    if (t->intra_efficiency > 0)
        return t->intra_efficiency;
    return topology_paths__nvlink(t) ? topology_paths__nvlink_share(sc_topology_gpu_cc(t))
                                     : SC__LINK_EFFICIENCY;
}

/* What PCIe reaches on `lanes` lanes: a given intra.efficiency of the raw rate, else the
 * published reachable rate of the generation. */
static double topology_paths__pcie_GBps(const sc_topology_t *t, long long lanes)
{
    int gen = (int)t->pcie_gen;
    double per_lane = t->intra_efficiency > 0
                          ? topology_paths__pcie_raw_x16[gen] * t->intra_efficiency
                          : topology_paths__pcie_reach_x16[gen];
    return per_lane * (double)lanes / 16.0;
}

static long long topology_paths__gpu_sockets(const sc_topology_t *t)
{
    return t->gpu_sockets ? t->gpu_sockets : t->sockets ? t->sockets : 1;
}

/* The PCIe path a ring over the first `gpus` GPUs needs (GPUs fill switches, then sockets, in
 * order). */
static sc_p2p_level_t topology_paths__pcie_path(const sc_topology_t *t, int gpus)
{
    long long per_socket =
        (t->gpus_per_node + topology_paths__gpu_sockets(t) - 1) / topology_paths__gpu_sockets(t);
    if (t->gpus_per_switch > 0 && gpus <= t->gpus_per_switch)
        return SC_P2P_switch;
    return gpus <= per_socket ? SC_P2P_host : SC_P2P_system;
}

sc_cpu_vendor_t sc_topology_cpu_vendor(const sc_topology_t *t)
{
    if (strstr(t->cpu, "Intel") != NULL || strstr(t->cpu, "Xeon") != NULL)
        return SC_CPU_INTEL;
    if (strstr(t->cpu, "AMD") != NULL || strstr(t->cpu, "EPYC") != NULL)
        return SC_CPU_AMD;
    return SC_CPU_OTHER;
}

/* Traffic staged through host memory (no peer-to-peer on the path): every GPU writes what it
 * sends into host memory and reads what it receives from there, so each GPU's flow crosses the
 * host's memory twice and the memory of the sockets the ring spans carries 2 x gpus flows
 * (NCCL's maintainers: on PCIe systems the CPU and memory decide it, NCCL issue 1639). A node
 * that does not declare its memory keeps the older assumption: half the link. */
static double topology_paths__staged_GBps(const sc_topology_t *t, int gpus, sc_p2p_level_t path,
                                          double link)
{
    if (t->host_memory_GBps <= 0)
        return link / 2.0;
    double sockets_used = path == SC_P2P_system ? (double)topology_paths__gpu_sockets(t) : 1.0;
    double memory = t->host_memory_GBps * sockets_used / (double)topology_paths__gpu_sockets(t);
    double share = SC__HOST_MEMORY_EFFICIENCY * memory / (2.0 * (double)gpus);
    return share < link ? share : link;
}

/* A ring over the first `gpus` GPUs on PCIe: each GPU's link; the uplink of its switch once
 * the ring leaves the switch; through an Intel root complex at 5/6 (64-byte TLPs); and staged
 * through host memory where the path is farther than the GPUs exchange peer-to-peer (NCCL,
 * src/graph/paths.cc ncclTopoCheckP2p: up to a common switch by default; docs/REFERENCE.md
 * section 2), or anywhere without peer-to-peer. */
static double topology_paths__pcie_ring_GBps(const sc_topology_t *t, int gpus)
{
    double B = topology_paths__pcie_GBps(t, t->pcie_lanes ? t->pcie_lanes : 16);
    sc_p2p_level_t path = topology_paths__pcie_path(t, gpus);
    if (t->gpus_per_switch > 0 && path != SC_P2P_switch) {
        double up = topology_paths__pcie_GBps(t, t->pcie_uplink_lanes);
        B = up < B ? up : B;
    }
    if (!t->p2p || (int)path > t->p2p_level)
        return topology_paths__staged_GBps(t, gpus, path, B);
    if (path != SC_P2P_switch && sc_topology_cpu_vendor(t) == SC_CPU_INTEL)
        B *= SC__INTEL_P2P_SHARE;
    return B;
}

/* The share of a GPU's NVLinks a ring over `gpus` GPUs of a full mesh reaches: a mesh of G
 * GPUs gives each pair links / (G - 1) of them (a 4-GPU NV4 board: 4 of 12), and NCCL's rings
 * over k GPUs use the links to the k - 1 others in the ring - a pair of GPUs of an NV4 mesh moves
 * 4 links' worth, not 12. Every other fabric reaches all of a GPU's links. */
static double topology_paths__mesh_share(const sc_topology_t *t, int gpus)
{
    double g = (double)t->gpus_per_node;
    if (t->fabric != SC_FABRIC_nvlink_mesh || g <= 2 || gpus < 2 || gpus >= g)
        return 1.0;
    return ((double)gpus - 1.0) / (g - 1.0);
}

double sc_topology_ring_GBps(const sc_topology_t *t, int gpus)
{
    bool pcie = t->fabric == SC_FABRIC_pcie ||
                (t->fabric == SC_FABRIC_nvlink_bridge && gpus > 2 && t->pcie_gen > 0);
    if (pcie && t->pcie_gen > 0)
        return topology_paths__pcie_ring_GBps(t, gpus);
    return sc_topology_line_GBps(t) * topology_paths__mesh_share(t, gpus) *
           sc_topology_link_share(t);
}

double sc_topology_intra_GBps(const sc_topology_t *t)
{
    return sc_topology_ring_GBps(t, (int)t->gpus_per_node);
}

bool sc_topology_nvls(const sc_topology_t *t)
{
    return t->fabric == SC_FABRIC_nvswitch &&
           (t->nvls_mode == SC_NVLS_on || (t->nvls_mode == SC_NVLS_auto && t->nvswitch_gen >= 3));
}

double sc_topology_nvls_algbw_GBps(const sc_topology_t *t)
{
    double g = (double)t->gpus_per_node;
    if (t->nvls_busbw_GBps > 0 && g > 1)
        return t->nvls_busbw_GBps / (2.0 * (g - 1) / g);
    double generation =
        sc_topology_gpu_cc(t) >= 100 ? SC__NVLS_BLACKWELL_TUNER / SC__NVLS_HOPPER_TUNER : 1.0;
    return sc_topology_line_GBps(t) * SC__NVLS_EFFICIENCY * generation;
}

/* The node's NICs as software reaches them (GB/s per direction), before the fabric above them. */
static double topology_paths__nics_GBps(const sc_topology_t *t)
{
    return (double)t->nics * t->nic_gbps / 8.0 * t->nic_efficiency;
}

double sc_topology_inter_GBps(const sc_topology_t *t, int gpus_per_node)
{
    double node = topology_paths__nics_GBps(t) / t->oversubscription;
    return gpus_per_node > 0 ? node / gpus_per_node : node;
}

static const sc_regime_t *topology_paths__regime(const sc_regimes_t *rs, double bytes)
{
    for (int i = 0; i < rs->n; i++)
        if (rs->r[i].upto == 0 || bytes <= rs->r[i].upto)
            return &rs->r[i];
    return NULL;
}

sc_hop_t sc_topology_node_hop(const sc_topology_t *t, double bytes, int gpus)
{
    const sc_regime_t *r = topology_paths__regime(&t->cal_intra, bytes);
    if (r != NULL)
        return (sc_hop_t){r->latency_us, r->GBps, true};
    /* declared, or the default: NCCL's own constants price its steps inside a node */
    return (sc_hop_t){t->intra_latency_us, sc_topology_ring_GBps(t, gpus), false};
}

/* A network step's latency where the topology states none: a NIC's port to port and its
 * software (docs/REFERENCE.md §3.1). */
#define SC__NET_HOP_DEFAULT_US 5.0

/* The share of a node's NICs that gpus of its GPUs drive: NCCL puts each channel's traffic on
 * a NIC near its GPU, so each GPU brings its own share of them (at least one NIC) - one GPU of
 * a DGX H100 reaches one of its eight. */
static double topology_paths__nic_share(const sc_topology_t *t, int gpus)
{
    if (gpus <= 0 || t->gpus_per_node <= 0 || gpus >= t->gpus_per_node || t->nics <= 0)
        return 1.0;
    long long per_gpu = (t->nics + t->gpus_per_node - 1) / t->gpus_per_node;
    long long used = (long long)gpus * per_gpu;
    return (double)(used < t->nics ? used : t->nics) / (double)t->nics;
}

sc_hop_t sc_topology_net_hop(const sc_topology_t *t, double bytes, int nodes, int gpus)
{
    double share = topology_paths__nic_share(t, gpus);
    const sc_regime_t *r = topology_paths__regime(&t->cal_inter, bytes);
    if (r != NULL)
        return (sc_hop_t){r->latency_us, r->GBps * share, true};
    bool stated = !isnan(t->nic_latency_us);
    /* each switch tier on the way adds about half a NIC latency */
    double nic_us = stated ? t->nic_latency_us : SC__NET_HOP_DEFAULT_US;
    double latency_us = nic_us * (1.0 + 0.5 * (double)t->switch_tiers);
    /* rail-optimised rings stay on their rail's leaf while the nodes fit under it: the leaves'
     * uplinks (and their oversubscription) are not on the way */
    bool one_leaf = t->rails && (t->nodes_per_leaf == 0 || nodes <= t->nodes_per_leaf);
    double GBps = topology_paths__nics_GBps(t) * share / (one_leaf ? 1.0 : t->oversubscription);
    return (sc_hop_t){latency_us, GBps, stated};
}

bool sc_topology_all_nvlink(const sc_topology_t *t, int gpus)
{
    return t->fabric == SC_FABRIC_nvswitch || t->fabric == SC_FABRIC_nvlink_mesh ||
           (t->fabric == SC_FABRIC_nvlink_bridge && gpus <= 2);
}
