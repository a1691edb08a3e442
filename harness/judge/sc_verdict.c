#include "sc_verdict.h"

#include <stdio.h>

#include "model/sc_model.h"

sc_check_t *sc_verdict_add(sc_checks_t *checks, const char *name, const char *metric,
                           double measured, double expected, double tolerance,
                           bool higher_is_better, const char *source)
{
    double ratio = 0;
    if (expected > 0 && measured > 0)
        ratio = higher_is_better ? measured / expected : expected / measured;
    /* WARN down to (1 - t)^2: one tolerance further, multiplicatively, so that a wide
     * tolerance never makes the FAIL band vanish. */
    double pass = 1.0 - tolerance, warn = pass * pass;
    sc_check_t *c = SC_LIST_PUSH(checks);
    if (c == NULL)
        return NULL;
    snprintf(c->name, sizeof(c->name), "%s", name);
    snprintf(c->metric, sizeof(c->metric), "%s", metric);
    snprintf(c->source, sizeof(c->source), "%s", source);
    c->measured = measured;
    c->expected = expected;
    c->ratio = ratio;
    c->tolerance = tolerance;
    c->higher_is_better = higher_is_better;
    c->level = ratio >= pass ? SC_LEVEL_PASS : ratio >= warn ? SC_LEVEL_WARN : SC_LEVEL_FAIL;
    return c;
}

void sc_verdict_case(const sc_topology_t *t, const sc_coll_t *coll, int gpus_per_node, int nodes,
                     const char *name, sc_case_row_t *row, sc_checks_t *checks)
{
    sc_prediction_t e;
    sc_model_collective(t, coll, (double)row->size_bytes, gpus_per_node, nodes, &e);
    row->expected_time_us = e.time_us;
    row->expected_busbw_GBps = e.busbw_GBps;
    snprintf(row->algorithm, sizeof(row->algorithm), "%s", e.algorithm);
    sc_verdict_add(checks, name, "time_us", row->time_us, e.time_us, t->tolerance, false, "model");
}
