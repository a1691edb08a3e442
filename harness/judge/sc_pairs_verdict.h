/* sc_pairs_verdict.h - what the point-to-point matrix means: where a problem is, and a check
 * per pair. */
#ifndef SC_PAIRS_VERDICT_H
#define SC_PAIRS_VERDICT_H

#include "record/sc_result.h"
#include "topology/sc_switches.h"

/* The measured matrices, n x n, entry [i * n + j] from participant i to j. */
typedef struct {
    int n;
    const double *uni, *bidir, *lat; /* GB/s one way (best look), GB/s both ways, us */
    const int *looks;
    const sc_leaves_t *leaves; /* the switch map, or NULL */
    double group_reference;    /* busbw the bisect groups (doc->groups) were held to */
} sc_pairs_view_t;

/* Localises (judge/sc_localize.h) and adds to doc a row and a check per pair, in the same
 * order: a slow pair FAILs whatever the WARN band says; a doubtful reference (the matrix's
 * median, when no expectation is given) adds a WARN check. expected: GB/s from the topology,
 * or 0 for the median. The bisect groups already in doc->groups get a check each (a slow one
 * FAILs) and a slow group with nothing slow inside it - no slow half, no slow pair - is a
 * suspect of its own: the link that made it slow runs between its halves. */
void sc_pairs_judge(const sc_pairs_view_t *m, const char *const *names, double expected,
                    double tolerance, sc_result_t *doc);

#endif
