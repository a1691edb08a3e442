#include "sc_topology.h"

#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "config/sc_workload.h"
#include "config/sc_yaml.h"
#include "sc_config.h"
#include "util/sc_files.h"
#include "util/sc_defaults.h"
#include "topology/sc_topology_schema.h"

#define T(field)        offsetof(sc_topology_t, field)
#define C(field)        offsetof(sc_claim_t, field)
#define R(field)        offsetof(sc_regime_t, field)
#define BIG             1e15
#define SC__MAX_EXTENDS 8

static const sc_field_t topology__topology_fields[] = {
    {"name", SC_FIELD_NAME, T(name), 64, false, 0, 0, NULL, "short name"},
    {"description", SC_FIELD_STRING, T(description), 256, false, 0, 0, NULL, "one line"},
    {"extends", SC_FIELD_SKIP, 0, 0, false, 0, 0, NULL, "file this one builds on"},
    {"switches", SC_FIELD_SKIP, 0, 0, false, 0, 0, NULL,
     "leaf switches and the hosts under them (pairs --strategy switch)"},
    {"library", SC_FIELD_ENUM, T(library), 0, false, 0, 0, SC_LIBRARY_NAMES,
     "collective library of the vendor"},
    {"node", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "one server"},
    {"node.gpu", SC_FIELD_STRING, T(gpu), 64, false, 0, 0, NULL, "GPU model"},
    {"node.compute_capability", SC_FIELD_NUMBER, T(compute_capability), 0, false, 1, 20, NULL,
     "the GPU's SM version, e.g. 8.6 (default: from node.gpu)"},
    {"node.gpus", SC_FIELD_INT, T(gpus_per_node), 0, false, 1, 1024, NULL, "GPUs per node"},
    {"node.gpu_memory_gb", SC_FIELD_NUMBER, T(gpu_memory_gb), 0, false, 0, 1e5, NULL,
     "memory per GPU, GiB (datasheets' GB)"},
    {"node.gpu_memory_GBps", SC_FIELD_NUMBER, T(gpu_memory_GBps), 0, false, 0, 1e6, NULL,
     "memory bandwidth per GPU, GB/s (a one-GPU collective copies at about 0.88 of half of it)"},
    {"node.tflops_fp32", SC_FIELD_NUMBER, T(tflops_fp32), 0, false, 0, 1e6, NULL,
     "dense FP32 peak per GPU, TFLOP/s"},
    {"node.tflops_tf32", SC_FIELD_NUMBER, T(tflops_tf32), 0, false, 0, 1e6, NULL,
     "dense TF32 peak per GPU, TFLOP/s (datasheets' sparse figure halved)"},
    {"node.tflops_fp16", SC_FIELD_NUMBER, T(tflops_fp16), 0, false, 0, 1e6, NULL,
     "dense FP16 peak per GPU, TFLOP/s"},
    {"node.tflops_bf16", SC_FIELD_NUMBER, T(tflops_bf16), 0, false, 0, 1e6, NULL,
     "dense BF16 peak per GPU, TFLOP/s"},
    {"node.cpu", SC_FIELD_STRING, T(cpu), 64, false, 0, 0, NULL, "CPU model"},
    {"node.sockets", SC_FIELD_INT, T(sockets), 0, false, 1, 64, NULL, "CPU sockets per node"},
    {"node.cores", SC_FIELD_INT, T(cores), 0, false, 1, 1e5, NULL, "CPU cores per node"},
    {"node.numa_nodes", SC_FIELD_INT, T(numa_nodes), 0, false, 1, 1024, NULL,
     "NUMA nodes per node"},
    {"node.host_memory_GBps", SC_FIELD_NUMBER, T(host_memory_GBps), 0, false, 0, 1e6, NULL,
     "DRAM bandwidth of all sockets: channels x MT/s x 8 B (bounds traffic staged in host memory)"},
    {"intra", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "the fabric inside a node"},
    {"intra.fabric", SC_FIELD_ENUM, T(fabric), 0, false, 0, 0, SC_FABRIC_NAMES,
     "how GPUs of a node talk: NVSwitch, NVLink bridges or mesh, PCIe, shared memory"},
    {"intra.link_GBps", SC_FIELD_NUMBER, T(link_GBps), 0, false, 0, 1e5, NULL,
     "per link per direction"},
    {"intra.links_per_gpu", SC_FIELD_INT, T(links_per_gpu), 0, false, 0, 1024, NULL,
     "NVLinks per GPU"},
    {"intra.gpu_bandwidth_GBps", SC_FIELD_NUMBER, T(gpu_bandwidth_GBps), 0, false, 0, 1e5, NULL,
     "per GPU per direction"},
    {"intra.efficiency", SC_FIELD_NUMBER, T(intra_efficiency), 0, false, 0.01, 1.5, NULL,
     "share of the path's rate a collective reaches (default by fabric)"},
    {"intra.latency_us", SC_FIELD_NUMBER, T(intra_latency_us), 0, false, 0, 1e6, NULL,
     "latency of one step inside the node, us"},
    {"intra.eager_bytes", SC_FIELD_NUMBER, T(intra_eager_bytes), 0, false, 0, 1e9, NULL,
     "MPI (host path, OSU): the largest message sent eagerly inside a node, bytes "
     "(default " SC_MPI_SHM_EAGER_TEXT ")"},
    {"intra.pcie_gen", SC_FIELD_INT, T(pcie_gen), 0, false, 1, 7, NULL,
     "PCIe generation of the GPU links (the platform's, when lower than the card's)"},
    {"intra.pcie_lanes", SC_FIELD_INT, T(pcie_lanes), 0, false, 1, 32, NULL, "PCIe lanes per GPU"},
    {"intra.p2p", SC_FIELD_BOOL, T(p2p), 0, false, 0, 0, NULL, "GPU peer-to-peer"},
    {"intra.nvswitch_gen", SC_FIELD_INT, T(nvswitch_gen), 0, false, 1, 9, NULL,
     "NVSwitch generation: NVLink SHARP from gen 3"},
    {"intra.nvls", SC_FIELD_ENUM, T(nvls_mode), 0, false, 0, 0, SC_NVLS_NAMES,
     "NVLink SHARP: from the NVSwitch generation, or forced"},
    {"intra.nvls_busbw_GBps", SC_FIELD_NUMBER, T(nvls_busbw_GBps), 0, false, 0, 1e5, NULL,
     "a published NVLS all-reduce busbw on the whole node (default: derived)"},
    {"intra.gpus_per_switch", SC_FIELD_INT, T(gpus_per_switch), 0, false, 0, 1024, NULL,
     "GPUs behind one PCIe switch (0: each on a root port)"},
    {"intra.pcie_uplink_lanes", SC_FIELD_INT, T(pcie_uplink_lanes), 0, false, 1, 64, NULL,
     "a PCIe switch's lanes to its root complex"},
    {"intra.gpu_sockets", SC_FIELD_INT, T(gpu_sockets), 0, false, 1, 64, NULL,
     "sockets whose root complexes hold the GPUs (default node.sockets)"},
    {"intra.p2p_level", SC_FIELD_ENUM, T(p2p_level), 0, false, 0, 0, SC_P2P_LEVEL_NAMES,
     "the farthest PCIe path GPUs exchange peer-to-peer over (default switch, as NCCL)"},
    {"nics", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "network adapters per node"},
    {"nics.count", SC_FIELD_INT, T(nics), 0, false, 0, 1024, NULL,
     "NICs per node used between nodes"},
    {"nics.rate_gbps", SC_FIELD_NUMBER, T(nic_gbps), 0, false, 0, 1e5, NULL, "Gb/s each"},
    {"nics.efficiency", SC_FIELD_NUMBER, T(nic_efficiency), 0, false, 0.01, 1, NULL,
     "share of the line rate a NIC delivers"},
    {"nics.latency_us", SC_FIELD_NUMBER, T(nic_latency_us), 0, false, 0, 1e6, NULL,
     "latency of one step across the network, us"},
    {"nics.eager_bytes", SC_FIELD_NUMBER, T(nic_eager_bytes), 0, false, 0, 1e9, NULL,
     "MPI (host path, OSU): the largest message sent eagerly between nodes, bytes "
     "(default " SC_MPI_NET_EAGER_TEXT ")"},
    {"nics.rails", SC_FIELD_BOOL, T(rails), 0, false, 0, 0, NULL,
     "rail-optimised: NIC k of every node on the same leaf switches"},
    {"inter", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "the fabric between nodes"},
    {"inter.switch_tiers", SC_FIELD_INT, T(switch_tiers), 0, false, 0, 8, NULL,
     "switch tiers between nodes (1: one switch)"},
    {"inter.oversubscription", SC_FIELD_NUMBER, T(oversubscription), 0, false, 1, 64, NULL,
     "at the leaves' uplinks"},
    {"inter.nodes_per_leaf", SC_FIELD_INT, T(nodes_per_leaf), 0, false, 0, 1e6, NULL,
     "nodes under one leaf switch (0: all)"},
    {"inter.sharp", SC_FIELD_BOOL, T(sharp), 0, false, 0, 0, NULL,
     "IB SHARP: the switches reduce (NCCL CollNet)"},
    {"nodes", SC_FIELD_INT, T(nodes), 0, false, 1, 1e6, NULL, "nodes in the cluster"},
    {"cost", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "what one node costs (compare)"},
    {"cost.hour_usd", SC_FIELD_NUMBER, T(cost_hour_usd), 0, false, 0, 1e7, NULL,
     "rent per node-hour"},
    {"cost.month_usd", SC_FIELD_NUMBER, T(cost_month_usd), 0, false, 0, 1e9, NULL,
     "rent per node-month (730 hours)"},
    {"cost.purchase_usd", SC_FIELD_NUMBER, T(cost_purchase_usd), 0, false, 0, 1e10, NULL,
     "purchase price of a node"},
    {"cost.amortize_years", SC_FIELD_NUMBER, T(cost_amortize_years), 0, false, 0.1, 50, NULL,
     "years a purchase is written off over (default 3)"},
    {"cost.source", SC_FIELD_STRING, T(cost_source), 160, false, 0, 0, NULL,
     "where the figure comes from"},
    {"power", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "what one node draws (compare)"},
    {"power.full_load_kw", SC_FIELD_NUMBER, T(power_kw), 0, false, 0, 1e4, NULL, "at full load"},
    {"power.source", SC_FIELD_STRING, T(power_source), 160, false, 0, 0, NULL,
     "where the figure comes from"},
    {"training", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "how a training step runs here"},
    {"training.step_jitter", SC_FIELD_NUMBER, T(step_jitter), 0, false, 0, 1, NULL,
     "spread (std/mean) of one rank's compute between syncs; the step waits for the slowest"},
    {"training.overlap_slowdown", SC_FIELD_NUMBER, T(overlap_slowdown), 0, false, 0, 10, NULL,
     "fraction compute slows while a collective shares the GPU"},
    {"training.overlap", SC_FIELD_NUMBER, T(overlap), 0, false, 0, 1, NULL,
     "fraction of a started collective's progress kept while compute runs (1: all)"},
    {"calibrated", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL,
     "measured here by scalecheck calibrate (topologies/README.md)"},
    {"calibrated.by", SC_FIELD_STRING, T(calibrated_by), 256, false, 0, 0, NULL,
     "what measured it: version, ranks, hosts, library, date"},
    {"calibrated.intra", SC_FIELD_SKIP, 0, 0, false, 0, 0, NULL, "size regimes inside a node"},
    {"calibrated.inter", SC_FIELD_SKIP, 0, 0, false, 0, 0, NULL, "size regimes between nodes"},
    {"calibrated.overlap", SC_FIELD_NUMBER, T(overlap), 0, false, 0, 1, NULL,
     "training.overlap as measured here"},
    {"calibrated.overlap_slowdown", SC_FIELD_NUMBER, T(overlap_slowdown), 0, false, 0, 10, NULL,
     "training.overlap_slowdown as measured here"},
    {"calibrated.memory_GBps", SC_FIELD_NUMBER, T(cal_memory_GBps), 0, false, 0, 1e6, NULL,
     "one rank's memory copy"},
    {"calibrated.probe_us", SC_FIELD_NUMBER, T(cal_probe_us), 0, false, 0, 1e7, NULL,
     "the reference probe's time"},
    {"calibrated.probe_spread", SC_FIELD_NUMBER, T(cal_probe_spread), 0, false, 0, 100, NULL,
     "its spread between looks (max/min - 1)"},
    {"calibrated.compute_workload", SC_FIELD_STRING, T(cal_compute_workload), 64, false, 0, 0, NULL,
     "the workload whose products compute_tflops was measured on"},
    {"calibrated.compute_tflops", SC_FIELD_NUMBER, T(cal_compute_tflops), 0, false, 0, 1e6, NULL,
     "TFLOP/s one GPU reached on that workload's own products (the median GPU)"},
    {"expect", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL, "what to hold measurements to"},
    {"expect.tolerance", SC_FIELD_NUMBER, T(tolerance), 0, false, 0, 1, NULL,
     "against the model: PASS >= 1-t"},
    {"expect.fail_tolerance", SC_FIELD_NUMBER, T(fail_tolerance), 0, false, 0, 1, NULL,
     "against the model: FAIL below 1-f (default 1-(1-t)^2), WARN between"},
    {"expect.latency_tolerance", SC_FIELD_NUMBER, T(latency_tolerance), 0, false, 0, 0.95, NULL,
     "against the model where latency decides a case's time (small messages): the band widens "
     "from t towards this with the model's latency share (default 0.5)"},
    {"expect.steadiness_tolerance", SC_FIELD_NUMBER, T(steadiness_tolerance), 0, false, 0, 0.99,
     NULL,
     "a case's p99 against its median: PASS while median/p99 >= 1-t (default 0.667: p99 up to 3x "
     "the median)"},
    {"expect.steadiness_fail_tolerance", SC_FIELD_NUMBER, T(steadiness_fail_tolerance), 0, false, 0,
     0.999, NULL, "FAIL below 1-f (default 0.9: p99 over 10x the median)"},
    {"expect.claims", SC_FIELD_SKIP, 0, 0, false, 0, 0, NULL, "explicit claims (a list)"},
    {"expect.soak", SC_FIELD_SECTION, 0, 0, false, 0, 0, NULL,
     "what `scalecheck soak` holds every cycle to"},
    {"expect.soak.max_gpu_temp_c", SC_FIELD_NUMBER, T(soak.max_gpu_temp_c), 0, false, 0, 200, NULL,
     "hottest a GPU may run (default 85)"},
    {"expect.soak.max_cpu_temp_c", SC_FIELD_NUMBER, T(soak.max_cpu_temp_c), 0, false, 0, 200, NULL,
     "hottest a CPU sensor may read (default 95)"},
    {"expect.soak.ecc_uncorrected", SC_FIELD_NUMBER, T(soak.ecc_uncorrected), 0, false, 0, 1e9,
     NULL, "uncorrected ECC errors a host may gain in a cycle (default 0)"},
    {"expect.soak.xid", SC_FIELD_NUMBER, T(soak.xid), 0, false, 0, 1e9, NULL,
     "XID errors a host may raise in a cycle (default 0)"},
    {"expect.soak.retired_pages", SC_FIELD_NUMBER, T(soak.retired_pages), 0, false, 0, 1e9, NULL,
     "pages a host may retire over the soak (default 0)"},
    {"expect.soak.remapped_rows", SC_FIELD_NUMBER, T(soak.remapped_rows), 0, false, 0, 1e9, NULL,
     "rows a host may remap over the soak (default 0)"},
    {"expect.soak.edac_uncorrected", SC_FIELD_NUMBER, T(soak.edac_uncorrected), 0, false, 0, 1e9,
     NULL, "uncorrected host memory errors (EDAC) in a cycle (default 0)"},
    {"expect.soak.max_throttle_fraction", SC_FIELD_NUMBER, T(soak.max_throttle_fraction), 0, false,
     0, 1, NULL, "share of a cycle's samples a GPU may be throttled (default 0.1)"},
    {"expect.soak.max_drift", SC_FIELD_NUMBER, T(soak.max_drift), 0, false, 0, 1, NULL,
     "slide of a figure from the first cycles to the last (default 0.05)"},
    {NULL, 0, 0, 0, false, 0, 0, NULL, NULL},
};

