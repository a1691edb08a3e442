/* sc_verdict.h - every measured point held to its expectation: measured / expected, and
 * PASS (>= 1 - tolerance), WARN (>= (1 - tolerance)^2) or FAIL; the list becomes the verdict
 * table on the terminal, summary.json and junit.xml (one test case per check). */
#ifndef SC_VERDICT_H
#define SC_VERDICT_H

#include <jansson.h>
#include <stdbool.h>

#include "util/sc_status.h"

typedef enum { SC_VERDICT_PASS, SC_VERDICT_WARN, SC_VERDICT_FAIL } sc_verdict_level_t;

/* Adds one check to the array `checks`: higher_is_better for bandwidth, efficiency, speedup;
 * false for times. Returns the level. */
sc_verdict_level_t sc_verdict_add(json_t *checks, const char *name, const char *metric,
                                  double measured, double expected, double tolerance,
                                  bool higher_is_better, const char *source);

/* {"pass": n, "warn": n, "fail": n, "verdict": "PASS"|"WARN"|"FAIL"} over checks. */
json_t *sc_verdict_summary(const json_t *checks);

#endif
