/* sc_nccl_log.h - what NCCL's own INFO log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET) says of
 * one rank's traffic through the network: the devices its network plugin uses ("NET/IB : Using
 * [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ...", "NET/Socket : Using [0]eth0:10.0.0.1<0>") and each
 * connection it made ("Channel 00/1 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA": NCCL's
 * src/transport/net.cc; "(N)" after the device when a proxy rank sends for it, "/GDRDMA" when
 * the NIC reads and writes GPU memory itself). How admins learn which NIC NCCL chose and whether
 * GPUDirect RDMA is on (nccl#988, perftest#241). */
#ifndef SC_NCCL_LOG_H
#define SC_NCCL_LOG_H

#include <stdbool.h>

#define SC_NCCL_LOG_NICS 32

typedef struct {
    char net[16];   /* the network plugin: "IB", "Socket" (empty: no connection found) */
    char nic[32];   /* the device of the first send connection, as the plugin names it
                       ("mlx5_0"; "dev 3" when the log did not list the devices) */
    int nic_index;  /* its index in the plugin's list; -1: no connection found */
    int sends;      /* send connections to the peer through the network */
    int gdr_sends;  /* those with GPUDirect RDMA */
    int other_nics; /* those through another device than the first's */
} sc_nccl_net_use_t;

/* Reads the connections rank (its rank in the communicator) sent to peer on through the network,
 * from the log's text. Returns false when it holds none (out->nic_index -1). */
bool sc_nccl_log_net(const char *text, int rank, int peer, sc_nccl_net_use_t *out);

#endif