static const sc_field_t topology__claim_fields[] = {
    {"metric", SC_FIELD_ENUM, C(metric), 0, true, 0, 0, SC_CLAIM_METRIC_NAMES,
     "what the claim states"},
    {"collective", SC_FIELD_STRING, C(collective), 24, false, 0, 0, NULL,
     "the collective the claim is about"},
    {"size", SC_FIELD_BYTES, C(size), 0, false, 1, BIG, NULL, "bytes (K/M/G = 2^10..)"},
    {"gpus", SC_FIELD_INT, C(gpus), 0, false, 1, 1e6, NULL, "GPUs per node"},
    {"nodes", SC_FIELD_INT, C(nodes), 0, false, 1, 1e6, NULL, "nodes the claim is stated for"},
    {"min", SC_FIELD_NUMBER, C(min), 0, false, 0, BIG, NULL, "at least"},
    {"max", SC_FIELD_NUMBER, C(max), 0, false, 0, BIG, NULL, "at most"},
    {"tolerance", SC_FIELD_NUMBER, C(tolerance), 0, false, 0, 1, NULL, "PASS within"},
    {"fail_tolerance", SC_FIELD_NUMBER, C(fail_tolerance), 0, false, 0, 1, NULL,
     "FAIL beyond (default: one tolerance further)"},
    {NULL, 0, 0, 0, false, 0, 0, NULL, NULL},
};

