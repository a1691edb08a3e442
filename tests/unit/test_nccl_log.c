/* test_nccl_log.c - NCCL's INFO log read for the NIC a rank's sends went through and whether
 * GPUDirect RDMA carried them (ingest/sc_nccl_log.h), in the line formats of NCCL's own
 * src/transport/net.cc and net_ib/init.cc: a device list, plain, proxied and shared
 * connections, other ranks' lines, a socket network and a log with no network at all. */
#include <string.h>

#include "ingest/sc_nccl_log.h"
#include "sc_test.h"

static const char ib_log[] =
    "[2026-12-07 09:00:00] node1:4242:4242 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>\n"
    "node1:4242:4250 [2] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB "
    "[3]mlx5_3:1/IB [RO]; OOB eth0:10.0.0.1<0>\n"
    "node1:4242:4250 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via P2P/CUMEM\n"
    "node1:4242:4250 [2] NCCL INFO Channel 00/1 : 1[1] -> 2[2] [receive] via NET/IB/2/GDRDMA\n"
    "node1:4242:4250 [2] NCCL INFO Channel 00/1 : 2[2] -> 3[3] [send] via NET/IB/2/GDRDMA\n"
    "node1:4242:4250 [2] NCCL INFO Channel 01/1 : 2[2] -> 3[3] [send] via "
    "NET/IB/2(3)/GDRDMA/Shared\n"
    "node1:4242:4250 [2] NCCL INFO Channel 00/1 : 5[5] -> 6[6] [send] via NET/IB/0/GDRDMA\n";

static void ib(void)
{
    sc_nccl_net_use_t use;
    SC_EXPECT(sc_nccl_log_net(ib_log, 2, 3, &use));
    SC_EXPECT(strcmp(use.net, "IB") == 0);
    SC_EXPECT(strcmp(use.nic, "mlx5_2") == 0);
    SC_EXPECT_EQ_U64(use.nic_index, 2);
    SC_EXPECT_EQ_U64(use.sends, 2);
    SC_EXPECT_EQ_U64(use.gdr_sends, 2);
    SC_EXPECT_EQ_U64(use.other_nics, 0);
    /* a receive is not a send; another rank's send is not this one's */
    SC_EXPECT(!sc_nccl_log_net(ib_log, 2, 1, &use));
    SC_EXPECT(use.nic_index == -1);
    SC_EXPECT(sc_nccl_log_net(ib_log, 5, 6, &use) && strcmp(use.nic, "mlx5_0") == 0);
}

static void staged_and_spread(void)
{
    const char text[] =
        "h:1:2 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.1.0.1<0>\n"
        "h:1:2 [1] NCCL INFO Channel 00/1 : 1[1] -> 0[0] [send] via NET/IB/1\n"
        "h:1:2 [1] NCCL INFO Channel 01/1 : 1[1] -> 0[0] [send] via NET/IB/0/GDRDMA(PCI)\n";
    sc_nccl_net_use_t use;
    SC_EXPECT(sc_nccl_log_net(text, 1, 0, &use));
    SC_EXPECT(strcmp(use.nic, "mlx5_1") == 0);
    SC_EXPECT_EQ_U64(use.sends, 2);
    SC_EXPECT_EQ_U64(use.gdr_sends, 1); /* the first channel staged through host memory */
    SC_EXPECT_EQ_U64(use.other_nics, 1);
}

static void sockets_and_none(void)
{
    const char sock[] = "h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> "
                        "[1]eth1:10.0.1.1<0>\n"
                        "h:1:2 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[0] [send] via NET/Socket/1\n";
    sc_nccl_net_use_t use;
    SC_EXPECT(sc_nccl_log_net(sock, 0, 1, &use));
    SC_EXPECT(strcmp(use.net, "Socket") == 0 && strcmp(use.nic, "eth1") == 0);
    SC_EXPECT_EQ_U64(use.gdr_sends, 0);
    /* a device the log never listed is named by its index */
    const char unlisted[] = "h:1:2 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] [send] via NET/IB/3\n";
    SC_EXPECT(sc_nccl_log_net(unlisted, 0, 1, &use) && strcmp(use.nic, "dev 3") == 0);
    const char shm[] = "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n";
    SC_EXPECT(!sc_nccl_log_net(shm, 0, 1, &use));
    SC_EXPECT(!sc_nccl_log_net("", 0, 1, &use));
}

int main(void)
{
    ib();
    staged_and_spread();
    sockets_and_none();
    return sc_test_done("test_nccl_log");
}
