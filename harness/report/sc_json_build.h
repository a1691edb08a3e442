/* sc_json_build.h - inside the JSON module (report/sc_json_*.c) only: records to jansson
 * values, and a value written to a file. */
#ifndef SC_JSON_BUILD_H
#define SC_JSON_BUILD_H

#include <jansson.h>

#include "record/sc_result.h"
#include "json/sc_json_check.h"
#include "util/sc_status.h"

/* One record's fields as an object (absent optional fields left out). */
json_t *sc_json_record(const void *record, const sc_field_t *fields);
/* n records as an array of objects. */
json_t *sc_json_records(const void *items, size_t n, size_t elem_size, const sc_field_t *fields);
/* The same list as a mark that the writer (sc_json_write_new) renders a record at a time, so
 * that a long list is never a tree: items must live until the document is written, and the
 * document goes nowhere else. */
json_t *sc_json_rows(const void *items, size_t n, size_t elem_size, const sc_field_t *fields);
/* The lines of the file at path (a JSON object each, sc_json_append_row's) as a list, copied
 * where the mark is when the document is written: path must live until then. */
json_t *sc_json_file_rows(const char *path);
/* The file at path as a top-level key's list (sc_json_joined_put's elements), taken in as it is
 * where the mark is: path must live until then. */
json_t *sc_json_joined_rows(const char *path);
/* The list a source writes when the document is written, where the mark is; source must live
 * until then. */
json_t *sc_json_source_rows(const sc_list_source_t *source);
/* r's verdict (sc_json_tally) as it is when the writer reaches it: after the
 * rows a source wrote, whose checks it counts. */
json_t *sc_json_tally_later(const sc_result_t *r);
/* A run that did not reach its end (killed, or still running) keeps its rows in the journal its
 * result.json names (sc_result_t.journal), in dir: its lines appended to rows. A torn last line
 * - the run was stopped while writing it - is left out; any other line that is not a row is
 * refused (src names the document); no journal at all is no rows. */
bool sc_json_journal_read(sc_json_src_t *src, const char *dir, const char *name,
                          sc_case_rows_t *rows);
/* Named values as an object; a key "a/b" goes into the object "a" under "b". */
json_t *sc_json_kvs(const sc_kvs_t *kvs);
/* An n x n matrix as an array of rows. */
json_t *sc_json_matrix(const double *m, int n);
/* The hosts' telemetry as an array. */
json_t *sc_json_health(const sc_health_t *hosts, int n);
/* {"checks", "pass", "warn", "fail", "verdict"} of r: its tally and its verdict
 * (sc_result_verdict). */
json_t *sc_json_tally(const sc_result_t *r);
/* Writes v as JSON to path (indented, 15 significant digits), whole or not at all, and drops
 * v. */
sc_status_t sc_json_write_new(const char *path, json_t *v, sc_err_t *err);

#endif
