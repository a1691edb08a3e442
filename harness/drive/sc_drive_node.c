/* sc_drive_node.c - `scalecheck node`, driven (sc_drive_node.h). Each host's first rank reads
 * the PCIe tree and measures its NUMA nodes' memory; every rank says where it runs and which NIC
 * it uses; rank 0 gathers the rows, judges them and writes the documents. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "comm/sc_comm_ops.h"
#include "detect/sc_gpudirect.h"
#include "detect/sc_membw.h"
#include "detect/sc_pci_tree.h"
#include "drive/sc_drive_end.h"
#include "drive/sc_drive_node.h"
#include "drive/sc_drive_node_net.h"
#include "judge/sc_node_verdict.h"
#include "judge/sc_verdict.h"
#include "report/sc_json_out.h"
#include "report/sc_verdict_render.h"
#include "session/sc_session.h"
#include "topology/sc_topology.h"
#include "util/sc_defaults.h"

/* rows a host gives at most: its devices' links, GPUs' NICs, nodes; 16 GPUs' copies (each GPU
 * to and from the host 4 ways, its memory, 240 ordered pairs 3 ways, 120 both ways) */
#define NODE__ROWS   1200
#define NODE__COPIES 1024

typedef struct {
    sc_node_row_t *items;
    int n, cap;
} node__rows_t;

static sc_node_row_t *node__row(node__rows_t *rows, const sc_rte_t *rte, const char *kind)
{
    if (rows->n == rows->cap)
        return NULL;
    sc_node_row_t *r = &rows->items[rows->n++];
    memset(r, 0, sizeof(*r));
    snprintf(r->host, sizeof(r->host), "%s", rte->host);
    snprintf(r->kind, sizeof(r->kind), "%s", kind);
    r->numa = -1;
    r->measured_GBps = r->expected_GBps = SC_ABSENT;
    return r;
}

/* "Gen5 x16" */
static void node__link_words(int gen, int width, char *out, size_t len)
{
    snprintf(out, len, "Gen%d x%d", gen, width);
}

/* Every GPU's and NIC's link now against its best. */
static void node__links(const sc_pci_tree_t *t, const sc_rte_t *rte, node__rows_t *rows)
{
    for (int i = 0; i < t->n; i++) {
        const sc_pci_device_t *d = &t->devices[i];
        if (d->gen <= 0 || d->width <= 0)
            continue;
        sc_node_row_t *r = node__row(rows, rte, "link");
        if (r == NULL)
            return;
        char now[32], best[32];
        node__link_words(d->gen, d->width, now, sizeof(now));
        node__link_words(d->max_gen > 0 ? d->max_gen : d->gen,
                         d->max_width > 0 ? d->max_width : d->width, best, sizeof(best));
        snprintf(r->what, sizeof(r->what), "%s %s", d->name, d->bus);
        snprintf(r->detail, sizeof(r->detail), "%s of %s", now, best);
        r->numa = d->numa;
        r->measured_GBps = sc_topology_pcie_raw_GBps(d->gen, d->width);
        r->expected_GBps = sc_topology_pcie_raw_GBps(d->max_gen > 0 ? d->max_gen : d->gen,
                                                     d->max_width > 0 ? d->max_width : d->width);
    }
}

/* The NIC nearest each GPU, and how near. */
static void node__gpu_nics(const sc_pci_tree_t *t, const sc_rte_t *rte, node__rows_t *rows)
{
    for (int g = 0; g < t->gpus; g++) {
        const sc_pci_device_t *gpu = sc_pci_find(t, SC_PCI_GPU, g);
        const sc_pci_device_t *nic = gpu ? sc_pci_nearest_nic(t, gpu) : NULL;
        sc_node_row_t *r = nic ? node__row(rows, rte, "gpu-nic") : NULL;
        if (r == NULL)
            continue;
        sc_pci_distance_t d = sc_pci_distance(gpu, nic);
        snprintf(r->what, sizeof(r->what), "%s %s", gpu->name, gpu->bus);
        snprintf(r->detail, sizeof(r->detail), "nearest NIC %s %s (%s)", nic->name, nic->bus,
                 sc_pci_distance_name(d));
        r->numa = gpu->numa;
        r->level = sc_node_nic_level((int)d);
    }
}

