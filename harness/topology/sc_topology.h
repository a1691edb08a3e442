/* sc_topology.h - what the hardware is and what it should deliver, as an architect writes it
 * from a spec sheet (topologies/README.md): the node (GPUs, their peak TFLOP/s, CPUs, NUMA), the
 * intra-node fabric (NVSwitch, NVLink mesh or bridges, PCIe, NVLink SHARP), the NICs, the
 * inter-node fabric, the node count, and the claims to hold measurements to. A file may extend
 * another (a node type defined once); cycles are refused. */
#ifndef SC_TOPOLOGY_H
#define SC_TOPOLOGY_H

#include <stdbool.h>

#include "util/sc_status.h"

/* Name lists kept once; the enums, the names and the schema's choices ("a|b|...") follow. shm:
 * ranks on one host exchanging through shared memory (the host path). */
#define SC_FABRIC_MAP(X)                                                                           \
    X(nvswitch) X(nvlink_mesh) X(nvlink_bridge) X(pcie) X(infinity_fabric) X(hccs) X(shm)
#define SC_LIBRARY_MAP(X)      X(nccl) X(rccl) X(hccl) X(mpi)
#define SC__ENUM_FABRIC(name)  SC_FABRIC_##name,
#define SC__ENUM_LIBRARY(name) SC_LIB_##name,
#define SC__NAME_BAR(name)     #name "|"
typedef enum { SC_FABRIC_MAP(SC__ENUM_FABRIC) SC_FABRIC_COUNT } sc_fabric_t;
typedef enum { SC_LIBRARY_MAP(SC__ENUM_LIBRARY) SC_LIB_COUNT } sc_library_t;
#define SC_FABRIC_NAMES SC_FABRIC_MAP(SC__NAME_BAR)
/* The collective algorithms the model knows (--algo forces one; auto: the fastest available,
 * as NCCL's tuner picks). nvls: NVLink SHARP inside a node; sharp: IB SHARP between nodes. */
#define SC_ALGO_MAP(X)      X(auto) X(ring) X(tree) X(nvls) X(sharp)
#define SC__ENUM_ALGO(name) SC_ALGO_##name,
typedef enum { SC_ALGO_MAP(SC__ENUM_ALGO) SC_ALGO_COUNT } sc_algo_t;
#define SC_ALGO_NAMES SC_ALGO_MAP(SC__NAME_BAR)
const char *sc_algo_name(int algo);
/* NVLink SHARP: from the NVSwitch generation (auto), or forced on or off. */
#define SC_NVLS_MAP(X)      X(auto) X(on) X(off)
#define SC__ENUM_NVLS(name) SC_NVLS_##name,
typedef enum { SC_NVLS_MAP(SC__ENUM_NVLS) SC_NVLS_COUNT } sc_nvls_mode_t;
#define SC_NVLS_NAMES SC_NVLS_MAP(SC__NAME_BAR)
/* How far apart two GPUs may sit on PCIe and still exchange peer-to-peer (beyond it the
 * library stages through host memory): below a common PCIe switch (NCCL's default), through
 * one CPU's root complex, or across sockets. */
#define SC_P2P_LEVEL_MAP(X) X(switch) X(host) X(system)
#define SC__ENUM_P2P(name)  SC_P2P_##name,
typedef enum { SC_P2P_LEVEL_MAP(SC__ENUM_P2P) SC_P2P_LEVEL_COUNT } sc_p2p_level_t;
#define SC_P2P_LEVEL_NAMES SC_P2P_LEVEL_MAP(SC__NAME_BAR)
#define SC_LIBRARY_NAMES   SC_LIBRARY_MAP(SC__NAME_BAR)

#define SC_TOPOLOGY_MAX_CLAIMS  32
#define SC_TOPOLOGY_MAX_REGIMES 8

/* One size regime of a path as `scalecheck calibrate` measured it: a collective of at most
 * `upto` bytes (0: no bound, the last regime) pays latency_us per algorithm step and moves its
 * bytes at GBps per GPU per direction (inside a node) or per node (between nodes). Libraries
 * change protocol with the size (shared memory eager/rendezvous, NCCL LL/LL128/Simple), so one
 * alpha-beta line per regime, not one for all sizes. */
