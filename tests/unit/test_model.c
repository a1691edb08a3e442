/* The model on synthetic topologies (no GPU, no MPI): ring formulas exact, NVLS chosen where
 * it is faster, the NIC bound across nodes, one GPU has no bus bandwidth, and a workload's
 * curve: compute-only scaling is linear, exposed communication lowers efficiency. */
#include <math.h>
#include <string.h>

#include "model/sc_model.h"
#include "util/sc_defaults.h"
#include "sc_test.h"

static sc_topology_t synthetic(void)
{
    sc_topology_t t;
    memset(&t, 0, sizeof(t));
    strcpy(t.name, "synthetic");
    t.gpus_per_node = 8;
    t.fabric = SC_FABRIC_nvswitch;
    t.gpu_bandwidth_GBps = 100; /* x efficiency 1 = 100 GB/s */
    t.intra_efficiency = 1.0;
    t.intra_latency_us = 1.0;
    t.nics = 4;
    t.nic_gbps = 200; /* 4 x 25 GB/s = 100 GB/s per node at efficiency 1 */
    t.nic_efficiency = 1.0;
    t.nic_latency_us = 2.0;
    t.oversubscription = 1.0;
    t.overlap = 1.0;
    t.nodes = 4;
    t.tflops_fp32 = 100;
    /* the alpha-beta line: the formulas below (a library with no algorithms of its own priced:
     * HCCL's; NCCL's protocols and MPI's algorithms further down) */
    t.library = SC_LIB_hccl;
    return t;
}

/* A network hop is priced once (sc_topology_net_hop) for every library: a latency the topology
 * states (nics.latency_us, each switch tier half more) reaches NCCL's protocols as it reaches the
 * alpha-beta line and the all-to-all; unstated, NCCL's own constants price it. Both ways of a
 * hop's latency are checked on each model that prices one. */
static void net_hop(void)
{
    sc_topology_t t = synthetic();
    t.switch_tiers = 2;
    sc_hop_t hop = sc_topology_net_hop(&t, 8, 4, (int)t.gpus_per_node);
    SC_EXPECT(hop.stated);
    SC_EXPECT_NEAR(hop.latency_us, 2.0 * 2.0, 1e-12);
    SC_EXPECT_NEAR(hop.GBps, 100.0, 1e-9);
    t.nic_latency_us = NAN;
    hop = sc_topology_net_hop(&t, 8, 4, (int)t.gpus_per_node);
    SC_EXPECT(!hop.stated && hop.latency_us > 0);
    /* each model: the same collective with a hop 10 us slower costs 10 us more a network step */
    const sc_library_t libs[] = {SC_LIB_hccl, SC_LIB_nccl, SC_LIB_mpi};
    const sc_coll_t *colls[] = {&sc_coll_allgather, &sc_coll_alltoall};
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < 2; c++) {
            sc_topology_t a = synthetic(), b = synthetic();
            a.library = b.library = libs[l];
            a.switch_tiers = b.switch_tiers = 0;
            b.nic_latency_us = a.nic_latency_us + 10.0;
            sc_prediction_t pa, pb;
            sc_model_collective(&a, colls[c], 64, 8, 4, &pa);
            sc_model_collective(&b, colls[c], 64, 8, 4, &pb);
            /* an all-gather's ring crosses the network once per node; all-to-all n - 1 times;
             * MPI's recursive doubling and Bruck's all-to-all on 32 ranks twice (ranks 8 and 16
             * apart) */
            double steps = libs[l] == SC_LIB_mpi           ? 2
                           : colls[c] == &sc_coll_alltoall ? 8 * 4 - 1
                                                           : 4;
            SC_EXPECT_NEAR(pb.time_us - pa.time_us, 10.0 * steps, 1e-6);
        }
    /* NCCL: an unstated hop is NCCL's constants, a stated one the topology's latency plus what
     * the protocol adds; stated at the least NCCL step (ring LL, 2.7 us) the two agree for LL */
    sc_topology_t unstated = synthetic(), stated = synthetic();
    unstated.library = stated.library = SC_LIB_nccl;
    unstated.nic_latency_us = NAN;
    stated.nic_latency_us = 2.7;
    sc_prediction_t pu, ps;
    sc_model_collective(&unstated, &sc_coll_allgather, 8, 8, 4, &pu);
    sc_model_collective(&stated, &sc_coll_allgather, 8, 8, 4, &ps);
    SC_EXPECT(strcmp(pu.protocol, "LL") == 0 && strcmp(ps.protocol, "LL") == 0);
    SC_EXPECT_NEAR(pu.time_us, ps.time_us, 1e-9);
    /* EFA-like: 15 us a hop makes a small all-gather across 4 nodes 4 x 12.3 us slower */
    stated.nic_latency_us = 15.0;
    sc_model_collective(&stated, &sc_coll_allgather, 8, 8, 4, &ps);
    SC_EXPECT_NEAR(ps.time_us - pu.time_us, 4 * (15.0 - 2.7), 1e-9);
}

