/* sc_json_out.h - result documents written to files: JSON, and CSV rows. */
#ifndef SC_JSON_OUT_H
#define SC_JSON_OUT_H

#include <jansson.h>

#include "util/sc_status.h"

/* Writes root as JSON to path, whole or not at all. */
sc_status_t sc_json_write_file(const char *path, json_t *root, sc_err_t *err);

/* rows (an array of objects) as CSV: a header of fields, then one line per row (strings,
 * numbers, booleans; absent keys empty). Written whole or not at all. */
sc_status_t sc_csv_write_rows(const char *path, const json_t *rows, const char *const *fields,
                              sc_err_t *err);

#endif
