/* sc_node_verdict.c - inside the node, judged (sc_node_verdict.h). */
#include "judge/sc_node_verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/sc_verdict.h"
#include "util/sc_defaults.h"
#include "util/sc_stats.h"

/* nvidia-smi's classes in sc_pci_distance_t's order: NODE and SYS cross host bridges */
#define NODE__CLASS_NODE 3

/* a NUMA node below the host's best by these shares: BIOS settings halve a socket's */
#define NODE__MEMORY_WARN 0.2
#define NODE__MEMORY_FAIL 0.5

sc_level_t sc_node_nic_level(int nearest_class)
{
    return nearest_class >= NODE__CLASS_NODE ? SC_LEVEL_WARN : SC_LEVEL_PASS;
}

sc_level_t sc_node_gpudirect_level(bool possible, bool acs_redirect, bool iommu_translates)
{
    return !possible || acs_redirect ? SC_LEVEL_FAIL
           : iommu_translates        ? SC_LEVEL_WARN
                                     : SC_LEVEL_PASS;
}

sc_level_t sc_node_rank_level(int cpu_numa, int spans, int gpu_numa, int nic_class,
                              int nearest_class)
{
    if ((gpu_numa >= 0 && cpu_numa >= 0 && cpu_numa != gpu_numa) ||
        (nic_class >= 0 && nearest_class >= 0 && nic_class > nearest_class))
        return SC_LEVEL_FAIL;
    return gpu_numa >= 0 && spans > 1 ? SC_LEVEL_WARN : SC_LEVEL_PASS;
}

sc_level_t sc_node_nic_use_level(bool logged, int nic_class, int nearest_class, bool rdma,
                                 int gdr_sends, int sends)
{
    if (!logged)
        return SC_LEVEL_WARN;
    if ((nic_class >= 0 && nearest_class >= 0 && nic_class > nearest_class) ||
        (rdma && gdr_sends < sends))
        return SC_LEVEL_FAIL;
    return SC_LEVEL_PASS;
}

/* The best memory figure of a host's NUMA nodes, and how many it has. */
static double node__best_memory(const sc_node_rows_t *rows, const char *host, int *nodes)
{
    double best = 0;
    *nodes = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const sc_node_row_t *r = &rows->items[i];
        if (strcmp(r->kind, "memory") == 0 && strcmp(r->host, host) == 0) {
            (*nodes)++;
            best = fmax(best, r->measured_GBps);
        }
    }
    return best;
}

/* The copies inside the node, by kind: what a row is held to and the words of its check. */
static const struct {
    const char *kind, *words, *all;
    bool peers; /* held to the median of the host's rows of its kind */
} node__copy_kinds[] = {
    {"h2d", "host to GPU at its link's rate", "every GPU's link from the host at its rate", false},
    {"h2d-all", "host to GPU with every GPU at once", "every GPU from the host at once", false},
    {"d2h", "GPU to host at its link's rate", "every GPU's link to the host at its rate", false},
    {"d2h-all", "GPU to host with every GPU at once", "every GPU to the host at once", false},
    {"h2d-numa", "host to GPU from a NUMA node's memory",
     "every GPU from every NUMA node's memory at its link's rate", false},
    {"d2h-numa", "GPU to host into a NUMA node's memory",
     "every GPU into every NUMA node's memory at its link's rate", false},
    {"hbm", "GPU memory at its peak's share", "every GPU's memory at its peak's share", false},
    {"peer", "GPU pair one way at its rate", "every GPU pair one way at its rate", true},
    {"peer-both", "GPU pair both ways at its rate", "every GPU pair both ways at its rate", true},
    {"peer-sm-read", "GPU pair read by the SMs at its rate",
     "every GPU pair read by the SMs at its rate", true},
    {"peer-sm-write", "GPU pair written by the SMs at its rate",
     "every GPU pair written by the SMs at its rate", true},
    {"nic", "GPU memory through its NIC at the NIC's rate",
     "every rank's GPU memory through its NIC at the NIC's rate", false},
};

static int node__copy_kind_of(const char *kind)
{
    for (size_t i = 0; i < sizeof(node__copy_kinds) / sizeof(node__copy_kinds[0]); i++)
        if (strcmp(node__copy_kinds[i].kind, kind) == 0)
            return (int)i;
    return -1;
}

