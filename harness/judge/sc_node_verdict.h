/* sc_node_verdict.h - inside the node, judged (scalecheck node): PCIe links at their best, a NIC
 * near each GPU, each rank on its GPU's NUMA node and on a NIC as near as the nearest, and a
 * host's NUMA nodes' memory alike. */
#ifndef SC_NODE_VERDICT_H
#define SC_NODE_VERDICT_H

#include <stdbool.h>

#include "record/sc_record.h"
#include "topology/sc_topology.h"

/* A GPU's nearest NIC (its distance class, sc_pci_distance_t): a WARN where it crosses host
 * bridges (NODE, SYS) - GPUDirect traffic then goes through the CPU. */
sc_level_t sc_node_nic_level(int nearest_class);

/* A rank's placement: its CPUs' NUMA node (-1: spread over `spans` nodes, or not known), its
 * GPU's, and the distance classes (sc_pci_distance_t; -1: no NIC named or none) from its GPU to
 * the NIC it uses and to the nearest one. FAIL on another node than its GPU or on a farther NIC
 * than the nearest; WARN spread over several nodes (not bound). */
sc_level_t sc_node_rank_level(int cpu_numa, int spans, int gpu_numa, int nic_class,
                              int nearest_class);

/* GPUDirect RDMA between a GPU and its nearest RDMA NIC: FAIL where the NIC cannot reach GPU
 * memory (no peer memory module, no DMA-BUF) or a bridge on their path redirects peer-to-peer
 * requests to the root complex (ACS); WARN where the IOMMU translates their addresses (NCCL's
 * and NVIDIA's guides: iommu=pt, or off). */
sc_level_t sc_node_gpudirect_level(bool possible, bool acs_redirect, bool iommu_translates);

/* A rank's transfers through the network as NCCL made them: WARN where its log named no NIC (the
 * transfer did not go through one); FAIL where NCCL chose a NIC farther from the GPU than the
 * nearest (distance classes as above, -1: not known), or where an RDMA NIC carried a connection
 * without GPUDirect RDMA (gdr_sends of sends: staged through host memory). */
sc_level_t sc_node_nic_use_level(bool logged, int nic_class, int nearest_class, bool rdma,
                                 int gdr_sends, int sends);

/* The rows' levels and the checks (t: a declared topology, NULL none - where it declares the GPUs'
 * PCIe link, their memory's rate or NVLink through NVSwitches, the copies are held to those): every
 * link not at its best, every GPU without a NIC on its NUMA node's side (a WARN), every rank not
 * where it belongs, and each host's NUMA nodes' memory against its best node's (WARN under 0.8 of
 * it, FAIL under half), each named; a PASS check for each kind where every row passed. */
void sc_verdict_node(sc_node_rows_t *rows, const sc_topology_t *t, sc_checks_t *checks);

#endif
