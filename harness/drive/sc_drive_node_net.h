/* sc_drive_node_net.h - node's transfers through the NICs (sc_drive_node_net.c), inside the drive
 * layer's node command only. */
#ifndef SC_DRIVE_NODE_NET_H
#define SC_DRIVE_NODE_NET_H

#include <stdbool.h>

#include "comm/sc_backend.h"
#include "detect/sc_pci_tree.h"
#include "drive/sc_drive_node.h"
#include "record/sc_record.h"
#include "rte/sc_rte.h"

/* Before the session opens (NCCL reads its parameters once, at its first communicator): NCCL's
 * peer-to-peer and shared-memory transports off, so that its network path carries every peer,
 * and its INFO log of INIT and NET to a file of this process's (nothing with o->no_nics or on
 * one rank). */
void sc_node_net_prepare(const sc_drive_node_opts_t *o, const sc_rte_t *rte);
/* The log removed, however node ended. */
void sc_node_net_finish(void);

/* Whether the transfers run: with NCCL on at least two ranks, unless o->no_nics. The same on
 * every rank. */
bool sc_node_net_wanted(const sc_drive_node_opts_t *o, const sc_comm_t *world);

/* This rank's GPU memory to its peer's through their NICs while its other peer's comes in (the
 * same GPU of the next host and of the one before, a rail; on one host, the next rank and the one
 * before), o->trials back to back timed on the device, the best of three batches after one
 * untimed; and what NCCL's log says it
 * chose: row filled (kind "nic"; its level the placement's and GPUDirect's), *made false where
 * this rank had no peer. Collective over world. */
sc_status_t sc_node_net_measure(const sc_drive_node_opts_t *o, const sc_rte_t *rte,
                                sc_comm_t *world, const sc_pci_tree_t *t, sc_node_row_t *row,
                                bool *made, sc_err_t *err);

#endif
