/* sc_digest.h - the few rows of a streamed result that its whole-run checks look at: for each
 * claim the first row that measured it, and each collective's heaviest tail and widest spread
 * between looks. The claims and steadiness checks over the digest's rows give what they give
 * over every row, so a fleet's million rows are judged a row at a time and never held. */
#ifndef SC_DIGEST_H
#define SC_DIGEST_H

#include "judge/sc_verdict.h"
#include "util/sc_coll_id.h"

typedef struct {
    const sc_topology_t *t;
    int gpus_per_node, nodes;
    size_t seen;
    /* the rows kept, each with its place in the stream (a row kept twice is one) */
    sc_case_rows_t rows;
    size_t *place;
    int *claim_row; /* t->nclaims: each claim's row in rows, -1 none yet */
    int tail[SC_COLL_COUNT], looks[SC_COLL_COUNT]; /* per collective, -1 none */
} sc_digest_t;

/* A digest of rows measured on gpus_per_node x nodes GPUs, held to t. False: no memory. */
bool sc_digest_init(sc_digest_t *d, const sc_topology_t *t, int gpus_per_node, int nodes);
/* row seen (after sc_verdict_case set its expectation); false: no memory. */
bool sc_digest_row(sc_digest_t *d, const sc_case_row_t *row);
/* The claims and steadiness checks over the rows seen, into checks; d freed. */
void sc_digest_finish(sc_digest_t *d, sc_checks_t *checks);

#endif
