/* sc_localize.h - where a fabric problem is, from a point-to-point bandwidth matrix: a node
 * whose every pair is slow is a node/NIC problem; a single slow pair between healthy nodes is a
 * link/route problem. Pure arithmetic on the matrix, tested on synthetic ones. */
#ifndef SC_LOCALIZE_H
#define SC_LOCALIZE_H

#include "record/sc_record.h"
#include "topology/sc_switches.h"

/* bw[i * n + j]: GB/s from i to j (diagonal ignored); measured[i * n + j] > 0 where the pair was
 * measured (NULL: every pair was; a search strategy measures few). reference: what a healthy
 * pair should reach (the topology's expectation, or 0 to use the median of what was measured).
 * A pair is slow when either direction is below (1 - tolerance) x reference; a node is a
 * suspect when at least 3/4 of its measured pairs (and at least 2) are slow. names[i] labels node
 * i. Fills out: the reference, the fastest direction of any pair (best_GBps), the slow pairs, the
 * suspects (a node, or a link) with their evidence, and a note when the median may not be a fair
 * reference (free it with sc_localization_free).
 * leaves (NULL: none): the switch map; where at least 3/4 (and 2) of the pairs between two
 * leaves are slow, the switches are the suspect - a leaf's uplinks when it is slow with every
 * other leaf (two or more), else the path between the two - and those pairs make no node or
 * link suspect. */
void sc_localize(const double *bw, const int *measured, int n, const char *const *names,
                 double reference, double tolerance, const sc_leaves_t *leaves,
                 sc_localization_t *out);

#endif
