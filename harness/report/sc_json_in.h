/* sc_json_in.h - the one module that reads JSON: a finished run's result.json back into the
 * result record, so that `scalecheck report` renders and compares records, as the run did;
 * and nccl-tests' own JSON, for `scalecheck judge`. */
#ifndef SC_JSON_IN_H
#define SC_JSON_IN_H

#include "record/sc_result.h"
#include "util/sc_status.h"

/* Loads dir/result.json into r (free it with sc_result_free). A file that is not JSON is an
 * SC_ERR_INPUT naming path:line:column; one that is not a scalecheck result says so. */
sc_status_t sc_json_load_result(const char *dir, sc_result_t *r, sc_err_t *err);

/* The same, for what a person is shown of it: at most `limit` rows and `limit` checks that
 * passed, an even spread (record/sc_shown.h), and every check that did not (up to `limit`);
 * the others are passed by unparsed and counted (r->cases_unlisted, r->unlisted). 0: all. */
sc_status_t sc_json_load_result_listed(const char *dir, sc_result_t *r, size_t limit,
                                       sc_err_t *err);

/* The same, its case rows (results and sweep) handed to row as they are read and never kept;
 * its checks counted (r->unlisted), not kept. The fields a figure needs are taken from a row's
 * text where they are plain; a row that is not plain is read whole, and refused if it is wrong.
 * row's false stops the read (its own error said why; the status is SC_ERR_NOMEM). The journal
 * of a run killed outright is not read: its rows are not handed on. */
typedef struct {
    bool (*row)(void *ctx, bool sweep, const sc_case_row_t *row);
    void *ctx;
} sc_json_cases_t;
sc_status_t sc_json_load_result_cases(const char *dir, sc_result_t *r, const sc_json_cases_t *to,
                                      sc_err_t *err);

/* A baseline file (report/sc_json_baseline.c) into b (free with sc_baseline_free); its points
 * in the file's order (sort them before looking one up). */
sc_status_t sc_json_load_baseline(const char *path, sc_baseline_t *b, sc_err_t *err);

#endif