/* Whether each GPU's nearest RDMA NIC can read and write its memory (GPUDirect RDMA): the peer
 * memory module or DMA-BUF, no bridge redirecting peer-to-peer requests on either's path, and
 * the IOMMU's mode. A host without RDMA NICs has no such rows. */
static void node__gpudirect(const sc_pci_tree_t *t, const sc_rte_t *rte, node__rows_t *rows)
{
    sc_gdr_host_t host;
    sc_gdr_host_read(t, &host);
    for (int g = 0; g < t->gpus; g++) {
        const sc_pci_device_t *gpu = sc_pci_find(t, SC_PCI_GPU, g);
        const sc_pci_device_t *nic = gpu ? sc_pci_nearest_nic(t, gpu) : NULL;
        sc_node_row_t *r = nic != NULL && nic->rdma ? node__row(rows, rte, "gpudirect") : NULL;
        if (r == NULL)
            continue;
        char bridge[SC_PCI_BUS] = "", iommu[24] = "";
        int acs = sc_gdr_acs_redirect(t, gpu, bridge, sizeof(bridge));
        if (acs != 1)
            acs = sc_gdr_acs_redirect(t, nic, bridge, sizeof(bridge)) == 1 ? 1 : acs;
        sc_gdr_iommu(t, gpu, iommu, sizeof(iommu));
        snprintf(r->what, sizeof(r->what), "%s %s", gpu->name, gpu->bus);
        snprintf(r->detail, sizeof(r->detail), "%s %s: %s, ACS redirect %s%s, IOMMU %s", nic->name,
                 sc_pci_distance_name(sc_pci_distance(gpu, nic)),
                 host.peermem[0] ? host.peermem
                 : host.dmabuf   ? "DMA-BUF"
                                 : "no peer memory module nor DMA-BUF",
                 acs == 1   ? "on at "
                 : acs == 0 ? "off"
                            : "unknown (not root)",
                 bridge, iommu[0] ? iommu : "off");
        r->numa = gpu->numa;
        r->level = sc_node_gpudirect_level(host.peermem[0] != '\0' || host.dmabuf, acs == 1,
                                           iommu[0] != '\0' && strcmp(iommu, "identity") != 0);
    }
}

/* Each NUMA node's memory copied by its own cores. */
static void node__memory(const sc_drive_node_opts_t *o, const sc_rte_t *rte, node__rows_t *rows)
{
    sc_membw_t m[SC_PCI_NUMA];
    char why[128] = "";
    int n = sc_membw_per_node((size_t)o->mem_bytes, o->trials, o->mem_threads, m, SC_PCI_NUMA, why,
                              sizeof(why));
    for (int i = 0; i < n; i++) {
        sc_node_row_t *r = node__row(rows, rte, "memory");
        if (r == NULL)
            return;
        snprintf(r->what, sizeof(r->what), "NUMA node %d", m[i].node);
        snprintf(r->detail, sizeof(r->detail), "copied by %d core%s of CPUs %.100s", m[i].threads,
                 m[i].threads == 1 ? "" : "s", m[i].cpus);
        r->numa = m[i].node;
        r->measured_GBps = m[i].GBps;
    }
}

/* The tree's GPU for CUDA device d at bus: the one at that bus id, else the d-th in bus order
 * (CUDA_DEVICE_ORDER=PCI_BUS_ID's order). */
static const sc_pci_device_t *node__tree_gpu(const sc_pci_tree_t *t, int d, const char *bus)
{
    for (int i = 0; i < t->n; i++)
        if (t->devices[i].kind == SC_PCI_GPU && strcasecmp(t->devices[i].bus, bus) == 0)
            return &t->devices[i];
    return sc_pci_find(t, SC_PCI_GPU, d);
}

/* The tree's GPUs under g's root port, g counted: they share its link to the CPU. */
static int node__sharing_port(const sc_pci_tree_t *t, const sc_pci_device_t *g)
{
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        const sc_pci_device_t *o = &t->devices[i];
        n += o->kind == SC_PCI_GPU && o->nbridges > 0 && g->nbridges > 0 &&
             strcmp(o->host_bridge, g->host_bridge) == 0 &&
             strcmp(o->bridges[0], g->bridges[0]) == 0;
    }
    return n > 0 ? n : 1;
}

