/* test_paths.c - the paths a real server offers, as the topology derives them and the model
 * prices them: NVLink SHARP from the NVSwitch generation (calibrated on 8x H100: busbw ~480
 * GB/s), the ring fallback and --algo; NVLink-bridged pairs with PCIe between pairs; the PCIe
 * tree (reachable rate by generation, switch uplinks, how far peer-to-peer reaches); rails
 * under one leaf; IB SHARP across nodes. */
#include <string.h>

#include "model/sc_model.h"
#include "sc_test.h"

static sc_topology_t hgx(long long gen, double line_GBps)
{
    sc_topology_t t;
    memset(&t, 0, sizeof(t));
    strcpy(t.name, "hgx");
    strcpy(t.gpu, gen >= 3 ? "H100-SXM5-80GB" : gen == 2 ? "A100-SXM4-80GB" : "");
    t.gpus_per_node = 8;
    t.fabric = SC_FABRIC_nvswitch;
    t.nvswitch_gen = gen;
    t.link_GBps = 25;
    t.links_per_gpu = (long long)(line_GBps / 25);
    t.intra_latency_us = 1.0;
    t.p2p = true;
    t.p2p_level = SC_P2P_system;
    t.pcie_uplink_lanes = 16;
    t.nics = 8;
    t.nic_gbps = 400;
    t.nic_efficiency = 1.0;
    t.nic_latency_us = 2.0;
    t.oversubscription = 1.0;
    t.nodes = 64;
    return t;
}

static double busbw(const sc_topology_t *t, double size, int g, int nodes, const char **alg)
{
    sc_prediction_t p;
    sc_model_collective(t, &sc_coll_allreduce, size, g, nodes, &p);
    *alg = p.algorithm;
    return p.busbw_GBps;
}

static void test_nvls(void)
{
    const char *alg;
    /* H100 (NVSwitch gen 3, 450 GB/s): NVLS on 8 GPUs ~480 busbw; the ring ~370 on 2 */
    sc_topology_t h = hgx(3, 450);
    SC_EXPECT(sc_topology_nvls(&h));
    double b8 = busbw(&h, 4e9, 8, 1, &alg);
    SC_EXPECT(strcmp(alg, "nvls") == 0);
    SC_EXPECT(b8 > 480 * 0.97 && b8 < 480 * 1.03);
    double b2 = busbw(&h, 4e9, 2, 1, &alg);
    SC_EXPECT(strcmp(alg, "ring") == 0 && b2 > 360 && b2 < 375);
    /* NVLS is an all-reduce: an all-gather rides the ring */
    sc_prediction_t p;
    sc_model_collective(&h, &sc_coll_allgather, 4e9, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "ring") == 0);
    /* forced: the ring (as NCCL_ALGO=Ring), and NVLS even where the ring is faster */
    h.algo = SC_ALGO_ring;
    SC_EXPECT(busbw(&h, 4e9, 8, 1, &alg) < 375 && strcmp(alg, "ring") == 0);
    h.algo = SC_ALGO_nvls;
    busbw(&h, 4e9, 2, 1, &alg);
    SC_EXPECT(strcmp(alg, "nvls") == 0);
    /* off, or an older switch (A100, gen 2): the ring; NVLS forced falls back to it */
    h.nvls_mode = SC_NVLS_off;
    busbw(&h, 4e9, 8, 1, &alg);
    SC_EXPECT(strcmp(alg, "ring") == 0 && !sc_topology_nvls(&h));
    sc_topology_t a = hgx(2, 300);
    a.algo = SC_ALGO_nvls;
    double ba = busbw(&a, 4e9, 8, 1, &alg);
    SC_EXPECT(strcmp(alg, "ring") == 0 && ba > 235 && ba < 241); /* 12 x NCCL's 20 GB/s */
    /* a published NVLS figure overrides the derivation */
    sc_topology_t given = hgx(3, 450);
    given.nvls_busbw_GBps = 400;
    SC_EXPECT_NEAR(busbw(&given, 1e12, 8, 1, &alg), 400, 1);
}

static sc_topology_t pcie_box(int gen, int sockets)
{
    sc_topology_t t = hgx(0, 0);
    t.fabric = SC_FABRIC_pcie;
    t.links_per_gpu = 0;
    t.pcie_gen = gen;
    t.pcie_lanes = 16;
    t.sockets = sockets;
    return t;
}

