/* sc_steady.h - the verdict on steadiness (sc_steady.c): a check a collective, its rows'
 * heaviest tail (p99 against the median) held to expect.steadiness_tolerance. */
#ifndef SC_STEADY_H
#define SC_STEADY_H

#include "judge/sc_verdict.h"

/* A row's p99 over its median, and its slowest look over the look kept, where each can be judged
 * (0 where not): the steadiness check holds each collective's largest. */
double sc_steady_tail_ratio(const sc_case_row_t *r);
double sc_steady_looks_ratio(const sc_case_row_t *r);

void sc_verdict_steadiness(const sc_topology_t *t, const sc_case_row_t *rows, size_t n,
                           sc_checks_t *checks);

#endif
