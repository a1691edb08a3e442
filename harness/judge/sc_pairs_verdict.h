/* sc_pairs_verdict.h - what the point-to-point matrix means: where a problem is, and a check
 * per pair. */
#ifndef SC_PAIRS_VERDICT_H
#define SC_PAIRS_VERDICT_H

#include "record/sc_result.h"

/* The measured matrices, n x n, entry [i * n + j] from participant i to j. */
typedef struct {
    int n;
    const double *uni, *bidir, *lat; /* GB/s one way (best look), GB/s both ways, us */
    const int *looks;
} sc_pairs_view_t;

/* Localises (judge/sc_localize.h) and adds to doc a row and a check per pair, in the same
 * order: a slow pair FAILs whatever the WARN band says; a doubtful reference (the matrix's
 * median, when no expectation is given) adds a WARN check. expected: GB/s from the topology,
 * or 0 for the median. */
void sc_pairs_judge(const sc_pairs_view_t *m, const char *const *names, double expected,
                    double tolerance, sc_result_t *doc);

#endif
