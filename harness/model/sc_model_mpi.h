/* sc_model_mpi.h - an MPI library's collectives priced by its own algorithms and its eager and
 * rendezvous protocols (sc_model_mpi.c): the model (sc_model.c) uses it for the host path on
 * declared figures and for OSU's runs; a calibrated topology keeps its measured regimes. */
#ifndef SC_MODEL_MPI_H
#define SC_MODEL_MPI_H

#include <stdbool.h>

#include "coll/sc_coll.h"
#include "topology/sc_topology.h"

typedef struct {
    double time_us, latency_us;
    const char *algorithm; /* "recursive-doubling", "rabenseifner", "binomial", "ring", ... */
    const char *protocol;  /* "eager", or "rendezvous" where a message went by it */
} sc_mpi_price_t;

/* Whether MPI's algorithms price t's collectives: library mpi, no calibrated regimes. */
bool sc_model_mpi_applies(const sc_topology_t *t);
/* A collective of size_bytes (the convention of sc_coll_t) on gpus_per_node ranks a node. */
sc_mpi_price_t sc_model_mpi(const sc_topology_t *t, const sc_coll_t *coll, double size_bytes,
                            int gpus_per_node, int nodes);

#endif