/* What one copy row is held to: PCIe, the link's best rate's healthy share (a fair share of
 * the root port's when every GPU copies at once); a device's memory, its peak's; between
 * devices, the host's pairs' median (sc_verdict_node). */
static double node__copy_expected(const sc_pci_tree_t *t, const sc_copy_row_t *c)
{
    if (c->kind == SC_COPY_HBM)
        return c->peak_GBps > 0 ? c->peak_GBps * SC_HBM_COPY_SHARE : SC_ABSENT;
    if (c->kind == SC_COPY_PEER)
        return SC_ABSENT;
    int d = c->src >= 0 ? c->src : c->dst;
    const sc_pci_device_t *g = node__tree_gpu(t, d, c->src >= 0 ? c->src_bus : c->dst_bus);
    if (g == NULL || g->gen <= 0 || g->width <= 0)
        return SC_ABSENT;
    double raw = sc_topology_pcie_raw_GBps(g->max_gen > 0 ? g->max_gen : g->gen,
                                           g->max_width > 0 ? g->max_width : g->width);
    return raw * SC_PCIE_COPY_SHARE / (c->together ? node__sharing_port(t, g) : 1);
}

static const char *node__copy_kind(const sc_copy_row_t *c, int numa)
{
    switch (c->kind) {
    case SC_COPY_H2D:
        return numa >= 0 ? "h2d-numa" : c->together ? "h2d-all" : "h2d";
    case SC_COPY_D2H:
        return numa >= 0 ? "d2h-numa" : c->together ? "d2h-all" : "d2h";
    case SC_COPY_HBM:
        return "hbm";
    default:
        return c->by == SC_COPY_BY_SM_READ    ? "peer-sm-read"
               : c->by == SC_COPY_BY_SM_WRITE ? "peer-sm-write"
               : c->together                  ? "peer-both"
                                              : "peer";
    }
}

static void node__copy_words(const sc_copy_row_t *c, int numa, int gpu_numa, char *what,
                             size_t wlen, char *detail, size_t dlen)
{
    int d = c->src >= 0 ? c->src : c->dst;
    const char *bus = c->src >= 0 ? c->src_bus : c->dst_bus;
    switch (c->kind) {
    case SC_COPY_H2D:
    case SC_COPY_D2H:
        snprintf(what, wlen, "GPU %d %s", d, bus);
        if (numa >= 0)
            snprintf(detail, dlen, "pinned on NUMA node %d (%s) %s the GPU", numa,
                     gpu_numa < 0       ? "the GPU's not known"
                     : gpu_numa == numa ? "the GPU's"
                                        : "far",
                     c->kind == SC_COPY_H2D ? "to" : "from");
        else
            snprintf(detail, dlen, "pinned host memory %s the GPU, %s",
                     c->kind == SC_COPY_H2D ? "to" : "from",
                     c->together ? "every GPU at once" : "alone");
        break;
    case SC_COPY_HBM:
        snprintf(what, wlen, "GPU %d %s", d, bus);
        if (c->peak_GBps > 0)
            snprintf(detail, dlen, "a copy within its memory (read and written), peak %.0f GB/s",
                     c->peak_GBps);
        else /* the runtime reports no memory clock (ACL): the topology's, where one is given */
            snprintf(detail, dlen, "a copy within its memory (read and written), peak not known");
        break;
    default:
        snprintf(what, wlen, "GPU %d %s to GPU %d %s", c->src, c->src_bus, c->dst, c->dst_bus);
        if (c->by != SC_COPY_BY_CE)
            snprintf(detail, dlen, "GPU %d's SMs %s, one way, peer access",
                     c->by == SC_COPY_BY_SM_READ ? c->dst : c->src,
                     c->by == SC_COPY_BY_SM_READ ? "reading" : "writing");
        else
            snprintf(detail, dlen, "copy engine, %s, %s",
                     c->together ? "both ways at once" : "one way",
                     c->direct ? "peer access" : "no peer access: through the host");
        break;
    }
}

/* One pass of copies (numa -1: pinned memory where the policy puts it; else bound to that NUMA
 * node, host copies alone only) into rows. */
