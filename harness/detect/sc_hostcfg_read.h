/* sc_hostcfg_read.h - this host's configuration, as preflight compares hosts (the record is
 * record/sc_hostcfg.h), and every host's gathered to rank 0. */
#ifndef SC_HOSTCFG_READ_H
#define SC_HOSTCFG_READ_H

#include "record/sc_hostcfg.h"
#include "rte/sc_rte.h"
#include "util/sc_status.h"

/* Reads what this rank sees of its host. */
void sc_hostcfg_read(const sc_rte_t *rte, sc_hostcfg_t *out);

/* Every host's record on rank 0 (one per host, read by its first rank - local rank 0 - alone;
 * in host order; *hosts NULL elsewhere, free it), gathered in one MPI_Gather of fixed-size
 * records. Collective. */
sc_status_t sc_hostcfg_gather(const sc_rte_t *rte, sc_hostcfg_t **hosts, int *nhosts,
                              sc_err_t *err);

#endif
