/* sc_gpudirect.h - whether GPUDirect RDMA can work on this host, as sysfs and procfs show it
 * (SCALECHECK_SYS_ROOT in place of /sys where set, its sibling proc/ in place of /proc): a NIC
 * reads and writes GPU memory only where the NVIDIA peer memory module is loaded
 * (nvidia_peermem, or the older nv_peer_mem) or the kernel and the driver share DMA-BUFs (the
 * open kernel module on Linux 5.12 or later); where no PCIe bridge between them redirects
 * peer-to-peer requests to the root complex (ACS P2P Request Redirect, which NVIDIA's and NCCL's
 * documents say to turn off); and best where the IOMMU passes the devices' addresses through. */
#ifndef SC_GPUDIRECT_H
#define SC_GPUDIRECT_H

#include <stdbool.h>
#include <stddef.h>

#include "detect/sc_pci_tree.h"

typedef struct {
    char peermem[32]; /* the peer memory module loaded ("nvidia_peermem", AMD: "ib_peer_mem") */
    bool dmabuf;      /* NVIDIA's open kernel module, or AMD's amdgpu, on Linux >= 5.12: DMA-BUF */
    char driver[96];  /* the NVIDIA driver as /proc says it, AMD's "amdgpu" loaded ("" none) */
} sc_gdr_host_t;

void sc_gdr_host_read(const sc_pci_tree_t *t, sc_gdr_host_t *h);
/* A bridge above d (below its host bridge) with ACS P2P Request Redirect on, into bridge: 1;
 * 0 none; -1 unknown (a bridge's extended configuration space could not be read: not root). */
int sc_gdr_acs_redirect(const sc_pci_tree_t *t, const sc_pci_device_t *d, char *bridge, size_t len);
/* d's IOMMU domain type: "identity" (passed through), "DMA" or "DMA-FQ" (translated); "" none. */
void sc_gdr_iommu(const sc_pci_tree_t *t, const sc_pci_device_t *d, char *out, size_t len);

#endif