static const sc_field_t topology__regime_fields[] = {
    {"upto", SC_FIELD_BYTES, R(upto), 0, false, 1, BIG, NULL, "largest size of the regime"},
    {"latency_us", SC_FIELD_NUMBER, R(latency_us), 0, true, 0, 1e7, NULL, "per step"},
    {"bandwidth_GBps", SC_FIELD_NUMBER, R(GBps), 0, true, 1e-6, 1e7, NULL,
     "the regime's bandwidth, GB/s"},
    {NULL, 0, 0, 0, false, 0, 0, NULL, NULL},
};

static void topology__defaults(sc_topology_t *t)
{
    memset(t, 0, sizeof(*t));
    t->soak = (sc_soak_limits_t){.max_gpu_temp_c = SC_DEFAULT_SOAK_MAX_GPU_TEMP_C,
                                 .max_cpu_temp_c = SC_DEFAULT_SOAK_MAX_CPU_TEMP_C,
                                 .max_throttle_fraction = SC_DEFAULT_SOAK_MAX_THROTTLE_FRACTION,
                                 .max_drift = SC_DEFAULT_SOAK_MAX_DRIFT};
    t->gpus_per_node = 1;
    t->intra_efficiency = 0; /* from the path, once the fabric is known */
    t->intra_latency_us = 5.0;
    t->nic_efficiency = SC_NIC_EFFICIENCY;
    t->nic_latency_us = NAN; /* not stated: sc_topology_net_hop says what it costs */
    t->oversubscription = 1.0;
    t->nodes = 1;
    t->tolerance = 0.1;
    t->latency_tolerance = SC_DEFAULT_LATENCY_TOLERANCE;
    t->steadiness_tolerance = SC_DEFAULT_STEADINESS_TOLERANCE;
    t->steadiness_fail_tolerance = SC_DEFAULT_STEADINESS_FAIL_TOLERANCE;
    t->p2p = true;
    t->pcie_uplink_lanes = 16;
    t->step_jitter = SC_DEFAULT_STEP_JITTER;
    t->overlap_slowdown = SC_DEFAULT_OVERLAP_SLOWDOWN;
    t->overlap = SC_DEFAULT_OVERLAP;
}

