/* sc_drive_node_net.c - node's transfers through the NICs (sc_drive_node_net.h): GPU memory
 * through each rank's NIC and back, as `ib_write_bw --use_cuda` measures GPUDirect RDMA, with
 * NCCL carrying it. NCCL takes the network path between two ranks of one host only where its
 * peer-to-peer and shared-memory transports are off (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE: NCCL's
 * environment documentation); which NIC it then chose and whether the NIC read the GPU's memory
 * itself (GPUDirect RDMA) is what its INFO log says (ingest/sc_nccl_log.h). */
#include "drive/sc_drive_node_net.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm/sc_comm_ops.h"
#include "ingest/sc_nccl_log.h"
#include "judge/sc_node_verdict.h"
#include "util/sc_defaults.h"

#define NODE_NET__LOG_MAX (4u << 20) /* NCCL's log of one process: its first 4 MiB are read */
#define NODE_NET__BATCHES 3          /* batches of back-to-back exchanges, the best kept */

/* This process's NCCL log: "%p" in place of the pid for NCCL_DEBUG_FILE, else the pid. */
static void node_net__log_path(char *out, size_t len, const char *pid)
{
    const char *dir = getenv("TMPDIR");
    snprintf(out, len, "%s/scalecheck-nccl-%s.log", dir != NULL && dir[0] ? dir : "/tmp", pid);
}

void sc_node_net_prepare(const sc_drive_node_opts_t *o, const sc_rte_t *rte)
{
    if (o->no_nics || rte->size < 2)
        return; /* one rank has no peer to send to: NCCL left as configured */
    char path[PATH_MAX];
    node_net__log_path(path, sizeof(path), "%p");
    setenv("NCCL_P2P_DISABLE", "1", 1);
    setenv("NCCL_SHM_DISABLE", "1", 1);
    setenv("NCCL_DEBUG", "INFO", 1);
    setenv("NCCL_DEBUG_SUBSYS", "INIT,NET", 1);
    setenv("NCCL_DEBUG_FILE", path, 1);
}

bool sc_node_net_wanted(const sc_drive_node_opts_t *o, const sc_comm_t *world)
{
    return !o->no_nics && world != NULL && world->size >= 2 && sc_comm_on_gpu(world) &&
           sc_comm_writes_nccl_log(world) && sc_comm_has_timer(world);
}

/* The rank of host h whose index among that host's ranks is local; -1: none. */
static int node_net__rank_at(const sc_rte_t *rte, int h, int local)
{
    for (int r = 0, seen = 0; r < rte->size; r++)
        if (rte->host_index[r] == h && seen++ == local)
            return r;
    return -1;
}

/* The rank this one sends to and the one it hears from: the same GPU of the next host and of
 * the one before (a rail), or on one host the next rank and the one before. */
static void node_net__peers(const sc_rte_t *rte, int *to, int *from)
{
    int n = rte->nhosts, h = rte->host_index[rte->rank];
    if (n <= 1) {
        *to = (rte->rank + 1) % rte->size;
        *from = (rte->rank + rte->size - 1) % rte->size;
        return;
    }
    *to = node_net__rank_at(rte, (h + 1) % n, rte->local_rank);
    *from = node_net__rank_at(rte, (h + n - 1) % n, rte->local_rank);
}

/* count exchanges back to back, timed on the device between two marks (us). */
static sc_status_t node_net__batch(sc_comm_t *world, void *send, void *recv, size_t bytes, int to,
                                   int from, int count, double *us, sc_err_t *err)
{
    bool done = false;
    sc_status_t status = sc_comm_timer_mark(world, 0, err);
    for (int k = 0; k < count && status == SC_OK; k++) {
        if (to >= 0)
            status = sc_comm_isend(world, send, bytes, SC_DTYPE_uint8, to, err);
        if (status == SC_OK && from >= 0)
            status = sc_comm_irecv(world, recv, bytes, SC_DTYPE_uint8, from, err);
        if (status == SC_OK) /* issued now: the next follows it on the stream */
            status = sc_comm_itest(world, &done, err);
    }
    if (status == SC_OK)
        status = sc_comm_timer_mark(world, 1, err);
    if (status == SC_OK)
        status = sc_comm_iwait(world, err);
    return status == SC_OK ? sc_comm_timer_interval(world, 1, us, err) : status;
}

/* One untimed exchange, then the best of three batches of o->trials: GB/s each way. */
static sc_status_t node_net__transfer(const sc_drive_node_opts_t *o, sc_comm_t *world, int to,
                                      int from, double *GBps, sc_err_t *err)
{
    size_t bytes = (size_t)o->copy_bytes;
    void *send = sc_comm_alloc(world, bytes), *recv = sc_comm_alloc(world, bytes);
    sc_status_t status = send && recv ? sc_comm_timer_reserve(world, 2, err)
                                      : sc_err_set(err, SC_ERR_NOMEM,
                                                   "rank %d (host %s): no GPU memory for the NIC "
                                                   "transfers (2 x %zu bytes)",
                                                   world->rank, world->rte->host, bytes);
    double best = 0, us = 0;
    if (status == SC_OK)
        status = node_net__batch(world, send, recv, bytes, to, from, 1, &us, err);
    for (int i = 0; i < NODE_NET__BATCHES && status == SC_OK; i++) {
        status = node_net__batch(world, send, recv, bytes, to, from, o->trials, &us, err);
        if (us > 0 && (best == 0 || us < best))
            best = us;
    }
    sc_comm_free(world, send);
    sc_comm_free(world, recv);
    *GBps = best > 0 ? (double)bytes * o->trials / best / 1e3 : SC_ABSENT;
    return status;
}