/* NCCL's protocols (NCCL's tuner constants, sc_model_proto.c): Simple for large messages with
 * its base 8.4 us and 3.4 us an NVLink ring step, LL for small ones (6.6 + 0.6 a step), LL128
 * between, and PCIe with no LL128 and 1 us an LL step. */
static void protocols(void)
{
    sc_topology_t t = synthetic();
    t.library = SC_LIB_nccl;
    sc_prediction_t p;
    sc_model_collective(&t, &sc_coll_allreduce, 1e9, 8, 1, &p);
    SC_EXPECT(strcmp(p.protocol, "Simple") == 0);
    SC_EXPECT_NEAR(p.time_us, 8.4 + 14 * 3.4 + 1.75e9 / 1e5, 1e-6);
    SC_EXPECT_NEAR(p.latency_us, 8.4 + 14 * 3.4, 1e-6);
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &p);
    SC_EXPECT(strcmp(p.protocol, "LL") == 0);
    SC_EXPECT_NEAR(p.time_us, 6.6 + 14 * 0.6 + 1.75 * 8 / 50e3, 1e-9);
    SC_EXPECT(p.latency_us / p.time_us > 0.999);
    sc_model_collective(&t, &sc_coll_allreduce, 4e6, 8, 1, &p);
    SC_EXPECT(strcmp(p.protocol, "LL128") == 0);
    /* LL's rate: half the path, and at most what the GPU generation reaches (Ampere 87.7) */
    t.gpu_bandwidth_GBps = 400;
    strcpy(t.gpu, "A100-SXM4-80GB");
    sc_model_collective(&t, &sc_coll_allgather, 65536, 8, 1, &p);
    SC_EXPECT(strcmp(p.protocol, "LL") == 0);
    SC_EXPECT_NEAR(p.time_us, 6.6 + 7 * 0.6 + 0.875 * 65536 / 87.7e3, 1e-9);
    t.fabric = SC_FABRIC_pcie;
    t.pcie_gen = 4;
    t.pcie_lanes = 16;
    t.p2p = true;
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &p);
    SC_EXPECT_NEAR(p.latency_us, 6.6 + 14 * 1.0, 1e-2);
    for (double s = 8; s <= 1e9; s *= 4) {
        sc_model_collective(&t, &sc_coll_allreduce, s, 8, 1, &p);
        SC_EXPECT(strcmp(p.protocol, "LL128") != 0);
    }
    /* calibrated figures keep their measured regimes: no protocol priced */
    t.cal_intra.n = 1;
    t.cal_intra.r[0] = (sc_regime_t){0, 2.0, 50.0};
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &p);
    SC_EXPECT(p.protocol[0] == '\0');
}

/* What calibrate measured on a workload's own products prices that workload's compute (and
 * says so); another workload keeps the declared or published share. */