/* calibrated.<key>: size regimes in growing order, every one but the last with its `upto`. */
static sc_status_t topology__regimes(const sc_yaml_doc_t *doc, const char *key, sc_regimes_t *out,
                                     sc_err_t *err)
{
    const sc_yaml_node_t *list = sc_yaml_get(sc_yaml_get(doc->root, "calibrated"), key);
    if (list == NULL)
        return SC_OK;
    if (list->kind != SC_YAML_SEQ || list->count == 0 || list->count > SC_TOPOLOGY_MAX_REGIMES)
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s:%d:%d: calibrated.%s: expected a list of 1 to %d "
                          "regimes",
                          doc->path, list->line, list->column, key, SC_TOPOLOGY_MAX_REGIMES);
    out->n = 0;
    for (size_t i = 0; i < list->count; i++) {
        const sc_yaml_node_t *item = list->items[i];
        sc_regime_t *r = &out->r[out->n];
        memset(r, 0, sizeof(*r));
        sc_status_t status = sc_yaml_apply_node(doc, item, topology__regime_fields, r, NULL, err);
        if (status != SC_OK)
            return status;
        bool last = i + 1 == list->count;
        const char *problem = NULL;
        if (last && r->upto != 0)
            problem = "the last regime has no upto (it has no bound)";
        else if (!last && r->upto == 0)
            problem = "every regime but the last needs upto";
        else if (!last && i > 0 && r->upto <= out->r[i - 1].upto)
            problem = "upto must grow from regime to regime";
        if (problem)
            return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: calibrated.%s: %s", doc->path,
                              item->line, item->column, key, problem);
        out->n++;
    }
    return SC_OK;
}