static sc_status_t node__copy_pass(const sc_drive_node_opts_t *o, sc_comm_t *world,
                                   const sc_pci_tree_t *t, const sc_rte_t *rte, int numa,
                                   sc_copy_row_t *copies, node__rows_t *rows, sc_err_t *err)
{
    int n = 0;
    sc_copy_opts_t co = {
        .bytes = (size_t)o->copy_bytes, .trials = o->trials, .pcie_alone = numa >= 0};
    sc_status_t status = sc_comm_copies(world, &co, copies, NODE__COPIES, &n, err);
    for (int i = 0; status == SC_OK && i < n; i++) {
        sc_node_row_t *r = node__row(rows, rte, node__copy_kind(&copies[i], numa));
        if (r == NULL)
            break;
        int d = copies[i].src >= 0 ? copies[i].src : copies[i].dst;
        const sc_pci_device_t *g =
            node__tree_gpu(t, d, copies[i].src >= 0 ? copies[i].src_bus : copies[i].dst_bus);
        node__copy_words(&copies[i], numa, g != NULL ? g->numa : -1, r->what, sizeof(r->what),
                         r->detail, sizeof(r->detail));
        r->numa = numa >= 0 ? numa : g != NULL ? g->numa : -1;
        r->measured_GBps = copies[i].GBps;
        r->expected_GBps = node__copy_expected(t, &copies[i]);
    }
    return status;
}

/* The copies inside the node - host to each GPU and back, each GPU's memory, every pair - on a
 * host's first rank, by the backend's devices (none on the host path: nothing said); where the
 * host has several NUMA nodes, host to each GPU and back again from each node's memory (a far
 * node's link between sockets, or a BIOS setting, halves them). */
static sc_status_t node__copies(const sc_drive_node_opts_t *o, sc_comm_t *world,
                                const sc_pci_tree_t *t, const sc_rte_t *rte, node__rows_t *rows,
                                sc_err_t *err)
{
    if (world == NULL || !sc_comm_has_copies(world) || o->no_copies)
        return SC_OK;
    sc_copy_row_t *copies = calloc(NODE__COPIES, sizeof(*copies));
    if (copies == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the copies",
                          rte->rank, rte->host);
    sc_status_t status = node__copy_pass(o, world, t, rte, -1, copies, rows, err);
    int nodes[SC_PCI_NUMA], nnodes = sc_membw_nodes(nodes, SC_PCI_NUMA);
    for (int i = 0; status == SC_OK && nnodes > 1 && i < nnodes; i++)
        if (sc_membw_bind_thread(nodes[i]))
            status = node__copy_pass(o, world, t, rte, nodes[i], copies, rows, err);
    if (nnodes > 1)
        sc_membw_bind_thread(-1);
    free(copies);
    return status;
}

/* The NIC a rank uses where its environment names one device (NCCL_IB_HCA, else
 * UCX_NET_DEVICES: a list, an exclusion or none leaves the choice to the library). */
static const char *node__named_nic(char *buf, size_t len)
{
    const char *vars[] = {"NCCL_IB_HCA", "UCX_NET_DEVICES"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        if (v == NULL || v[0] == '\0')
            continue;
        if (v[0] == '=')
            v++; /* NCCL's exact match */
        if (strchr(v, ',') != NULL || v[0] == '^' || strcmp(v, "all") == 0)
            return NULL;
        snprintf(buf, len, "%s", v);
        return buf;
    }
    return NULL;
}

/* This rank's CPUs as a cpulist ("0-3"). */
static void node__my_cpus(char *out, size_t len)
{
    cpu_set_t set;
    size_t used = 0;
    out[0] = '\0';
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE && used + 16 < len; c++) {
        if (!CPU_ISSET(c, &set) || (c > 0 && CPU_ISSET(c - 1, &set)))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        used += (size_t)snprintf(out + used, len - used, last > c ? "%s%d-%d" : "%s%d",
                                 used ? "," : "", c, last);
    }
}

/* This rank's place: its CPUs' NUMA node, its GPU's (the local rank's, in bus order), and the
 * NIC it uses against the one nearest its GPU. */