static void measured_compute(void)
{
    sc_topology_t t = synthetic();
    sc_workload_t w;
    memset(&w, 0, sizeof(w));
    snprintf(w.name, sizeof(w.name), "gpt");
    w.compute_mode = SC_COMPUTE_FLOPS;
    w.compute_precision = SC_PRECISION_FP32;
    w.efficiency = 0.3;
    char words[256];
    SC_EXPECT_NEAR(sc_model_compute_efficiency(&t, &w), 0.3, 1e-12);
    snprintf(t.cal_compute_workload, sizeof(t.cal_compute_workload), "gpt");
    t.cal_compute_tflops = 62;
    SC_EXPECT_NEAR(sc_model_compute_efficiency(&t, &w), 0.62, 1e-12);
    sc_model_compute_describe(&t, &w, words, sizeof(words));
    SC_EXPECT(strstr(words, "measured here") != NULL && strstr(words, "62 TFLOP/s") != NULL);
    snprintf(w.name, sizeof(w.name), "bert");
    SC_EXPECT_NEAR(sc_model_compute_efficiency(&t, &w), 0.3, 1e-12);
    sc_model_compute_describe(&t, &w, words, sizeof(words));
    SC_EXPECT(strstr(words, "declared by the workload") != NULL);
}

/* MPI's algorithms and protocols (docs/REFERENCE.md §3.4) on the synthetic system: 1 us a step
 * and 100 GB/s inside a node, 2 us and 100 GB/s a node between nodes. */
static void mpi_model(void)
{
    sc_topology_t t = synthetic();
    t.library = SC_LIB_mpi;
    sc_prediction_t p;
    /* a short all-reduce: recursive doubling, log2(8) eager steps */
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "recursive-doubling") == 0 && strcmp(p.protocol, "eager") == 0);
    SC_EXPECT_NEAR(p.time_us, 3.0, 1e-3);
    /* a long one: Rabenseifner, 2 x 3 steps by rendezvous (3 latencies each), 2 x 7/8 of it */
    sc_model_collective(&t, &sc_coll_allreduce, 1e9, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "rabenseifner") == 0 && strcmp(p.protocol, "rendezvous") == 0);
    SC_EXPECT_NEAR(p.time_us, 18.0 + 1.75e9 / 1e5, 1e-6);
    /* one byte past the eager limit costs two latencies more: inside a node, and between two
     * (the limits stated, or the defaults) */
    sc_prediction_t below, above;
    sc_model_collective(&t, &sc_coll_sendrecv, SC_MPI_SHM_EAGER_BYTES, 2, 1, &below);
    sc_model_collective(&t, &sc_coll_sendrecv, SC_MPI_SHM_EAGER_BYTES + 1, 2, 1, &above);
    SC_EXPECT_NEAR(above.time_us - below.time_us, 2.0 * 1.0, 1e-3);
    t.nic_eager_bytes = 65536;
    sc_model_collective(&t, &sc_coll_sendrecv, 65536, 1, 2, &below);
    sc_model_collective(&t, &sc_coll_sendrecv, 65537, 1, 2, &above);
    SC_EXPECT(strcmp(below.protocol, "eager") == 0 && strcmp(above.protocol, "rendezvous") == 0);
    SC_EXPECT_NEAR(above.time_us - below.time_us, 2.0 * 2.0, 1e-3);
    /* a small reduce on 192 ranks (96 a node): 8 binomial steps, the last across the network */
    sc_model_collective(&t, &sc_coll_reduce, 1, 96, 2, &p);
    SC_EXPECT(strcmp(p.algorithm, "binomial") == 0);
    SC_EXPECT_NEAR(p.time_us, 7 * 1.0 + 2.0, 1e-2);
    /* a long all-gather: the ring, every step waiting for the pair that crosses nodes */
    sc_model_collective(&t, &sc_coll_allgather, 64e6, 8, 4, &p);
    SC_EXPECT(strcmp(p.algorithm, "ring") == 0);
    SC_EXPECT_NEAR(p.time_us, 31 * (3 * 2.0 + 2e6 / (100.0 / 8 * 1e3)), 1e-3);
    /* calibrated, the measured regimes price it on the alpha-beta line, as before */
    t.cal_intra.n = 1;
    t.cal_intra.r[0] = (sc_regime_t){0, 1.0, 100.0};
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "ring") == 0);
}

