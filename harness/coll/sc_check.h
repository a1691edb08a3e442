/* sc_check.h - the exact data check (REFERENCE §1): each rank's input is a function of
 * (seed, rank, index) chosen so that every reduction is exactly representable; each rank
 * computes its own expected result locally, so no data is exchanged to check. */
#ifndef SC_CHECK_H
#define SC_CHECK_H

#include <stdint.h>

#include "coll/sc_coll.h"

typedef struct {
    sc_dtype_t dtype;
    sc_redop_t op;
    uint64_t seed;
    int nranks;
} sc_check_spec_t;

/* The input value of element `index` on `rank`. Integer-valued; for sum/avg |value| <=
 * max/nranks (so sums fit); for prod 1 or 2 with at most 6 twos per element across ranks. */
double sc_check_value(const sc_check_spec_t *spec, int rank, uint64_t index);

/* Writes count input elements of `rank`, starting at element `first`, into host buffer buf. */
void sc_check_fill(const sc_check_spec_t *spec, int rank, uint64_t first, void *buf, size_t count);

/* The reduction of element `index` over all ranks, as the result type holds it. */
double sc_check_reduced(const sc_check_spec_t *spec, uint64_t index);

/* Counts result elements (host buffer `result`, shape s, collective coll) that differ from
 * the expected ones. Tolerance is 0 except for avg on floats (relative 1e-6) and on integers
 * (1, for libraries that round rather than truncate). */
uint64_t sc_check_count_wrong(const sc_check_spec_t *spec, const sc_coll_t *coll,
                              const sc_coll_shape_t *s, const void *result);

#endif
