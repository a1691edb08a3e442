/* sc_drive_node.h - `scalecheck node` driven from what was asked (sc_drive_node.c): inside each
 * node - its PCIe tree (every GPU's and NIC's link, the NIC nearest each GPU), each rank's place
 * (its CPUs' NUMA node against its GPU's, the NIC it uses against the nearest), the host
 * memory bandwidth of each NUMA node, and the copies between pinned host memory and each GPU,
 * within each GPU and between every pair of GPUs (the backend's devices), and with NCCL each
 * rank's GPU memory through its NIC to the same GPU of the next host (sc_drive_node_net.h) - judged
 * (judge/sc_node_verdict.h). */
#ifndef SC_DRIVE_NODE_H
#define SC_DRIVE_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "record/sc_common_opts.h"
#include "rte/sc_rte.h"

typedef struct {
    sc_common_opts_t common; /* the shared options: files, bounds */
    uint64_t mem_bytes;      /* a copier's buffer for host memory bandwidth */
    uint64_t copy_bytes;     /* each copy's inside the node (host to GPU, GPU to GPU) */
    int trials;              /* copies, the best kept */
    int mem_threads;         /* cores a NUMA node copies with, at most */
    bool no_memory;          /* no host memory bandwidth */
    bool no_copies;          /* no copies between host and GPUs, nor between GPUs */
    bool no_nics;            /* no transfers through the NICs (NCCL left as configured) */
    const char *topology;    /* what the copies are held to, NULL: sysfs, the device, the pairs */
    bool help;
} sc_drive_node_opts_t;

/* Every rank returns the exit code (sc_verdict_exit). Collective. */
int sc_drive_node(const sc_rte_t *rte, const sc_drive_node_opts_t *o, int argc, char **argv);

#endif