static void node__rank(const sc_pci_tree_t *t, const sc_rte_t *rte, node__rows_t *rows)
{
    sc_node_row_t *r = node__row(rows, rte, "rank");
    if (r == NULL)
        return;
    char cpus[128], nic_name[64];
    node__my_cpus(cpus, sizeof(cpus));
    int spans = 0, numa = sc_pci_numa_of_cpus(t, cpus, &spans);
    const sc_pci_device_t *gpu = sc_pci_find(t, SC_PCI_GPU, rte->local_rank);
    const char *named = node__named_nic(nic_name, sizeof(nic_name));
    const sc_pci_device_t *nic = named && gpu ? sc_pci_find_nic(t, named) : NULL;
    const sc_pci_device_t *nearest = gpu ? sc_pci_nearest_nic(t, gpu) : NULL;
    int nic_class = gpu && nic ? (int)sc_pci_distance(gpu, nic) : -1;
    int nearest_class = gpu && nearest ? (int)sc_pci_distance(gpu, nearest) : -1;
    snprintf(r->what, sizeof(r->what), "rank %d", rte->rank);
    size_t used =
        numa >= 0
            ? (size_t)snprintf(r->detail, sizeof(r->detail), "CPUs %.40s on node %d", cpus, numa)
            : (size_t)snprintf(r->detail, sizeof(r->detail), "CPUs %.40s on %d nodes", cpus, spans);
    if (gpu != NULL)
        used += (size_t)snprintf(r->detail + used, sizeof(r->detail) - used, "; %s on node %d",
                                 gpu->name, gpu->numa);
    if (nic != NULL && used < sizeof(r->detail))
        snprintf(r->detail + used, sizeof(r->detail) - used, "; NIC %s (%s, nearest %s %s)",
                 nic->name, sc_pci_distance_name((sc_pci_distance_t)nic_class), nearest->name,
                 sc_pci_distance_name((sc_pci_distance_t)nearest_class));
    else if (named != NULL && used < sizeof(r->detail))
        snprintf(r->detail + used, sizeof(r->detail) - used, "; NIC %s (not in the tree)", named);
    r->numa = numa;
    r->level = sc_node_rank_level(numa, spans, gpu ? gpu->numa : -1, nic_class, nearest_class);
}

/* Every rank's rows on rank 0 (a count each, then the rows). Collective. */
static sc_status_t node__gather(const sc_rte_t *rte, sc_session_t *ses, const node__rows_t *mine,
                                sc_node_rows_t *all, sc_err_t *err)
{
    int *counts = rte->rank == 0 ? calloc((size_t)rte->size, sizeof(int)) : NULL;
    int *displs = rte->rank == 0 ? calloc((size_t)rte->size, sizeof(int)) : NULL;
    int bytes = mine->n * (int)sizeof(sc_node_row_t), total = 0;
    if (rte->rank == 0 && (counts == NULL || displs == NULL)) { /* the others' wait is watched */
        free(counts);
        free(displs);
        return sc_err_set(err, SC_ERR_NOMEM, "rank 0 (host %s): no memory for %d ranks' counts",
                          rte->host, rte->size);
    }
    sc_watchdog_arm(ses->wd, "gathering the nodes' rows", NULL, 0);
    int rc = MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, rte->world);
    for (int r = 0; rc == MPI_SUCCESS && counts != NULL && displs != NULL && r < rte->size; r++) {
        displs[r] = total;
        total += counts[r];
    }
    sc_node_row_t *rows = rte->rank == 0 ? malloc((size_t)total + 1) : NULL;
    if (rc == MPI_SUCCESS && rte->rank == 0 &&
        rows == NULL) { /* nothing to gather into: said, and the job ends */
        sc_watchdog_disarm(ses->wd);
        free(rows);
        free(counts);
        free(displs);
        return sc_err_set(err, SC_ERR_NOMEM, "rank 0 (host %s): no memory for %d bytes of rows",
                          rte->host, total);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Gatherv(mine->items, bytes, MPI_BYTE, rows, counts, displs, MPI_BYTE, 0,
                         rte->world);
    sc_watchdog_disarm(ses->wd);
    for (int i = 0; rc == MPI_SUCCESS && rows != NULL && i < total / (int)sizeof(*rows); i++) {
        sc_node_row_t *r = SC_LIST_PUSH(all);
        if (r != NULL)
            *r = rows[i];
    }
    free(rows);
    free(counts);
    free(displs);
    return rc == MPI_SUCCESS ? SC_OK : sc_rte_mpi_error(rte, rc, "gathering the rows", err);
}

