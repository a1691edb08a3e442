/* sc_detect.h - what this host really has: CPUs and NUMA (hwloc), GPUs and their NVLinks
 * (NVML, loaded at run time), NICs (sysfs: InfiniBand rate/state/link layer, Ethernet speed),
 * and MPI's view of the hosts; written as a topology file, and compared with a declared
 * topology as findings with a severity. */
#ifndef SC_DETECT_H
#define SC_DETECT_H

#include "record/sc_record.h"
#include "rte/sc_rte.h"
#include "topology/sc_topology.h"

typedef struct {
    char host[SC_HOST_MAX];
    int sockets, cores, numa_nodes;
    int gpus;
    char gpu[96];
    char library[8]; /* the collective library its GPUs take: "nccl" (NVML's), "rccl" (AMD's:
                        the monitor's amdgpu sysfs), "mpi" (none) */
    int nvlinks_up;  /* per GPU, the least of them; -1: no NVML */
    double gpu_memory_GBps, gpu_memory_gb; /* GPU 0's, by NVML (sc_gpu_config_memory_GBps); 0 */
    int pcie_gen;      /* GPU 0's top PCIe generation with this host; 0: not reported */
    int nics;          /* InfiniBand ports up, else Ethernet links up (not lo/virtual) */
    double nic_gbps;   /* the slowest of those counted */
    char nic_kind[16]; /* "infiniband", "roce", "ethernet", "none" */
    char gpu_note[160];
} sc_detected_t;

/* Detects this host. Never fails: what cannot be read stays 0 with a note. */
void sc_detect_host(sc_detected_t *d, const char *host);

/* Every host's detection on rank 0 (hosts[] in host order, n = rte->nhosts); collective. */
sc_status_t sc_detect_all(const sc_rte_t *rte, sc_detected_t **hosts, sc_err_t *err);

/* The detected hosts as a topology file (YAML text) at path. */
sc_status_t sc_detect_write_yaml(const char *path, const sc_detected_t *hosts, int nhosts,
                                 int ranks_per_host, sc_err_t *err);

/* Declared vs detected: appends the findings (severity, what, declared, detected, host) to list;
 * `actual` = the declared topology adjusted to what is there (GPU and NIC counts and rates). */
void sc_detect_compare(const sc_topology_t *declared, const sc_detected_t *hosts, int nhosts,
                       int ranks_per_host, sc_topology_t *actual, sc_findings_t *list);

#endif
