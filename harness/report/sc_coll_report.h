/* sc_coll_report.h - how collective results look: the nccl-tests-style table rank 0 prints,
 * one JSON object per measured case, and CSV rows made from those JSON objects. */
#ifndef SC_COLL_REPORT_H
#define SC_COLL_REPORT_H

#include <jansson.h>

#include "engine/sc_engine.h"
#include "session/sc_results.h"

/* Column titles (nccl-tests layout; with_iters adds the iteration counts -n auto chose). */
void sc_coll_report_table_header(sc_results_t *res, bool with_iters);
/* One table row: the out-of-place and the in-place result of one size (NULL: not run). */
void sc_coll_report_table_row(sc_results_t *res, const sc_case_t *c,
                              const sc_case_result_t *out_of_place,
                              const sc_case_result_t *in_place, bool with_iters);

/* The JSON object of one case (fields listed in README "Results"). */
json_t *sc_coll_report_case_json(const sc_case_t *c, const sc_case_result_t *r, int nranks);

/* Writes the results array as CSV (a header row, then one row per case). */
sc_status_t sc_coll_report_write_csv(const char *path, json_t *results, sc_err_t *err);

#endif