typedef struct {
    double upto, latency_us, GBps;
} sc_regime_t;
typedef struct {
    sc_regime_t r[SC_TOPOLOGY_MAX_REGIMES];
    int n;
} sc_regimes_t;

/* An explicit expectation: "allreduce busbw at 8 GPUs, 1 GiB, >= 230 GB/s, 5 % tolerance". */
typedef struct {
    int metric; /* SC_CLAIM_METRIC_NAMES */
    char collective[24];
    double size; /* bytes */
    long long gpus, nodes;
    double min, max;                  /* 0: no bound */
    double tolerance, fail_tolerance; /* PASS >= (1 - t) x bound, WARN >= (1 - f) x bound */
    int line;
} sc_claim_t;
#define SC_CLAIM_METRIC_MAP(X)                                                                     \
    X(BUSBW, busbw)                                                                                \
    X(ALGBW, algbw) X(LATENCY, latency) X(EFFICIENCY, efficiency) X(SPEEDUP, speedup)
#define SC__CLAIM_ENUM(id, name) SC_CLAIM_##id,
#define SC__CLAIM_BAR(id, name)  #name "|"
enum { SC_CLAIM_METRIC_MAP(SC__CLAIM_ENUM) SC_CLAIM_METRIC_COUNT };
#define SC_CLAIM_METRIC_NAMES SC_CLAIM_METRIC_MAP(SC__CLAIM_BAR)
/* "busbw", "algbw", "latency", "efficiency", "speedup" ("?" out of range). */
const char *sc_claim_metric_name(int metric);

/* What `scalecheck soak` holds a run to (expect.soak; defaults in util/sc_defaults.h). A count
 * limit holds the growth over a cycle, or over the soak for pages and rows (0: none may
 * appear). */
typedef struct {
    double max_gpu_temp_c, max_cpu_temp_c;
    double ecc_uncorrected, xid, retired_pages, remapped_rows, edac_uncorrected;
    double max_throttle_fraction;
    double max_drift; /* a figure's slide from the first cycles to the last */
} sc_soak_limits_t;