static sc_status_t topology__claims(const sc_yaml_doc_t *doc, sc_topology_t *t, sc_err_t *err)
{
    const sc_yaml_node_t *claims = sc_yaml_get(sc_yaml_get(doc->root, "expect"), "claims");
    if (claims == NULL)
        return SC_OK;
    if (claims->kind != SC_YAML_SEQ)
        return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: expect.claims: expected a list", doc->path,
                          claims->line, claims->column);
    for (size_t i = 0; i < claims->count; i++) {
        if (t->nclaims == SC_TOPOLOGY_MAX_CLAIMS)
            return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: more than %d claims", doc->path,
                              claims->items[i]->line, claims->items[i]->column,
                              SC_TOPOLOGY_MAX_CLAIMS);
        sc_claim_t *c = &t->claims[t->nclaims];
        memset(c, 0, sizeof(*c));
        c->gpus = c->nodes = 1;
        c->tolerance = t->tolerance;
        c->fail_tolerance = t->fail_tolerance;
        c->line = claims->items[i]->line;
        sc_status_t status =
            sc_yaml_apply_node(doc, claims->items[i], topology__claim_fields, c, NULL, err);
        if (status != SC_OK)
            return status;
        if (c->min == 0 && c->max == 0)
            return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: a claim needs min or max", doc->path,
                              c->line, claims->items[i]->column);
        t->nclaims++;
    }
    return SC_OK;
}