/* A host's passing rows of first's kind: how many of how many, and their figures' range. */
static int node__passing(const sc_node_rows_t *rows, const sc_node_row_t *first, int *total,
                         double *lo, double *hi)
{
    int n = 0;
    *total = 0;
    *lo = *hi = SC_ABSENT;
    for (size_t i = 0; i < rows->n; i++) {
        const sc_node_row_t *r = &rows->items[i];
        if (strcmp(r->host, first->host) != 0 || strcmp(r->kind, first->kind) != 0)
            continue;
        (*total)++;
        if (r->level != SC_LEVEL_PASS)
            continue;
        n++;
        if (sc_present(r->measured_GBps)) {
            *lo = sc_present(*lo) && *lo < r->measured_GBps ? *lo : r->measured_GBps;
            *hi = sc_present(*hi) && *hi > r->measured_GBps ? *hi : r->measured_GBps;
        }
    }
    return n;
}

static void node__print_row(sc_session_t *ses, const sc_node_row_t *r)
{
    char got[16] = "", want[16] = "";
    if (sc_present(r->measured_GBps))
        snprintf(got, sizeof(got), "%.2f", r->measured_GBps);
    if (sc_present(r->expected_GBps))
        snprintf(want, sizeof(want), "%.2f", r->expected_GBps);
    sc_results_printf(&ses->res, "  %-10.10s %-13s %-26.26s %-48.48s %13s %9s %s\n", r->host,
                      r->kind, r->what, r->detail, got, want, sc_level_name(r->level));
}

/* The rows on the terminal, a host's kind at a time: each row that did not pass, then one line
 * for those that did (how many, their range; node.csv and the report have every row). */
static void node__print(sc_session_t *ses, const sc_node_rows_t *rows)
{
    sc_results_printf(&ses->res, "# %-10s %-13s %-26s %-48s %13s %9s\n", "host", "kind", "what",
                      "detail", "GB/s", "expected");
    for (size_t i = 0; i < rows->n; i++) {
        const sc_node_row_t *r = &rows->items[i];
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(rows->items[j].host, r->host) != 0 ||
                    strcmp(rows->items[j].kind, r->kind) != 0;
        if (!first)
            continue;
        int total = 0;
        double lo, hi;
        int passed = node__passing(rows, r, &total, &lo, &hi);
        const sc_node_row_t *pass = NULL;
        for (size_t j = i; j < rows->n; j++) {
            const sc_node_row_t *o = &rows->items[j];
            if (strcmp(o->host, r->host) != 0 || strcmp(o->kind, r->kind) != 0)
                continue;
            if (o->level != SC_LEVEL_PASS || total == 1)
                node__print_row(ses, o);
            else if (pass == NULL)
                pass = o;
        }
        if (pass == NULL)
            continue;
        char what[32], got[32] = "";
        snprintf(what, sizeof(what), passed == total ? "(all %d)" : "(the other %d)", passed);
        if (sc_present(lo))
            snprintf(got, sizeof(got), "%.1f-%.1f", lo, hi);
        sc_results_printf(&ses->res, "  %-10.10s %-13s %-26s %-48.48s %13s %9s %s\n", pass->host,
                          pass->kind, what, pass->detail, got, "", sc_level_name(SC_LEVEL_PASS));
    }
}

/* node's own files (every ending): the rows as node.csv. */
static sc_status_t node__own_files(void *ctx, const sc_result_t *doc, sc_err_t *err)
{
    const sc_session_t *ses = ctx;
    char path[PATH_MAX];
    return sc_csv_write_records(sc_results_path(&ses->res, "node.csv", path, sizeof(path)),
                                doc->node.items, doc->node.n, sizeof(*doc->node.items),
                                sc_node_row_fields, err);
}

/* This rank's rows: its place, and on a host's first rank the tree and the memory. */
static sc_status_t node__mine(const sc_drive_node_opts_t *o, const sc_rte_t *rte, sc_comm_t *world,
                              const sc_pci_tree_t *t, node__rows_t *rows, sc_err_t *err)
{
    rows->items = calloc(NODE__ROWS, sizeof(*rows->items));
    rows->cap = NODE__ROWS;
    if (rows->items == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for its rows", rte->rank,
                          rte->host);
    sc_status_t status = SC_OK;
    if (rte->local_rank == 0) {
        node__links(t, rte, rows);
        node__gpu_nics(t, rte, rows);
        node__gpudirect(t, rte, rows);
        if (!o->no_memory)
            node__memory(o, rte, rows);
        status = node__copies(o, world, t, rte, rows, err);
    }
    node__rank(t, rte, rows);
    return status;
}

