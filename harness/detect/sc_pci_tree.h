/* sc_pci_tree.h - the PCIe tree of this host as sysfs shows it (SCALECHECK_SYS_ROOT in place of
 * /sys where set): every GPU (an NVIDIA display or 3D controller, an AMD Instinct GCD) and NIC (a
 * network or InfiniBand controller) with its NUMA node, its PCIe link now and at most, and the
 * bridges above it; the NUMA nodes' CPUs; and the distance classes `nvidia-smi topo -m` prints
 * between two devices - what says which NIC each GPU should use. */
#ifndef SC_PCI_TREE_H
#define SC_PCI_TREE_H

#include <stdbool.h>

#define SC_PCI_DEVICES 64 /* GPUs and NICs a host may have */
#define SC_PCI_DEPTH   12 /* bridges between a host bridge and a device */
#define SC_PCI_NUMA    16 /* NUMA nodes */
#define SC_PCI_BUS     16 /* "0000:18:00.0" */

typedef enum { SC_PCI_GPU, SC_PCI_NIC } sc_pci_kind_t;

typedef struct {
    sc_pci_kind_t kind;
    char bus[SC_PCI_BUS];
    char name[32];  /* a GPU's "GPU 3" (its place in bus order), a NIC's "mlx5_0" or "eth0" */
    char model[48]; /* a GPU's model where its PCI id says it ("AMD Instinct MI250X/MI250"), "" */
    int index;      /* among its kind, in bus order (nvidia-smi's, CUDA_DEVICE_ORDER=PCI_BUS_ID) */
    int numa;       /* -1: not reported */
    int gen, width; /* the link now (0: not reported) */
    int max_gen, max_width;
    char host_bridge[16];                   /* "pci0000:00" */
    char bridges[SC_PCI_DEPTH][SC_PCI_BUS]; /* from the host bridge down, nbridges of them */
    int nbridges;
    bool rdma;        /* a NIC with an InfiniBand (verbs) device: RDMA, GPUDirect's way */
    double rate_gbps; /* a NIC's port rate in Gb/s (its first port, or its interface's speed); 0:
                         not reported */
} sc_pci_device_t;

typedef struct {
    sc_pci_device_t devices[SC_PCI_DEVICES];
    int n, gpus, nics;
    int numa_nodes;
    char numa_cpus[SC_PCI_NUMA][256]; /* node N's CPUs, a cpulist ("0-55,112-167") */
    char root[256];                   /* the sysfs read: "/sys" or SCALECHECK_SYS_ROOT */
} sc_pci_tree_t;

/* nvidia-smi topo -m's classes, nearest first: the two share a PCIe switch (PIX), several
 * switches but no host bridge (PXB), a host bridge (PHB), a NUMA node across host bridges
 * (NODE), or cross the link between sockets (SYS). */
typedef enum { SC_PCI_PIX, SC_PCI_PXB, SC_PCI_PHB, SC_PCI_NODE, SC_PCI_SYS } sc_pci_distance_t;

/* Reads this host's tree. Never fails: what is not there is left out (a host without GPUs or
 * sysfs has an empty tree). */
void sc_pci_tree_read(sc_pci_tree_t *t);
/* The same from a sysfs at root (tests). */
void sc_pci_tree_read_at(const char *root, sc_pci_tree_t *t);

sc_pci_distance_t sc_pci_distance(const sc_pci_device_t *a, const sc_pci_device_t *b);
const char *sc_pci_distance_name(sc_pci_distance_t d); /* "PIX" ... "SYS" */

/* The device of kind with this index (GPU 3), or NULL. */
const sc_pci_device_t *sc_pci_find(const sc_pci_tree_t *t, sc_pci_kind_t kind, int index);
/* The NIC named name (its InfiniBand or network name, "mlx5_2" or "mlx5_2:1"), or NULL. */
const sc_pci_device_t *sc_pci_find_nic(const sc_pci_tree_t *t, const char *name);
/* The NIC nearest gpu (the lowest distance class, then the lowest index), or NULL: none. */
const sc_pci_device_t *sc_pci_nearest_nic(const sc_pci_tree_t *t, const sc_pci_device_t *gpu);

/* The NUMA node whose CPUs hold every CPU in cpus (a cpulist), -1 when they span several or
 * none is known; *spans: how many nodes they touch. */
int sc_pci_numa_of_cpus(const sc_pci_tree_t *t, const char *cpus, int *spans);

#endif