/* NCCL's symmetric kernels (docs/REFERENCE.md §3.5): only where the run registered symmetric
 * buffers on one all-NVLink node of compute capability 9.0 or later; a small all-reduce costs the
 * LL kernel's base latency (Hopper 4.5 us, Blackwell 11) and a little; a large one no less than
 * the other algorithms' bytes over the same links. */
static void symmetric(void)
{
    sc_topology_t t = synthetic();
    t.library = SC_LIB_nccl;
    t.compute_capability = 9.0;
    sc_prediction_t p, regular;
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &regular);
    t.symmetric = true;
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "symmetric") == 0);
    SC_EXPECT(p.time_us > 4.5 && p.time_us < 5.0 && p.time_us < regular.time_us);
    t.compute_capability = 10.0;
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &p);
    SC_EXPECT(p.time_us > 11.0 && p.time_us < 11.5);
    sc_model_collective(&t, &sc_coll_allgather, 64, 8, 1, &p);
    SC_EXPECT(p.time_us > 8.5 && p.time_us < 9.0);
    sc_model_collective(&t, &sc_coll_allreduce, 1e9, 8, 1, &p);
    t.symmetric = false;
    sc_model_collective(&t, &sc_coll_allreduce, 1e9, 8, 1, &regular);
    SC_EXPECT(p.time_us >= regular.time_us - regular.latency_us - 1e-6);
    /* not across nodes, not over PCIe, not before Hopper, not for a broadcast */
    t.symmetric = true;
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 2, &p);
    SC_EXPECT(strcmp(p.algorithm, "symmetric") != 0);
    sc_model_collective(&t, &sc_coll_broadcast, 8, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "symmetric") != 0);
    t.compute_capability = 8.0;
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "symmetric") != 0);
    t.compute_capability = 10.0;
    t.fabric = SC_FABRIC_pcie;
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "symmetric") != 0);
}

