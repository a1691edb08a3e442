/* sc_json_build.h - inside the JSON module (report/sc_json_*.c) only: records to jansson
 * values, and a value written to a file. */
#ifndef SC_JSON_BUILD_H
#define SC_JSON_BUILD_H

#include <jansson.h>

#include "record/sc_result.h"
#include "util/sc_status.h"

/* One record's fields as an object (absent optional fields left out). */
json_t *sc_json_record(const void *record, const sc_field_t *fields);
/* n records as an array of objects. */
json_t *sc_json_records(const void *items, size_t n, size_t elem_size, const sc_field_t *fields);
/* Named values as an object; a key "a/b" goes into the object "a" under "b". */
json_t *sc_json_kvs(const sc_kvs_t *kvs);
/* An n x n matrix as an array of rows. */
json_t *sc_json_matrix(const double *m, int n);
/* The hosts' telemetry as an array. */
json_t *sc_json_health(const sc_health_t *hosts, int n);
/* {"checks", "pass", "warn", "fail", "verdict"} of a tally. */
json_t *sc_json_tally(sc_tally_t t);
/* Writes v as JSON to path (indented, 15 significant digits), whole or not at all, and drops
 * v. */
sc_status_t sc_json_write_new(const char *path, json_t *v, sc_err_t *err);

#endif