/* The median of a host's rows of one kind. */
static double node__median(const sc_node_rows_t *rows, const char *host, const char *kind)
{
    double *v = malloc(sizeof(double) * (rows->n + 1));
    size_t n = 0;
    for (size_t i = 0; v != NULL && i < rows->n; i++) {
        const sc_node_row_t *r = &rows->items[i];
        if (strcmp(r->kind, kind) == 0 && strcmp(r->host, host) == 0 &&
            sc_present(r->measured_GBps))
            v[n++] = r->measured_GBps;
    }
    sc_stats_t st = {0};
    if (n > 0)
        sc_stats_compute(v, n, &st);
    free(v);
    return n > 0 ? st.median : SC_ABSENT;
}

static void node__placement(const char *name, sc_level_t level, sc_checks_t *checks);

/* A row's own check: its name, and the row's figures where it has them. */
static void node__check(const sc_node_row_t *r, const char *words, const char *basis,
                        sc_checks_t *checks, sc_level_t *level)
{
    char name[192];
    snprintf(name, sizeof(name), "%s: %.60s on %.40s (%.100s)", words, r->what, r->host, r->detail);
    if (sc_present(r->measured_GBps) && sc_present(r->expected_GBps) && r->expected_GBps > 0) {
        bool memory = strcmp(r->kind, "memory") == 0, link = strcmp(r->kind, "link") == 0;
        int copy = node__copy_kind_of(r->kind);
        sc_band_t band = {.tolerance = memory ? NODE__MEMORY_WARN
                                       : link ? 0.01
                                              : 1 - SC_NODE_COPY_WARN,
                          .fail_tolerance = memory ? NODE__MEMORY_FAIL
                                            : link ? 0.01
                                                   : 1 - SC_NODE_COPY_FAIL};
        if (basis == NULL)
            basis = memory                                      ? "the host's best node"
                    : link                                      ? "its best"
                    : copy >= 0 && node__copy_kinds[copy].peers ? "the host's pairs' median"
                                                                : "its rate's healthy share";
        sc_check_t *c = sc_verdict_band(checks, name, "GBps", r->measured_GBps, r->expected_GBps,
                                        &band, true, basis);
        *level = c != NULL ? c->level : *level;
        return;
    }
    node__placement(name, *level, checks);
}

/* A check of where something is, at the level already found. */
static void node__placement(const char *name, sc_level_t level, sc_checks_t *checks)
{
    sc_check_t *c = sc_verdict_add(checks, name, "placement", level == SC_LEVEL_PASS, 1, 0, true,
                                   "its GPU's place");
    if (c != NULL)
        c->level = level;
}

/* One PASS check for a kind whose rows all passed (and were judged). */
static void node__all_passed(const sc_node_rows_t *rows, const char *kind, const char *words,
                             bool held_only, sc_checks_t *checks)
{
    int n = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const sc_node_row_t *r = &rows->items[i];
        if (strcmp(r->kind, kind) != 0)
            continue;
        /* a copy held to nothing (no peak known, no topology) passes no check */
        if (held_only && (!sc_present(r->expected_GBps) || r->expected_GBps <= 0))
            continue;
        if (rows->items[i].level != SC_LEVEL_PASS)
            return;
        n++;
    }
    char name[192];
    snprintf(name, sizeof(name), "%s (%d)", words, n);
    if (n > 0)
        sc_verdict_add(checks, name, "count", n, n, 0, true, "sysfs");
}

/* What the topology declares a copy of kind moves (GB/s), or absent: its PCIe link's share, its
 * memory's, NVLink's through NVSwitches (every pair at a GPU's whole rate; both ways twice). */
static double node__declared(const sc_topology_t *t, const char *kind)
{
    if (t == NULL)
        return SC_ABSENT;
    if (strncmp(kind, "h2d", 3) == 0 || strncmp(kind, "d2h", 3) == 0)
        return t->pcie_gen > 0 && t->pcie_lanes > 0 && strstr(kind, "-all") == NULL
                   ? sc_topology_pcie_raw_GBps((int)t->pcie_gen, (int)t->pcie_lanes) *
                         SC_PCIE_COPY_SHARE
                   : SC_ABSENT;
    if (strcmp(kind, "nic") == 0)
        return t->nic_gbps > 0 ? t->nic_gbps / 8.0 * t->nic_efficiency : SC_ABSENT;
    if (strcmp(kind, "hbm") == 0)
        return t->gpu_memory_GBps > 0 ? t->gpu_memory_GBps * SC_HBM_COPY_SHARE : SC_ABSENT;
    /* a full NVLink mesh gives every pair the same links (links / (G - 1)); a partial one (DGX-1's
     * hybrid cube-mesh: 6 links among 8 GPUs) differs by pair, and their median holds them */
    bool full_mesh = t->fabric == SC_FABRIC_nvlink_mesh && t->gpus_per_node > 1 &&
                     t->links_per_gpu > 0 && t->links_per_gpu % (t->gpus_per_node - 1) == 0;
    if (t->fabric != SC_FABRIC_nvswitch && !full_mesh)
        return SC_ABSENT;
    double one = full_mesh ? sc_topology_ring_GBps(t, 2) /* the pair's own links */
                           : sc_topology_line_GBps(t) * sc_topology_link_share(t);
    return strcmp(kind, "peer-both") == 0 ? 2 * one : one;
}

