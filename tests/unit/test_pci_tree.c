/* test_pci_tree.c - inside the node: the distance classes between two PCIe devices as
 * nvidia-smi topo -m names them, the NIC nearest a GPU, the NUMA node of a rank's CPUs, and the
 * node verdict's rules (a rank's place, a NUMA node's memory against the host's best). */
#include <string.h>

#include "detect/sc_pci_tree.h"
#include "judge/sc_node_verdict.h"
#include "sc_test.h"

/* A device under host bridge hb, below the bridges given (NULL-ended), on NUMA node numa. */
static sc_pci_device_t dev(sc_pci_kind_t kind, int index, const char *name, const char *hb,
                           int numa, const char *const *bridges)
{
    sc_pci_device_t d;
    memset(&d, 0, sizeof(d));
    d.kind = kind;
    d.index = index;
    d.numa = numa;
    snprintf(d.name, sizeof(d.name), "%s", name);
    snprintf(d.host_bridge, sizeof(d.host_bridge), "%s", hb);
    for (; bridges[d.nbridges] != NULL; d.nbridges++)
        snprintf(d.bridges[d.nbridges], SC_PCI_BUS, "%s", bridges[d.nbridges]);
    return d;
}

static void distances(void)
{
    /* root port -> switch upstream -> downstream ports A, B; a second switch below port B */
    const char *a[] = {"00:01.0", "01:00.0", "02:00.0", NULL};
    const char *b[] = {"00:01.0", "01:00.0", "02:01.0", NULL};
    const char *deeper[] = {"00:01.0", "01:00.0", "02:01.0", "04:00.0", "05:00.0", NULL};
    const char *other_port[] = {"00:03.0", "07:00.0", "08:00.0", NULL};
    sc_pci_device_t gpu = dev(SC_PCI_GPU, 0, "GPU 0", "pci0000:00", 0, a);
    sc_pci_device_t pix = dev(SC_PCI_NIC, 0, "mlx5_0", "pci0000:00", 0, b);
    sc_pci_device_t pxb = dev(SC_PCI_NIC, 1, "mlx5_1", "pci0000:00", 0, deeper);
    sc_pci_device_t phb = dev(SC_PCI_NIC, 2, "mlx5_2", "pci0000:00", 0, other_port);
    sc_pci_device_t node = dev(SC_PCI_NIC, 3, "mlx5_3", "pci0000:40", 0, other_port);
    sc_pci_device_t sys = dev(SC_PCI_NIC, 4, "mlx5_4", "pci0000:80", 1, other_port);
    SC_EXPECT(sc_pci_distance(&gpu, &pix) == SC_PCI_PIX);
    SC_EXPECT(sc_pci_distance(&gpu, &pxb) == SC_PCI_PXB);
    SC_EXPECT(sc_pci_distance(&gpu, &phb) == SC_PCI_PHB);
    SC_EXPECT(sc_pci_distance(&gpu, &node) == SC_PCI_NODE);
    SC_EXPECT(sc_pci_distance(&gpu, &sys) == SC_PCI_SYS);
    SC_EXPECT(strcmp(sc_pci_distance_name(SC_PCI_NODE), "NODE") == 0);

    static sc_pci_tree_t t; /* the nearest NIC, whatever the order they were read in */
    memset(&t, 0, sizeof(t));
    t.devices[0] = sys;
    t.devices[1] = phb;
    t.devices[2] = gpu;
    t.devices[3] = pix;
    t.n = 4;
    SC_EXPECT(sc_pci_nearest_nic(&t, &gpu) == &t.devices[3]);
    SC_EXPECT(sc_pci_find_nic(&t, "mlx5_2:1") == &t.devices[1]); /* UCX names a port */
    SC_EXPECT(sc_pci_find_nic(&t, "mlx5_") == NULL);
    SC_EXPECT(sc_pci_find(&t, SC_PCI_GPU, 0) == &t.devices[2]);

    /* CPUs to NUMA nodes */
    t.numa_nodes = 2;
    snprintf(t.numa_cpus[0], sizeof(t.numa_cpus[0]), "0-55,112-167");
    snprintf(t.numa_cpus[1], sizeof(t.numa_cpus[1]), "56-111,168-223");
    int spans = 0;
    SC_EXPECT(sc_pci_numa_of_cpus(&t, "3", &spans) == 0 && spans == 1);
    SC_EXPECT(sc_pci_numa_of_cpus(&t, "170-171", &spans) == 1 && spans == 1);
    SC_EXPECT(sc_pci_numa_of_cpus(&t, "0-223", &spans) == -1 && spans == 2);
}