/* Every rank's GPU memory through its NIC (sc_drive_node_net.h), a row of its own. Collective. */
static sc_status_t node__nics(const sc_drive_node_opts_t *o, const sc_rte_t *rte, sc_session_t *ses,
                              const sc_pci_tree_t *t, node__rows_t *rows, sc_err_t *err)
{
    if (!sc_node_net_wanted(o, ses->world))
        return SC_OK;
    sc_node_row_t *r = node__row(rows, rte, "nic");
    bool made = false;
    sc_watchdog_arm(ses->wd, "GPU memory through each NIC", NULL, 0);
    sc_status_t status = sc_node_net_measure(o, rte, ses->world, t, r, &made, err);
    sc_watchdog_disarm(ses->wd);
    if (r != NULL && !made)
        rows->n--;
    return status;
}

int sc_drive_node(const sc_rte_t *rte, const sc_drive_node_opts_t *opts, int argc, char **argv)
{
    sc_drive_node_opts_t o = *opts;
    sc_err_t err;
    sc_err_clear(&err);
    sc_session_t ses = {0};
    sc_result_t doc = {0};
    sc_drive_ending_t ending = {
        .command = "node", .common = &o.common, .also = node__own_files, .ctx = &ses};
    sc_topology_t topo;
    sc_status_t status = o.topology != NULL ? sc_topology_load(o.topology, &topo, &err) : SC_OK;
    if (status == SC_OK)
        status = sc_drive_check_outputs(&o.common, &err);
    sc_pci_tree_t *tree = status == SC_OK ? malloc(sizeof(*tree)) : NULL;
    if (status == SC_OK && tree == NULL)
        status = sc_err_set(&err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the tree",
                            rte->rank, rte->host);
    if (status == SC_OK) {
        sc_pci_tree_read(tree);
        sc_node_net_prepare(&o, rte); /* before NCCL's first communicator */
        sc_session_opts_t so = {.common = &o.common, .default_name = "node"};
        status = sc_session_open(&ses, rte, &so, &err);
    }
    if (status == SC_OK) {
        sc_session_on_end(&ses, sc_drive_end_hook, &ending);
        if (rte->rank == 0) {
            sc_result_init(&doc, "node");
            sc_drive_doc_header(&doc, &ses, argc, argv);
            status = sc_drive_save_doc(&ses, &doc, "running", &err);
        }
    }
    node__rows_t mine = {0};
    if (status == SC_OK) { /* a copy that never ends is bounded too: one rank has no peer */
        sc_watchdog_arm(ses.wd, "measuring inside the node", NULL, 0);
        status = node__mine(&o, rte, ses.world, tree, &mine, &err);
        sc_watchdog_disarm(ses.wd);
    }
    /* the hosts' first ranks measure while the others sleep (a failure ends the job: the
     * others' wait is watched) */
    if (status == SC_OK) {
        sc_watchdog_arm(ses.wd, "waiting for every host's tree and memory", NULL, 0);
        status = sc_rte_quiet_barrier(rte, rte->world, &err);
        sc_watchdog_disarm(ses.wd);
    }
    if (status == SC_OK)
        status = node__nics(&o, rte, &ses, tree, &mine, &err);
    if (status == SC_OK)
        status = node__gather(rte, &ses, &mine, &doc.node, &err);
    free(mine.items);
    free(tree);
    sc_node_net_finish();
    int failed = 0;
    if (status == SC_OK && rte->rank == 0) {
        sc_verdict_node(&doc.node, o.topology != NULL ? &topo : NULL, &doc.checks);
        doc.judged = true;
        node__print(&ses, &doc.node);
        sc_verdict_print(stdout, ses.res.log, &doc.checks);
        failed = sc_verdict_exit(&doc);
        status = sc_drive_complete(&ses, &doc, &ending, &err);
    }
    if (status != SC_OK && rte->rank == 0 && doc.command[0] != '\0')
        sc_drive_save_failed(&ses, &doc, &err, &ending);
    int code = sc_session_finish(&ses, rte, "node", status, &err, failed);
    sc_result_free(&doc);
    sc_session_close(&ses);
    return code;
}
