/* sc_report.h - what a person looks at after a run, made from the run's result.json alone (so
 * `scalecheck report DIR` re-renders any finished run): summary.json (the verdict and the
 * headline numbers), junit.xml (one test case per check), plots rendered by gnuplot (speedup vs
 * GPUs: ideal, expected, measured; busbw vs size: expected and measured) and a self-contained
 * report.html. */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include "record/sc_result.h"
#include "util/sc_status.h"

/* Renders dir's outputs from the run's result record: the plots, then every file of the one list
 * (report/sc_report_outputs.h). Missing gnuplot is noted in summary.json, not an error. */
sc_status_t sc_report_render(const char *dir, const sc_result_t *r, sc_err_t *err);

#endif
