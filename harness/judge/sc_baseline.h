/* sc_baseline.h - baselines built from known-good results and results held to them. Every
 * result names its figures the same way (a collective case and a sweep size by time, a point
 * of the scaling curve by step time, a pair by bandwidth and latency), keyed by what ran and on
 * how many ranks and hosts; a baseline keeps per figure the median of the known-good runs, its
 * spread and where it came from. A figure that drops beyond the baseline's own spread (or its
 * tolerance, whichever is larger) is a WARN, beyond twice that a FAIL; and when the run's
 * figures sit off their baseline all together, a whole-run WARN says so - the machine was slow
 * for the whole run, which no in-run interval can see. */
#ifndef SC_BASELINE_H
#define SC_BASELINE_H

#include "record/sc_result.h"
#include "util/sc_status.h"

typedef struct {
    char key[192];
    char metric[24];
    double value;
    bool higher_is_better;
    int run; /* index of the result it came from */
} sc_figure_t;
typedef SC_LIST(sc_figure_t) sc_figures_t;

/* Appends r's figures to out, each tagged with run. SC_ERR_NOMEM when memory is short. */
sc_status_t sc_result_figures(const sc_result_t *r, int run, sc_figures_t *out, sc_err_t *err);

/* The baseline of n known-good results (dirs[i]: where result i was read from), with a least
 * tolerance. SC_ERR_INPUT when there are too many results or no figure in them. */
sc_status_t sc_baseline_build(const sc_result_t *docs, const char *const *dirs, size_t n,
                              double tolerance, sc_baseline_t *out, sc_err_t *err);

/* b's point for a key and metric, or NULL (b's points sorted, as built and as loaded). */
const sc_baseline_point_t *sc_baseline_find(const sc_baseline_t *b, const char *key,
                                            const char *metric);

/* Sorts b's points by key and metric (for sc_baseline_find). */
void sc_baseline_sort(sc_baseline_t *b);

/* r held to b: a check per figure of r that b has (source "baseline"), and the whole-run check
 * when two or more matched. Returns how many matched. */
size_t sc_verdict_baseline(const sc_baseline_t *b, const sc_result_t *r, sc_checks_t *checks);

#endif