/* Whether name is a YAML file's name (printable, ending in .yaml or .yml). */
static bool topology__topology_file_name(const char *name)
{
    size_t n = strlen(name);
    for (const char *c = name; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return false;
    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

/* Whether real (a resolved path) lies inside folder (resolved here). */
static bool topology__inside(const char *real, const char *folder)
{
    char dir[PATH_MAX];
    if (realpath(folder, dir) == NULL)
        return false;
    size_t n = strlen(dir);
    return strncmp(real, dir, n) == 0 && (real[n] == '/' || (n == 1 && dir[0] == '/'));
}

bool sc_topology_shipped(const char *real)
{
    char shipped[SC_FILES_DIRS_MAX];
    sc_files_data_dirs("topologies", shipped, sizeof(shipped));
    for (char *save = NULL, *d = strtok_r(shipped, ":", &save); d; d = strtok_r(NULL, ":", &save))
        if (topology__inside(real, d))
            return true;
    return false;
}

/* A topology extends only files beside it (its folder and below) or the shipped ones: never a
 * file elsewhere, whose content an error would quote. */
static bool topology__may_extend(const char *from, const char *base)
{
    char real[PATH_MAX], dir[PATH_MAX];
    if (realpath(base, real) == NULL)
        return true; /* missing: the load says so */
    snprintf(dir, sizeof(dir), "%s", from);
    return topology__inside(real, dirname(dir)) || sc_topology_shipped(real);
}

/* Loads one file over t, after the file it extends. chain holds the files being loaded. */
static sc_status_t topology__load(const char *path, sc_topology_t *t, char chain[][PATH_MAX],
                                  int depth, sc_err_t *err)
{
    char real[PATH_MAX];
    if (realpath(path, real) == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s: cannot open", path);
    for (int i = 0; i < depth; i++)
        if (strcmp(chain[i], real) == 0)
            return sc_err_set(err, SC_ERR_INPUT, "%s: extends itself through %s (a cycle)",
                              chain[0], path);
    if (depth == SC__MAX_EXTENDS)
        return sc_err_set(err, SC_ERR_INPUT, "%s: extends more than %d files deep", chain[0],
                          SC__MAX_EXTENDS);
    snprintf(chain[depth], PATH_MAX, "%s", real);
    sc_yaml_doc_t doc;
    sc_status_t status = sc_yaml_load(path, &doc, err);
    if (status != SC_OK)
        return status;
    if (doc.root == NULL) {
        sc_yaml_free(&doc);
        return sc_err_set(err, SC_ERR_INPUT, "%s:1:1: empty file", path);
    }
    const sc_yaml_node_t *base = sc_yaml_get(doc.root, "extends");
    if (base != NULL && base->kind != SC_YAML_SCALAR)
        status = sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: extends: expected a file name", path,
                            base->line, base->column);
    else if (base != NULL && !topology__topology_file_name(base->value))
        /* what is read must be a topology of ours: never another file, whose content an error
         * message would quote */
        status = sc_err_set(err, SC_ERR_INPUT,
                            "%s:%d:%d: extends: '%s' is not a topology file (*.yaml, *.yml)", path,
                            base->line, base->column, base->value);
    else if (base != NULL) {
        char dir[PATH_MAX], next[PATH_MAX * 2];
        snprintf(dir, sizeof(dir), "%s", path);
        if (base->value[0] == '/') /* absolute, else relative to this file */
            snprintf(next, sizeof(next), "%s", base->value);
        else
            snprintf(next, sizeof(next), "%s/%s", dirname(dir), base->value);
        if (!topology__may_extend(path, next))
            status = sc_err_set(err, SC_ERR_INPUT,
                                "%s:%d:%d: extends: '%s' is neither beside this file nor a "
                                "shipped topology",
                                path, base->line, base->column, base->value);
        else if (access(next, R_OK) != 0) /* named where it is asked for */
            status = sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: extends: '%s': cannot open %s: %s",
                                path, base->line, base->column, base->value, next, strerror(errno));
        else
            status = topology__load(next, t, chain, depth + 1, err);
    }
    if (status == SC_OK)
        status = sc_yaml_apply(&doc, topology__topology_fields, t, NULL, err);
    if (status == SC_OK)
        status = sc_switches_check(&doc, err);
    if (status == SC_OK && sc_yaml_get(doc.root, "switches") != NULL) /* the nearest file's */
        snprintf(t->switches_file, sizeof(t->switches_file), "%s", path);
    if (status == SC_OK)
        status = topology__claims(&doc, t, err);
    if (status == SC_OK)
        status = topology__regimes(&doc, "intra", &t->cal_intra, err);
    if (status == SC_OK)
        status = topology__regimes(&doc, "inter", &t->cal_inter, err);
    sc_yaml_free(&doc);
    return status;
}

static sc_status_t topology__check(const sc_topology_t *t, sc_err_t *err)
{
    const char *problem = NULL;
    if (t->name[0] == '\0')
        problem = "missing required field 'name'";
    else if (sc_topology_intra_GBps(t) <= 0 && t->gpus_per_node > 1)
        problem = "intra: give gpu_bandwidth_GBps, link_GBps with links_per_gpu, or pcie_gen";
    else if (t->nodes > 1 && (t->nics == 0 || t->nic_gbps == 0))
        problem = "a cluster of several nodes needs nics.count and nics.rate_gbps";
    else if (t->fail_tolerance > 0 && t->fail_tolerance < t->tolerance)
        problem = "expect.fail_tolerance is below expect.tolerance (nothing could WARN)";
    else if (t->nvls_mode == SC_NVLS_on && t->fabric != SC_FABRIC_nvswitch)
        problem = "intra.nvls: on needs intra.fabric: nvswitch (NVLink SHARP runs in the switch)";
    return problem ? sc_err_set(err, SC_ERR_INPUT, "%s: %s", t->path, problem) : SC_OK;
}

sc_status_t sc_topology_load(const char *name, sc_topology_t *t, sc_err_t *err)
{
    char path[PATH_MAX]; /* a shipped topology by its name: dgx-a100 */
    char dirs[SC_FILES_DIRS_MAX];
    sc_files_shipped(name, sc_files_data_dirs("topologies", dirs, sizeof(dirs)), path,
                     sizeof(path));
    topology__defaults(t);
    snprintf(t->path, sizeof(t->path), "%s", path);
    static char chain[SC__MAX_EXTENDS + 1][PATH_MAX];
    sc_status_t status = topology__load(path, t, chain, 0, err);
    status = sc_files_shipped_hint(name, dirs, "topology", status, err);
    return status == SC_OK ? topology__check(t, err) : status;
}

double sc_topology_cores(const sc_topology_t *t, bool *assumed)
{
    *assumed = t->cores <= 0;
    return *assumed ? SC_DEFAULT_CORES_PER_GPU * (double)t->gpus_per_node : (double)t->cores;
}

double sc_topology_memory_GBps(const sc_topology_t *t)
{
    return t->cal_memory_GBps > 0 ? t->cal_memory_GBps : t->gpu_memory_GBps / 2;
}

double sc_topology_hbm_GBps(const sc_topology_t *t)
{
    return t->cal_memory_GBps > 0 ? 2 * t->cal_memory_GBps : t->gpu_memory_GBps;
}

double sc_topology_tflops(const sc_topology_t *t, int precision)
{
    switch (precision) {
    case SC_PRECISION_FP16:
        return t->tflops_fp16;
    case SC_PRECISION_BF16:
        return t->tflops_bf16 > 0 ? t->tflops_bf16 : t->tflops_fp16;
    case SC_PRECISION_TF32:
        return t->tflops_tf32 > 0 ? t->tflops_tf32 : t->tflops_fp32;
    default:
        return t->tflops_fp32;
    }
}

const sc_field_t *sc_topology_schema(void)
{
    return topology__topology_fields;
}
const sc_field_t *sc_topology_claim_schema(void)
{
    return topology__claim_fields;
}
const sc_field_t *sc_topology_regime_schema(void)
{
    return topology__regime_fields;
}

const char *sc_algo_name(int algo)
{
#define SC__NAME(name) #name,
    static const char *const names[] = {SC_ALGO_MAP(SC__NAME)};
#undef SC__NAME
    return algo >= 0 && algo < SC_ALGO_COUNT ? names[algo] : "?";
}

/* NCCL_ALGO's names for the model's algorithms (NCCL's environment variables documentation). */
static const char *const topology__nccl_algo[SC_ALGO_COUNT] = {
    [SC_ALGO_ring] = "Ring",
    [SC_ALGO_tree] = "Tree",
    [SC_ALGO_nvls] = "NVLS",
    [SC_ALGO_sharp] = "CollnetDirect,CollnetChain",
};

sc_status_t sc_topology_algo_choose(const char *flag, const char *name, sc_topology_t *t, int *algo,
                                    sc_err_t *err)
{
    *algo = SC_ALGO_auto;
    if (name == NULL)
        return SC_OK;
    for (int a = 0; a < SC_ALGO_COUNT; a++) {
        if (strcmp(name, sc_algo_name(a)) != 0)
            continue;
        *algo = a;
        if (t == NULL)
            return SC_OK;
        t->algo = a;
        const char *lacks = a == SC_ALGO_nvls && !sc_topology_nvls(t) ? "NVLink SHARP"
                            : a == SC_ALGO_sharp && !t->sharp         ? "IB SHARP"
                                                                      : NULL;
        if (lacks != NULL)
            fprintf(stderr, "# %s %s: %s has no %s: the model falls back to the ring, as NCCL\n",
                    flag, name, t->name, lacks);
        return SC_OK;
    }
    return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is none of auto ring tree nvls sharp", flag,
                      name);
}

const char *sc_topology_algo_nccl(int algo)
{
    return algo > SC_ALGO_auto && algo < SC_ALGO_COUNT ? topology__nccl_algo[algo] : NULL;
}

const char *sc_fabric_name(int fabric)
{
#define SC__NAME(name) #name,
    static const char *const names[] = {SC_FABRIC_MAP(SC__NAME)};
#undef SC__NAME
    return fabric >= 0 && fabric < SC_FABRIC_COUNT ? names[fabric] : "?";
}

const char *sc_claim_metric_name(int metric)
{
#define SC__CLAIM_NAME(id, name) #name,
    static const char *const names[] = {SC_CLAIM_METRIC_MAP(SC__CLAIM_NAME)};
#undef SC__CLAIM_NAME
    return metric >= 0 && metric < SC_CLAIM_METRIC_COUNT ? names[metric] : "?";
}
