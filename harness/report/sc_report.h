/* sc_report.h - what a person looks at after a run, made from the run's result.json alone (so
 * `scalecheck report DIR` re-renders any finished run): summary.json (the verdict and the
 * headline numbers), junit.xml (one test case per check), plots rendered by gnuplot (speedup vs
 * GPUs: ideal, expected, measured; busbw vs size: expected and measured) and a self-contained
 * report.html; and the point-by-point comparison of two runs. */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include "record/sc_result.h"
#include "util/sc_status.h"

/* Renders dir's outputs from the run's result record. Missing gnuplot is noted in
 * summary.json, not an error. */
sc_status_t sc_report_render(const char *dir, const sc_result_t *r, sc_err_t *err);

/* Compares run b against run a (same command): per point the main figure's ratio b/a, a
 * regression when it falls below 1 - tolerance. Prints the table; *regressions counts them. */
sc_status_t sc_report_compare(const sc_result_t *a, const sc_result_t *b, double tolerance,
                              int *regressions, sc_err_t *err);

#endif