/* A copy row: held to the topology's figure where it declares one, else to its own expectation
 * (a pair, to the host's pairs' median); a check of its own where it falls short. */
static void node__copy_row(const sc_node_rows_t *rows, const sc_topology_t *t, sc_node_row_t *r,
                           sc_checks_t *checks)
{
    int k = node__copy_kind_of(r->kind);
    double declared = node__declared(t, r->kind);
    if (sc_present(declared))
        r->expected_GBps = declared;
    else if (node__copy_kinds[k].peers)
        r->expected_GBps = node__median(rows, r->host, r->kind);
    r->level = SC_LEVEL_PASS;
    if (!sc_present(r->measured_GBps) || !sc_present(r->expected_GBps) || r->expected_GBps <= 0)
        return;
    double ratio = r->measured_GBps / r->expected_GBps;
    if (ratio < SC_NODE_COPY_WARN)
        node__check(r, node__copy_kinds[k].words, sc_present(declared) ? "the topology" : NULL,
                    checks, &r->level);
}

/* A transfer through a NIC: where NCCL put it and GPUDirect RDMA (its level as found), then its
 * rate, like a copy's; the row keeps the worse. */
static void node__nic_row(const sc_node_rows_t *rows, const sc_topology_t *t, sc_node_row_t *r,
                          sc_checks_t *checks)
{
    sc_level_t placed = r->level;
    if (placed != SC_LEVEL_PASS) {
        char name[192];
        snprintf(name, sizeof(name),
                 "NCCL on its GPU's nearest NIC with GPUDirect RDMA: %.60s on "
                 "%.40s (%.100s)",
                 r->what, r->host, r->detail);
        node__placement(name, placed, checks);
    }
    node__copy_row(rows, t, r, checks);
    if (placed > r->level)
        r->level = placed;
}

void sc_verdict_node(sc_node_rows_t *rows, const sc_topology_t *t, sc_checks_t *checks)
{
    for (size_t i = 0; i < rows->n; i++) {
        sc_node_row_t *r = &rows->items[i];
        if (strcmp(r->kind, "link") == 0) {
            r->level = r->measured_GBps < r->expected_GBps ? SC_LEVEL_FAIL : SC_LEVEL_PASS;
            if (r->level != SC_LEVEL_PASS)
                node__check(r, "PCIe link at its best", NULL, checks, &r->level);
        } else if (strcmp(r->kind, "gpu-nic") == 0 && r->level != SC_LEVEL_PASS) {
            node__check(r, "a NIC under the GPU's host bridge", NULL, checks, &r->level);
        } else if (strcmp(r->kind, "gpudirect") == 0 && r->level != SC_LEVEL_PASS) {
            node__check(r, "GPUDirect RDMA to its NIC", NULL, checks, &r->level);
        } else if (strcmp(r->kind, "rank") == 0 && r->level != SC_LEVEL_PASS) {
            node__check(r, "rank near its GPU and NIC", NULL, checks, &r->level);
        } else if (strcmp(r->kind, "nic") == 0) {
            node__nic_row(rows, t, r, checks);
        } else if (node__copy_kind_of(r->kind) >= 0) {
            node__copy_row(rows, t, r, checks);
        } else if (strcmp(r->kind, "memory") == 0) {
            int nodes = 0;
            double best = node__best_memory(rows, r->host, &nodes);
            r->expected_GBps = nodes > 1 ? best : SC_ABSENT;
            if (nodes > 1)
                node__check(r, "NUMA node's memory as fast as the host's best", NULL, checks,
                            &r->level);
        }
    }
    node__all_passed(rows, "link", "every PCIe link at its best", false, checks);
    node__all_passed(rows, "gpu-nic", "every GPU with a NIC under its host bridge", false, checks);
    node__all_passed(rows, "gpudirect", "GPUDirect RDMA possible between every GPU and its NIC",
                     false, checks);
    node__all_passed(rows, "rank", "every rank on its GPU's NUMA node and nearest NIC", false,
                     checks);
    for (size_t k = 0; k < sizeof(node__copy_kinds) / sizeof(node__copy_kinds[0]); k++)
        node__all_passed(rows, node__copy_kinds[k].kind, node__copy_kinds[k].all, true, checks);
}
