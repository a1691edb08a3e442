/* sc_coll_report.h - how collective results look on the terminal:
 * the nccl-tests-style table rank 0 prints (the rows' JSON and CSV: report/sc_json_out.h). */
#ifndef SC_COLL_REPORT_H
#define SC_COLL_REPORT_H

#include "engine/sc_engine.h"
#include "session/sc_results.h"

/* Column titles (nccl-tests layout; with_iters adds the iteration counts -n auto chose). */
void sc_coll_report_table_header(sc_results_t *res, bool with_iters);
/* One table row: the out-of-place and the in-place result of one size (NULL: not run). */
void sc_coll_report_table_row(sc_results_t *res, const sc_case_t *c,
                              const sc_case_result_t *out_of_place,
                              const sc_case_result_t *in_place, bool with_iters);

#endif