static void test_pcie_tree(void)
{
    /* the published reachable rate of the generation, not a chosen efficiency */
    sc_topology_t t = pcie_box(4, 2);
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 8), 25.0, 1e-9);
    t.pcie_gen = 3;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 8), 12.0, 1e-9);
    t.pcie_gen = 4;
    /* peer-to-peer through one CPU: a ring over both sockets bounces through memory */
    t.p2p_level = SC_P2P_host;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 4), 25.0, 1e-9);
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 8), 12.5, 1e-9);
    /* NCCL's default (below a common switch): 2 switches of 4 GPUs on x8 uplinks - inside a
     * switch the GPU's link, beyond it the uplink and host memory */
    t.p2p_level = SC_P2P_switch;
    t.gpus_per_switch = 4;
    t.pcie_uplink_lanes = 8;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 4), 25.0, 1e-9);
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 8), 6.25, 1e-9);
    /* GPUs on the CPU's root ports (no switch): no two exchange peer-to-peer by default */
    t.gpus_per_switch = 0;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 2), 12.5, 1e-9);
    /* no peer-to-peer at all (consumer cards): half everywhere */
    sc_topology_t c = pcie_box(4, 1);
    c.p2p_level = SC_P2P_system;
    c.p2p = false;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&c, 2), 12.5, 1e-9);
    /* an explicit efficiency of the raw rate still wins */
    c.p2p = true;
    c.intra_efficiency = 0.5;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&c, 2), 15.75, 1e-9);
}

static void test_bridged_pairs(void)
{
    /* A40 pairs on NVLink bridges (4 links of 14.0625 GB/s per direction), PCIe 4.0 between
     * pairs: NCCL reaches 12 GB/s a link on SM86 */
    sc_topology_t t = pcie_box(4, 2);
    strcpy(t.gpu, "NVIDIA A40");
    t.fabric = SC_FABRIC_nvlink_bridge;
    t.gpu_bandwidth_GBps = 56.25;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 2), 48.0, 1e-9);
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 4), 25.0, 1e-9);
    const char *alg;
    SC_EXPECT(busbw(&t, 1e10, 2, 1, &alg) > 2 * busbw(&t, 1e10, 4, 1, &alg) * 0.8);
}

/* A full NVLink mesh of 4 A100s (NV4: 12 links a GPU, 4 to each peer): two of them reach the 4
 * links between them, three 8, all four every link; an NVSwitch reaches every link with any
 * subset. NVLink SHARP on Blackwell at NCCL's tuner ratio of Hopper's (0.74 / 0.85). */
static void test_mesh_and_generations(void)
{
    sc_topology_t t = hgx(2, 300);
    t.fabric = SC_FABRIC_nvlink_mesh;
    t.gpus_per_node = 4;
    t.links_per_gpu = 12;
    double link = 20.0; /* NCCL's reachable GB/s a link on SM80 */
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 2), 4 * link, 1e-9);
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 3), 8 * link, 1e-9);
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 4), 12 * link, 1e-9);
    t.fabric = SC_FABRIC_nvswitch;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 2), 12 * link, 1e-9);
    sc_topology_t b = hgx(4, 900);
    strcpy(b.gpu, "B300");
    sc_topology_t h = hgx(3, 900); /* Hopper with Blackwell's links: only the generation differs */
    SC_EXPECT_NEAR(sc_topology_nvls_algbw_GBps(&b) / sc_topology_nvls_algbw_GBps(&h), 0.74 / 0.85,
                   1e-9);
}

/* The GPU's generation decides what NCCL reaches on a link (src/graph/topo.h). */
static void test_generations(void)
{
    static const struct {
        const char *gpu;
        int cc;
        double per_link; /* GB/s NCCL reaches on a 25 GB/s link (14.0625 on SM86, 50 on SM100) */
    } cases[] = {
        {"Tesla V100-SXM2-32GB", 70, 20.0},
        {"GeForce RTX 2080 Ti", 75, 20.0},
        {"A100-PCIe-40GB", 80, 20.0},
        {"NVIDIA RTX A6000", 86, 12.0 * 25 / 14.0625},
        {"H100 PCIe", 90, 20.6},
        {"B200", 100, 40.1 / 2},
        {"Something new", 80, 20.0},
        {"GeForce RTX 4090", 89, 20.0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc_topology_t t = hgx(2, 300);
        strcpy(t.gpu, cases[i].gpu);
        SC_EXPECT(sc_topology_gpu_cc(&t) == cases[i].cc);
        SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 8), 12 * cases[i].per_link, 1e-6);
    }
    /* declared wins over the name; another vendor's GPU keeps the generic share */
    sc_topology_t t = hgx(2, 300);
    t.compute_capability = 8.6;
    SC_EXPECT(sc_topology_gpu_cc(&t) == 86);
    sc_topology_t mi = hgx(2, 300);
    strcpy(mi.gpu, "AMD Instinct MI250");
    mi.fabric = SC_FABRIC_infinity_fabric;
    SC_EXPECT(sc_topology_gpu_cc(&mi) == 0);
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&mi, 8), 300 * 0.8, 1e-9);
}