typedef struct {
    char name[64];
    char description[256];
    char path[512];
    char switches_file[512]; /* the file that declares `switches:` (topology/sc_switches.h) */
    int library;             /* sc_library_t */
    /* node */
    char gpu[64];
    double compute_capability; /* NCCL's SM version as 8.6 (0: from the GPU's name) */
    long long gpus_per_node;
    double gpu_memory_gb, gpu_memory_GBps;
    double tflops_fp32, tflops_tf32, tflops_fp16, tflops_bf16;
    char cpu[64];
    long long sockets, cores, numa_nodes;
    double host_memory_GBps; /* the node's DRAM, all sockets: channels x MT/s x 8 B (0: unknown) */
    /* intra */
    int fabric;       /* sc_fabric_t */
    double link_GBps; /* per link, per direction */
    long long links_per_gpu;
    double gpu_bandwidth_GBps; /* per GPU per direction; 0: links x link rate, or PCIe */
    double intra_efficiency;   /* reachable fraction for NCCL-class software; 0: from the path
                                  (docs/REFERENCE.md section 2) */
    double intra_latency_us;   /* per algorithm step */
    double intra_eager_bytes;  /* an MPI message's largest eager size inside a node (0: the
                                  library's default, sc_defaults.h) */
    long long pcie_gen, pcie_lanes;
    bool p2p;
    long long nvswitch_gen; /* 1 (V100) .. 4 (B200); NVLink SHARP from gen 3 */
    int nvls_mode;          /* sc_nvls_mode_t */
    double nvls_busbw_GBps; /* a published all-reduce busbw through NVLS on the whole node,
                               overriding the derivation (0: derived) */
    /* the PCIe tree: which GPUs share a switch and a socket */
    long long gpus_per_switch;   /* GPUs behind one PCIe switch (0: each on a root port) */
    long long pcie_uplink_lanes; /* a switch's lanes to its root complex */
    long long gpu_sockets;       /* sockets whose root complexes hold the GPUs (0: sockets) */
    int p2p_level;               /* sc_p2p_level_t: the farthest peer-to-peer path */
    /* nics */
    long long nics;
    double nic_gbps, nic_efficiency;
    double nic_latency_us;  /* NaN: not stated (sc_topology_net_hop's default prices it) */
    double nic_eager_bytes; /* an MPI message's largest eager size between nodes (0: default) */
    bool rails;             /* rail-optimised: NIC k of every node on the same leaf switches */
    /* inter */
    long long switch_tiers, nodes_per_leaf;
    double oversubscription; /* at the leaves' uplinks: rings crossing the spine share them */
    bool sharp;              /* IB SHARP: the switches reduce (NCCL's CollNet) */
    /* what a run forced (--algo), not read from the file */
    int algo; /* sc_algo_t */
    /* what a run did (--symmetric), not read from the file: its buffers were registered as
     * symmetric windows (nccl-tests -R 2), so NCCL's symmetric kernels run its collectives */
    bool symmetric;
    /* training: what the model adds to the communication (topologies/README.md, calibration) */
    double step_jitter, overlap_slowdown;
    double overlap; /* fraction of a started collective's progress kept while compute runs */
    /* calibrated: what `scalecheck calibrate` measured here (absent: the declared figures) */
    char calibrated_by[256];
    sc_regimes_t cal_intra, cal_inter;
    double cal_memory_GBps;  /* one rank's memory copy, GB/s of bytes copied */
    double cal_probe_us;     /* the reference probe (a small all-reduce), us; 0: none */
    double cal_probe_spread; /* its run-to-run spread (max/min - 1) when calibrated */
    /* the TFLOP/s one GPU reached on a workload's own products (0: not measured): the model
     * prices that workload's compute with it instead of the generation's published share */
    char cal_compute_workload[64];
    double cal_compute_tflops;
    /* cluster */
    long long nodes;
    /* what a node costs and draws, for `compare` (0: not declared): rent per hour or month,
     * or a purchase written off over amortize_years; the power at full load */
    double cost_hour_usd, cost_month_usd, cost_purchase_usd, cost_amortize_years;
    char cost_source[160];
    double power_kw;
    char power_source[160];
    /* expectations */
    double tolerance;      /* for the model's predictions: PASS >= 1 - t */
    double fail_tolerance; /* FAIL below 1 - f; 0: f = 1 - (1 - t)^2, one tolerance further */
    double steadiness_tolerance, steadiness_fail_tolerance; /* a p99 against its median */
    double latency_tolerance; /* the band of a case whose time is all latency (the model's
                                 latency share widens t towards it) */
    sc_claim_t claims[SC_TOPOLOGY_MAX_CLAIMS];
    sc_soak_limits_t soak; /* expect.soak: what a soak holds every cycle to */
    int nclaims;
} sc_topology_t;

/* The node's CPU cores that feed its GPUs: as declared, else SC_DEFAULT_CORES_PER_GPU a GPU
 * (*assumed says which) - the same rule for every system, so that a file that omits `cores`
 * is not a node whose input pipeline never bounds it. */
double sc_topology_cores(const sc_topology_t *t, bool *assumed);

/* Loads a file, or a shipped topology by its name ("dgx-a100"), following `extends` (relative
 * to the file), and checks the result. */
sc_status_t sc_topology_load(const char *name, sc_topology_t *t, sc_err_t *err);

/* A PCIe link's raw rate one way, GB/s, at generation gen (1-7) and lanes lanes (0: not one). */
double sc_topology_pcie_raw_GBps(int gen, int lanes);

/* Per-GPU intra-node bandwidth (GB/s, per direction) as software reaches it, for a ring over
 * every GPU of the node. */
double sc_topology_intra_GBps(const sc_topology_t *t);
/* The same for a ring over `gpus` GPUs of a node: a bridged pair is joined by its bridge, more
 * GPUs meet over PCIe; on PCIe the ring crosses switch uplinks and sockets as it grows. */
double sc_topology_ring_GBps(const sc_topology_t *t, int gpus);
/* A GPU's raw link rate (GB/s per direction), before any protocol overhead. */
double sc_topology_line_GBps(const sc_topology_t *t);
/* The share of the line rate software reaches: intra.efficiency, else on NVLink what NCCL
 * reaches per link in the GPU's generation (docs/REFERENCE.md section 2), else 0.8. */
