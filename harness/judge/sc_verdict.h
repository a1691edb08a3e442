/* sc_verdict.h - every measured point held to its expectation: measured / expected, and
 * PASS (>= 1 - tolerance), WARN (>= (1 - tolerance)^2) or FAIL; the list becomes the verdict
 * table on the terminal, summary.json and junit.xml (one test case per check). */
#ifndef SC_VERDICT_H
#define SC_VERDICT_H

#include <stdbool.h>

#include "coll/sc_coll.h"
#include "record/sc_record.h"
#include "topology/sc_topology.h"

/* Adds one check to checks: higher_is_better for bandwidth, efficiency, speedup; false for
 * times. Returns the new check (NULL when memory is short). */
sc_check_t *sc_verdict_add(sc_checks_t *checks, const char *name, const char *metric,
                           double measured, double expected, double tolerance,
                           bool higher_is_better, const char *source);

/* A collective case held to t's model on gpus_per_node x nodes (the check `coll` and `judge`
 * both make): the row gets its expected time, busbw and algorithm, and checks a time check
 * called name (by time, which for a fixed size is the same test as by bandwidth). */
void sc_verdict_case(const sc_topology_t *t, const sc_coll_t *coll, int gpus_per_node, int nodes,
                     const char *name, sc_case_row_t *row, sc_checks_t *checks);

#endif