int main(void)
{
    sc_topology_t t = synthetic();
    sc_prediction_t p;
    /* ring all-reduce, 8 GPUs, 1e9 B: 14 x 1 us + 2*7/8 * 1e9 / 100e9 s = 14 + 17500 us */
    sc_model_collective(&t, &sc_coll_allreduce, 1e9, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "ring") == 0);
    SC_EXPECT_NEAR(p.time_us, 17514.0, 1e-6);
    SC_EXPECT_NEAR(p.busbw_GBps, 1e9 / 17514.0 / 1e3 * 1.75, 1e-9);
    /* all-gather: 7 steps, 7/8 of the size */
    sc_model_collective(&t, &sc_coll_allgather, 8e8, 8, 1, &p);
    SC_EXPECT_NEAR(p.time_us, 7.0 + 0.875 * 8e8 / 1e5, 1e-6);
    /* one GPU: no bus bandwidth */
    sc_model_collective(&t, &sc_coll_allreduce, 1e6, 1, 1, &p);
    SC_EXPECT(p.busbw_GBps == 0.0 && strcmp(p.algorithm, "local") == 0);
    /* ... and under a GPU library a kernel's launch, not the link's latency, hidden under a
     * device copy at 0.88 of half the memory's peak once the copy is longer (an H200's 4814
     * GB/s by NVML: 1 GiB in 505 us and 16 MiB in 8.3 us as measured, docs/REFERENCE.md §3.3);
     * the host path keeps its latency and adds the whole copy */
    sc_topology_t one = t;
    one.gpu_memory_GBps = 4814;
    one.intra_latency_us = 2;
    one.cal_intra.n = one.cal_inter.n = 0;
    one.library = SC_LIB_nccl;
    sc_model_collective(&one, &sc_coll_allreduce, 4, 1, 1, &p);
    SC_EXPECT_NEAR(p.time_us, 5.0, 1e-9);
    sc_model_collective(&one, &sc_coll_allreduce, 16777216.0, 1, 1, &p);
    SC_EXPECT(p.time_us > 7.5 && p.time_us < 8.5);
    sc_model_collective(&one, &sc_coll_allreduce, 1073741824.0, 1, 1, &p);
    SC_EXPECT_NEAR(p.time_us, 1073741824.0 / (0.88 * 4814 / 2 * 1e3), 1e-6);
    SC_EXPECT(p.time_us > 480 && p.time_us < 530);
    one.library = SC_LIB_mpi;
    sc_model_collective(&one, &sc_coll_allreduce, 4, 1, 1, &p);
    SC_EXPECT_NEAR(p.time_us, 2.0 + 4 / (4814 / 2 * 1e3), 1e-6);
    /* NVLS beats the ring at large sizes when it has more bandwidth */
    t.nvls_mode = SC_NVLS_on;
    t.nvls_busbw_GBps = 200;
    sc_model_collective(&t, &sc_coll_allreduce, 1e9, 8, 1, &p);
    SC_EXPECT(strcmp(p.algorithm, "nvls") == 0);
    SC_EXPECT(p.busbw_GBps > 150 && p.busbw_GBps <= 200);
    t.nvls_mode = SC_NVLS_off;
    /* across nodes the node's NICs (100 GB/s) bound the ring: busbw <= 100 */
    t.gpu_bandwidth_GBps = 300;
    sc_model_collective(&t, &sc_coll_allreduce, 4e9, 8, 4, &p);
    SC_EXPECT(p.busbw_GBps <= 100.0 + 1e-9 && p.busbw_GBps > 90.0);
    /* small messages across many nodes: the tree's log latency wins */
    sc_model_collective(&t, &sc_coll_allreduce, 8, 8, 64, &p);
    SC_EXPECT(strcmp(p.algorithm, "tree") == 0);
    /* busbw grows with size */
    double last = 0;
    for (double s = 1e3; s <= 1e9; s *= 10) {
        sc_model_collective(&t, &sc_coll_allreduce, s, 8, 1, &p);
        SC_EXPECT(p.busbw_GBps > last);
        last = p.busbw_GBps;
    }

    /* A DP workload without communication cost (overlapped): linear; without overlap: less. */
    sc_workload_t w;
    memset(&w, 0, sizeof(w));
    strcpy(w.name, "synthetic");
    w.parameters = 1e8;
    w.layers = 10;
    w.hidden = 1024;
    w.sequence = 128;
    w.micro_batch = 8;
    w.per_gpu_batch = 8;
    w.tp = w.pp = 1;
    w.top_k = 1;
    w.capacity_factor = 1;
    w.bucket_mb = 25;
    w.compute_mode = SC_COMPUTE_FLOPS;
    w.gpu_tflops = 100;
    w.efficiency = 0.5;
    sc_step_prediction_t a, b;
    sc_err_t err;
    w.overlap = true;
    SC_EXPECT(sc_model_step(&t, &w, 1, 1, 1, 1, &a, &err) == SC_OK);
    SC_EXPECT(sc_model_step(&t, &w, 8, 1, 1, 1, &b, &err) == SC_OK);
    SC_EXPECT_NEAR(b.throughput / a.throughput, 8.0, 0.8); /* overlap hides most of it */
    /* a host whose started collectives barely move while it computes hides less of them */
    sc_step_prediction_t half, none;
    t.overlap = 0.5;
    SC_EXPECT(sc_model_step(&t, &w, 8, 1, 1, 1, &half, &err) == SC_OK);
    t.overlap = 0.0;
    SC_EXPECT(sc_model_step(&t, &w, 8, 1, 1, 1, &none, &err) == SC_OK);
    t.overlap = 1.0;
    SC_EXPECT(half.step_ms >= b.step_ms && none.step_ms > half.step_ms);
    w.overlap = false;
    SC_EXPECT(sc_model_step(&t, &w, 8, 1, 1, 1, &b, &err) == SC_OK);
    SC_EXPECT(b.comm_ms > 0 && b.throughput / a.throughput < 8.0);
    /* a layout that does not fit is refused */
    w.tp = 3;
    SC_EXPECT(sc_model_step(&t, &w, 8, 1, 1, 1, &b, &err) == SC_ERR_USAGE);
    protocols();
    mpi_model();
    symmetric();
    net_hop();
    measured_compute();
    return sc_test_done("test_model");
}
