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

/* nccl-tests' -J output (report/sc_json_foreign.c) into out, as ingest/ reads its text. */
sc_status_t sc_json_load_nccl_tests(const char *path, sc_foreign_t *out, sc_err_t *err);

/* A baseline file (report/sc_json_baseline.c) into b (free with sc_baseline_free); its points
 * in the file's order (sort them before looking one up). */
sc_status_t sc_json_load_baseline(const char *path, sc_baseline_t *b, sc_err_t *err);

#endif