static void rules(void)
{
    /* a rank on its GPU's node and nearest NIC; on the other node; on a farther NIC; spread */
    SC_EXPECT(sc_node_rank_level(0, 1, 0, SC_PCI_PIX, SC_PCI_PIX) == SC_LEVEL_PASS);
    SC_EXPECT(sc_node_rank_level(1, 1, 0, SC_PCI_PIX, SC_PCI_PIX) == SC_LEVEL_FAIL);
    SC_EXPECT(sc_node_rank_level(0, 1, 0, SC_PCI_SYS, SC_PCI_PIX) == SC_LEVEL_FAIL);
    /* NCCL's own choice: its NIC against the nearest, and GPUDirect RDMA on every connection of
     * an RDMA NIC (sockets beside one count as staged) */
    SC_EXPECT(sc_node_nic_use_level(true, SC_PCI_PIX, SC_PCI_PIX, true, 2, 2) == SC_LEVEL_PASS);
    SC_EXPECT(sc_node_nic_use_level(true, SC_PCI_SYS, SC_PCI_PIX, true, 2, 2) == SC_LEVEL_FAIL);
    SC_EXPECT(sc_node_nic_use_level(true, SC_PCI_PIX, SC_PCI_PIX, true, 1, 2) == SC_LEVEL_FAIL);
    SC_EXPECT(sc_node_nic_use_level(true, -1, SC_PCI_PIX, true, 0, 1) == SC_LEVEL_FAIL);
    SC_EXPECT(sc_node_nic_use_level(true, -1, -1, false, 0, 1) == SC_LEVEL_PASS);
    SC_EXPECT(sc_node_nic_use_level(false, -1, SC_PCI_PIX, true, 0, 0) == SC_LEVEL_WARN);
    SC_EXPECT(sc_node_rank_level(-1, 2, 0, -1, SC_PCI_PIX) == SC_LEVEL_WARN);
    SC_EXPECT(sc_node_rank_level(-1, 1, -1, -1, -1) == SC_LEVEL_PASS); /* no GPU: nothing */
    SC_EXPECT(sc_node_nic_level(SC_PCI_PXB) == SC_LEVEL_PASS);
    SC_EXPECT(sc_node_nic_level(SC_PCI_SYS) == SC_LEVEL_WARN);

    /* a host's NUMA nodes: one at 40 % of the best is a FAIL naming it; a lone node, no check */
    sc_node_rows_t rows = {0};
    const struct {
        const char *host;
        double GBps;
    } mem[] = {{"a", 100}, {"a", 40}, {"a", 95}, {"b", 10}};
    for (int i = 0; i < 4; i++) {
        sc_node_row_t *r = SC_LIST_PUSH(&rows);
        snprintf(r->host, sizeof(r->host), "%s", mem[i].host);
        snprintf(r->kind, sizeof(r->kind), "memory");
        snprintf(r->what, sizeof(r->what), "NUMA node %d", i);
        r->measured_GBps = mem[i].GBps;
        r->expected_GBps = SC_ABSENT;
    }
    sc_checks_t checks = {0};
    sc_verdict_node(&rows, NULL, &checks);
    SC_EXPECT(rows.items[0].level == SC_LEVEL_PASS && rows.items[1].level == SC_LEVEL_FAIL &&
              rows.items[2].level == SC_LEVEL_PASS && rows.items[3].level == SC_LEVEL_PASS);
    SC_EXPECT_EQ_U64(checks.n, 3); /* host a's three nodes; b's one is not held to anyone */
    SC_EXPECT(checks.n == 3 && strstr(checks.items[1].name, "NUMA node 1") != NULL &&
              checks.items[1].level == SC_LEVEL_FAIL);
    sc_list_free(&rows);
    sc_list_free(&checks);
}

/* A full NVLink mesh's pairs held to their own links: a 4-GPU NV4 board (12 links of 25 GB/s, 4
 * a pair, NCCL's 20 of 25 on SM80: 80 GB/s a pair); a pair at half FAILs, the rest PASS. A
 * partial mesh (6 links among 8 GPUs) is held to its pairs' median. */
static void mesh_pairs(void)
{
    sc_topology_t t;
    memset(&t, 0, sizeof(t));
    snprintf(t.gpu, sizeof(t.gpu), "A100-SXM4-80GB");
    t.fabric = SC_FABRIC_nvlink_mesh;
    t.gpus_per_node = 4;
    t.links_per_gpu = 12;
    t.link_GBps = 25;
    sc_node_rows_t rows = {0};
    const double got[] = {79, 81, 40, 80};
    for (int i = 0; i < 4; i++) {
        sc_node_row_t *r = SC_LIST_PUSH(&rows);
        snprintf(r->host, sizeof(r->host), "a");
        snprintf(r->kind, sizeof(r->kind), "peer");
        snprintf(r->what, sizeof(r->what), "GPU %d to GPU %d", i, (i + 1) % 4);
        r->measured_GBps = got[i];
        r->expected_GBps = SC_ABSENT;
    }
    sc_checks_t checks = {0};
    sc_verdict_node(&rows, &t, &checks);
    SC_EXPECT_NEAR(rows.items[0].expected_GBps, 80.0, 1e-9);
    SC_EXPECT(rows.items[2].level == SC_LEVEL_FAIL && rows.items[0].level == SC_LEVEL_PASS &&
              rows.items[3].level == SC_LEVEL_PASS);
    sc_list_free(&checks);
    t.gpus_per_node = 8;
    t.links_per_gpu = 6; /* DGX-1: not every pair has a link */
    sc_verdict_node(&rows, &t, &checks);
    SC_EXPECT_NEAR(rows.items[0].expected_GBps, 79.5, 1e-9); /* the median of 79 81 40 80 */
    sc_list_free(&rows);
    sc_list_free(&checks);
}

int main(void)
{
    distances();
    rules();
    mesh_pairs();
    return sc_test_done("test_pci_tree");
}
