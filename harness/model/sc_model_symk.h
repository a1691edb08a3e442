/* sc_model_symk.h - NCCL's symmetric-memory kernels priced as NCCL's cost model for them
 * (sc_model_symk.c): for runs whose buffers are registered as symmetric windows (nccl-tests
 * -R 2; `model`/`judge --symmetric`). */
#ifndef SC_MODEL_SYMK_H
#define SC_MODEL_SYMK_H

#include <stdbool.h>

#include "coll/sc_coll.h"
#include "topology/sc_topology.h"

/* Whether the run's collective goes through a symmetric kernel: NCCL, symmetric buffers, one node
 * whose GPUs all reach each other over NVLink, compute capability 9.0 or later, an all-reduce,
 * all-gather or reduce-scatter. */
bool sc_model_symk_applies(const sc_topology_t *t, const sc_coll_t *coll, int gpus, int nodes);
/* The time (us) of the kernel NCCL picks for size_bytes (nccl-tests' size) on gpus GPUs. */
double sc_model_symk_us(const sc_topology_t *t, const sc_coll_t *coll, double size_bytes, int gpus);

#endif