double sc_topology_link_share(const sc_topology_t *t);
/* The CPU's vendor from node.cpu's name ("Intel Xeon ...", "AMD EPYC ..."): NCCL's paths and
 * protocols differ by it (Intel's P2P overhead, LL's cap across nodes). */
typedef enum { SC_CPU_OTHER, SC_CPU_INTEL, SC_CPU_AMD } sc_cpu_vendor_t;
sc_cpu_vendor_t sc_topology_cpu_vendor(const sc_topology_t *t);
/* The GPU's compute capability as NCCL numbers it (80 for 8.0): node.compute_capability, else
 * from node.gpu's name (80 where the name says nothing known, as NCCL; 0: not an NVIDIA GPU). */
int sc_topology_gpu_cc(const sc_topology_t *t);
/* Whether NVLink SHARP reduces inside the switch (NVSwitch gen >= 3 unless off, or on), and the
 * all-reduce algbw it reaches (GB/s). */
bool sc_topology_nvls(const sc_topology_t *t);
/* Whether gpus GPUs of a node all reach each other over NVLink: a switch or a full mesh; a
 * bridge joins two, more meet over PCIe. */
bool sc_topology_all_nvlink(const sc_topology_t *t, int gpus);
double sc_topology_nvls_algbw_GBps(const sc_topology_t *t);
/* Per-GPU share of the node's NIC bandwidth (GB/s per direction) as software reaches it. */
double sc_topology_inter_GBps(const sc_topology_t *t, int gpus_per_node);
/* One hop of a collective's path, priced here once for every library's model (the alpha-beta
 * line, NCCL's protocols, SHARP, all-to-all): the latency of one algorithm step over it (us),
 * the bandwidth (GB/s; inside a node per GPU, between nodes per node, all NICs), and whether
 * the latency is the system's own - calibrated, or stated in the topology - rather than a
 * default. A model with constants of its own for a hop (NCCL's tuner) uses them only where the
 * latency is not the system's own (model/sc_model_proto.c). */
typedef struct {
    double latency_us, GBps;
    bool stated;
} sc_hop_t;
/* Inside a node of `gpus`: the calibrated regime of `bytes` (stated), else intra.latency_us and
 * the ring's bandwidth (not stated: NCCL's tuner prices its NVLink and PCIe steps itself). */
sc_hop_t sc_topology_node_hop(const sc_topology_t *t, double bytes, int gpus);
/* Between `nodes`, `gpus` of each taking part: the calibrated regime of `bytes`, else
 * nics.latency_us (each switch tier on the way adds half of it) and the NICs those GPUs drive
 * (each its share of the node's, at least one; the leaves' oversubscription off a rail). */
sc_hop_t sc_topology_net_hop(const sc_topology_t *t, double bytes, int nodes, int gpus);
/* How fast one GPU copies its memory (GB/s of bytes copied): calibrated, else half the
 * declared memory bandwidth (a copy reads and writes every byte), else 0. */
double sc_topology_memory_GBps(const sc_topology_t *t);
/* The GPU memory's traffic rate, reads and writes together (GB/s): twice a calibrated copy's,
 * else the declared bandwidth, else 0. */
double sc_topology_hbm_GBps(const sc_topology_t *t);
/* Peak TFLOP/s for a precision name ("fp32", "tf32", "fp16", "bf16"); 0 when not given. */
double sc_topology_tflops(const sc_topology_t *t, int precision);
const char *sc_fabric_name(int fabric);

/* Whether real (a resolved path) is one of the shipped topologies
 * (sc_files_data_dirs("topologies")), which any topology may extend; other bases must lie beside
 * the file that extends them. */
bool sc_topology_shipped(const char *real);

/* --algo NAME (model, coll, judge): *algo (auto when name is NULL), also set on t, the loaded
 * topology the model prices (or NULL). A forced algorithm t lacks is noted on stderr (the model
 * falls back to the ring); an unknown name is SC_ERR_USAGE naming flag. */
sc_status_t sc_topology_algo_choose(const char *flag, const char *name, sc_topology_t *t, int *algo,
                                    sc_err_t *err);
/* NCCL_ALGO's value for a forced algorithm (NULL for auto). */
const char *sc_topology_algo_nccl(int algo);

#endif
