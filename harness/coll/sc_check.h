/* sc_check.h - the exact data check on the host (docs/REFERENCE.md §1): each rank's input is a
 * function of (seed, rank, index) whose reductions are exact (sc_check_core.h), and each rank
 * computes its own expected result locally, so no data is exchanged to check. GPU backends run the
 * same arithmetic in kernels. */
#ifndef SC_CHECK_H
#define SC_CHECK_H

#include <stdint.h>

#include "coll/sc_check_core.h"
#include "coll/sc_coll.h"
#include "util/sc_dtype.h"

/* Fills spec for a type, reduction, seed and rank count (computes the value bound). */
void sc_check_spec_init(sc_check_spec_t *spec, sc_dtype_t dtype, sc_redop_t op, uint64_t seed,
                        int nranks);

/* Writes count input elements of `rank`, starting at element `first`, into host buffer buf. */
void sc_check_fill(const sc_check_spec_t *spec, int rank, uint64_t first, void *buf, size_t count);

/* Counts elements of host buffer `result` (count of them, sources src) that differ from the
 * expected ones. */
uint64_t sc_check_count_wrong(const sc_check_spec_t *spec, const sc_src_t *src, const void *result,
                              size_t count);

#endif
