/* sc_compute_verdict.h - `scalecheck compute --mode gemm` judged: each GPU's TFLOP/s against
 * the median of its peers and, given a topology, against its peak x the share a large square
 * product reaches; and silent data corruption - every GPU of one model computed the same seeded
 * product, so their results must be equal bit for bit, and a sample of each must lie within the
 * type's rounding bound of the fp64 reference (compute/sc_compute.h). */
#ifndef SC_COMPUTE_VERDICT_H
#define SC_COMPUTE_VERDICT_H

#include "judge/sc_verdict.h"
#include "record/sc_record.h"
#include "topology/sc_topology.h"

/* rows[i] is rank i's, who[i] names it ("host h, rank 3: GPU 3 NVIDIA H200 (0000:...)");
 * t: the topology (NULL: no peak to hold them to). */
void sc_compute_verdict(const sc_compute_row_t *rows, const char (*who)[192], int n,
                        const sc_topology_t *t, sc_checks_t *checks);

#endif