/* Staged through host memory: bound by the memory of the sockets the ring spans (each flow is
 * written there and read back), else by the link; through an Intel root complex at 5/6. */
static void test_staged_and_root_complex(void)
{
    sc_topology_t t = pcie_box(5, 2);
    t.gpus_per_node = 8;
    t.p2p = false;
    t.host_memory_GBps = 614.4; /* 2 x 8 channels of DDR5-4800 */
    /* 8 GPUs over both sockets: 0.8 x 614.4 / 16 */
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 8), 0.8 * 614.4 / 16, 1e-9);
    /* 4 on one socket: its half of the memory for 8 flows */
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 4), 0.8 * 307.2 / 8, 1e-9);
    /* 2: the link (PCIe 5.0 reaches 50) before the memory */
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 2), 50.0, 1e-9);
    /* undeclared memory: the older half-the-link assumption */
    t.host_memory_GBps = 0;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&t, 8), 25.0, 1e-9);
    /* peer-to-peer through an Intel root complex: 64-byte TLPs cost 6/5 */
    sc_topology_t p = pcie_box(4, 2);
    p.gpus_per_node = 8;
    p.p2p_level = SC_P2P_system;
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&p, 4), 25.0, 1e-9);
    SC_EXPECT(sc_topology_cpu_vendor(&p) == SC_CPU_OTHER);
    strcpy(p.cpu, "AMD EPYC 7742"); /* AMD: no TLP overhead */
    SC_EXPECT(sc_topology_cpu_vendor(&p) == SC_CPU_AMD);
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&p, 4), 25.0, 1e-9);
    strcpy(p.cpu, "Intel Xeon Platinum 8380");
    SC_EXPECT(sc_topology_cpu_vendor(&p) == SC_CPU_INTEL);
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&p, 4), 25.0 * 5 / 6, 1e-9);
    p.gpus_per_switch = 4; /* below one switch the root complex is not on the way */
    SC_EXPECT_NEAR(sc_topology_ring_GBps(&p, 4), 25.0, 1e-9);
}

static void test_across_nodes(void)
{
    const char *alg;
    sc_topology_t t = hgx(2, 300);
    /* 8x 400 Gb/s = 400 GB/s a node, above NVLink: the ring is bound by the GPU's 246 */
    double ring = busbw(&t, 8e9, 8, 16, &alg);
    SC_EXPECT(strcmp(alg, "ring") == 0 || strcmp(alg, "tree") == 0);
    /* IB SHARP: each node's buffer crosses its NICs once each way - faster at large sizes */
    t.sharp = true;
    t.nic_gbps = 100; /* 100 GB/s a node: the network is the bottleneck */
    double no_sharp;
    t.algo = SC_ALGO_ring;
    no_sharp = busbw(&t, 8e9, 8, 16, &alg);
    t.algo = SC_ALGO_auto;
    double with = busbw(&t, 8e9, 8, 16, &alg);
    SC_EXPECT(strcmp(alg, "sharp") == 0 && with > 1.5 * no_sharp);
    t.sharp = false;
    t.algo = SC_ALGO_sharp; /* forced without SHARP switches: the ring */
    SC_EXPECT_NEAR(busbw(&t, 8e9, 8, 16, &alg), no_sharp, 1e-9);
    SC_EXPECT(ring > no_sharp);
    /* rails under one leaf: the leaves' oversubscription is not on the way */
    sc_topology_t r = hgx(2, 300);
    r.nic_gbps = 100;
    r.oversubscription = 2.0;
    double over = busbw(&r, 8e9, 8, 16, &alg);
    r.rails = true;
    r.nodes_per_leaf = 32;
    double railed = busbw(&r, 8e9, 8, 16, &alg);
    SC_EXPECT(railed > 1.8 * over);
    r.rails = false;
    double spine = busbw(&r, 8e9, 8, 64, &alg);
    r.rails = true;
    SC_EXPECT_NEAR(busbw(&r, 8e9, 8, 64, &alg), spine, 1e-9); /* 64 nodes leave the leaf */
}

int main(void)
{
    test_nvls();
    test_pcie_tree();
    test_bridged_pairs();
    test_generations();
    test_mesh_and_generations();
    test_staged_and_root_complex();
    test_across_nodes();
    return sc_test_done("test_paths");
}
