/* sc_json_out.h - the one module that writes JSON (and CSV): result documents, summaries and
 * the other commands' outputs, each rendered from its typed records and written whole or not
 * at all. */
#ifndef SC_JSON_OUT_H
#define SC_JSON_OUT_H

#include <stdio.h>

#include "record/sc_result.h"
#include "report/sc_plan_render.h"
#include "util/sc_status.h"

/* The whole result document (coll, run or pairs) as result.json. */
sc_status_t sc_json_write_result(const char *path, const sc_result_t *r, sc_err_t *err);

/* The final state of a run whose result document is on disk (written by the main thread before
 * it was stopped): path's state, reason and at_fault set, the rest kept; a document of just
 * those when there was none yet. For the watchdog's ending, which must not read the records the
 * main thread may be changing. */
sc_status_t sc_json_mark_end(const char *path, const char *command, const char *state,
                             const char *reason, const char *at_fault, sc_err_t *err);

/* summary.json: the verdict's tally (or "NONE" when nothing was judged), the plots drawn (and
 * why none, when gnuplot failed) and the headline facts of the run. */
sc_status_t sc_json_write_summary(const char *path, const sc_result_t *r, const char *const *plots,
                                  int nplots, const char *plots_note, sc_err_t *err);

/* One record as one line of JSON appended to out (a journal: path names it), flushed: a run that
 * is killed keeps every row written before. */
sc_status_t sc_json_append_row(FILE *out, const char *path, const void *record,
                               const sc_field_t *fields, sc_err_t *err);
/* An element of a list its producer writes (sc_list_source_t, record/sc_result.h). */
void sc_json_list_put(sc_list_out_t *l, const void *record, const sc_field_t *fields);
/* The same, unflushed: a file of a million rows written in big blocks (ferror says how it went). */
void sc_json_write_row(FILE *out, const void *record, const sc_field_t *fields);

/* The indent of a list's elements under a key of result.json's top object. */
#define SC_JSON_JOINED_INDENT 2
/* One record of a list written to a file of its own as result.json will hold it (n: the records
 * written so far): joined by the separator, so that sc_json_joined_rows takes the file in as it
 * is, copied in the kernel (a fleet's checks are hundreds of megabytes). Not a journal: a
 * torn end is not told from a whole one. */
void sc_json_joined_put(FILE *out, size_t *n, const void *record, const sc_field_t *fields);
/* n records of elem_size bytes as CSV: a header of the fields shown in CSV, then one line per
 * record (RFC 4180 quoting; absent figures empty). */
sc_status_t sc_csv_write_records(const char *path, const void *items, size_t n, size_t elem_size,
                                 const sc_field_t *fields, sc_err_t *err);

/* A list of records under a key of a document. */
typedef struct {
    const char *key;
    const void *items;
    size_t n, elem_size;
    const sc_field_t *fields;
} sc_json_list_t;

/* A document of named values and lists of records (`compute --json`, `model --json`). */
sc_status_t sc_json_write_lists(const char *path, const sc_kvs_t *head, const sc_json_list_t *lists,
                                int nlists, sc_err_t *err);

/* The step plan (`scalecheck plan --json`). */
sc_status_t sc_json_write_plan(const char *path, const sc_plan_view_t *v, sc_err_t *err);

/* Hosts' telemetry as a JSON array on out (`scalecheck telemetry`). */
int sc_json_print_health(FILE *out, const sc_health_t *hosts, int n);

/* The JSON library's version, for `scalecheck version`. */
const char *sc_json_library_version(void);

/* A baseline as a baseline file, whole or not at all. */
sc_status_t sc_json_write_baseline(const char *path, const sc_baseline_t *b, sc_err_t *err);

#endif