/* This process's NCCL log, as NCCL names it. */
static void node_net__my_log(char *path, size_t len)
{
    char pid[24];
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    node_net__log_path(path, len, pid);
}

void sc_node_net_finish(void)
{
    char path[PATH_MAX];
    node_net__my_log(path, sizeof(path));
    unlink(path); /* NCCL writes on to the open file until the process ends: nothing is kept */
}

/* What NCCL's log of this process says of its sends to `to`. */
static bool node_net__used(int rank, int to, sc_nccl_net_use_t *use)
{
    char path[PATH_MAX];
    node_net__my_log(path, sizeof(path));
    FILE *f = fopen(path, "re");
    char *text = f != NULL ? malloc(NODE_NET__LOG_MAX + 1) : NULL;
    size_t n = text != NULL ? fread(text, 1, NODE_NET__LOG_MAX, f) : 0;
    if (f != NULL)
        fclose(f);
    bool found = false;
    if (text != NULL) {
        text[n] = '\0';
        found = sc_nccl_log_net(text, rank, to, use);
    }
    free(text);
    return found;
}

/* The row's words and level from NCCL's choice against the tree. */
static void node_net__describe(const sc_pci_tree_t *t, const sc_rte_t *rte, int to, int from,
                               const sc_nccl_net_use_t *use, bool logged, sc_node_row_t *r)
{
    const sc_pci_device_t *gpu = sc_pci_find(t, SC_PCI_GPU, rte->local_rank);
    const sc_pci_device_t *nic = logged ? sc_pci_find_nic(t, use->nic) : NULL;
    const sc_pci_device_t *nearest = gpu ? sc_pci_nearest_nic(t, gpu) : NULL;
    int nic_class = gpu && nic ? (int)sc_pci_distance(gpu, nic) : -1;
    int nearest_class = gpu && nearest ? (int)sc_pci_distance(gpu, nearest) : -1;
    /* GPUDirect RDMA is due through an RDMA NIC, and where NCCL went through another with one
     * beside the GPU (sockets: its InfiniBand plugin did not load) */
    bool rdma = (nic != NULL && nic->rdma) || (nearest != NULL && nearest->rdma) ||
                (logged && strcmp(use->net, "IB") == 0);
    /* both peers named: a slow NIC slows its own row and its two neighbours' */
    snprintf(r->what, sizeof(r->what), "rank %d %s to rank %d, from %d", rte->rank,
             gpu ? gpu->name : "GPU", to, from);
    if (!logged) {
        snprintf(r->detail, sizeof(r->detail), "NCCL's log named no NIC (not through the network)");
    } else {
        char near[64] = "";
        if (nearest != NULL && nic != nearest)
            snprintf(near, sizeof(near), ", nearest %s %s", nearest->name,
                     sc_pci_distance_name((sc_pci_distance_t)nearest_class));
        char rail[80] = ""; /* across hosts: whose rail */
        if (rte->nhosts > 1)
            snprintf(rail, sizeof(rail), "rail to %.24s, from %.24s: ", rte->hosts[to],
                     from >= 0 ? rte->hosts[from] : "none");
        snprintf(r->detail, sizeof(r->detail), "%sNCCL via NET/%s on %s%s%s%s, GPUDirect RDMA %s",
                 rail, use->net, use->nic, nic ? " " : "",
                 nic ? sc_pci_distance_name((sc_pci_distance_t)nic_class) : "", near,
                 use->gdr_sends == use->sends ? "on"
                 : use->gdr_sends             ? "on some channels"
                                              : "off");
    }
    r->numa = gpu ? gpu->numa : -1;
    r->expected_GBps =
        nic != NULL && nic->rate_gbps > 0 ? nic->rate_gbps / 8.0 * SC_NIC_EFFICIENCY : SC_ABSENT;
    r->level = sc_node_nic_use_level(logged, nic_class, nearest_class, rdma,
                                     logged ? use->gdr_sends : 0, logged ? use->sends : 0);
}

sc_status_t sc_node_net_measure(const sc_drive_node_opts_t *o, const sc_rte_t *rte,
                                sc_comm_t *world, const sc_pci_tree_t *t, sc_node_row_t *row,
                                bool *made, sc_err_t *err)
{
    int to = -1, from = -1;
    node_net__peers(rte, &to, &from);
    double GBps = SC_ABSENT;
    sc_status_t status = node_net__transfer(o, world, to, from, &GBps, err);
    *made = status == SC_OK && to >= 0 && row != NULL;
    if (!*made)
        return status;
    sc_nccl_net_use_t use;
    bool logged = node_net__used(world->rank, to, &use);
    node_net__describe(t, rte, to, from, &use, logged, row);
    row->measured_GBps = GBps;
    return SC_OK;
}
