/* sc_compare_report.h - `scalecheck compare` for people and programs: the ranked table on the
 * terminal (or as Markdown, for docs/compare.md), compare.csv, compare.json and compare.html with
 * the overlaid efficiency curves and busbw sweeps (gnuplot), every name escaped. */
#ifndef SC_COMPARE_REPORT_H
#define SC_COMPARE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "record/sc_compare.h"

/* "total = (3 scaling + 2 throughput + ...) / 10, over the dimensions a system has figures for" */
void sc_compare_formula(const sc_weights_t *w, char *buf, size_t len);
void sc_compare_print(FILE *out, const sc_compare_systems_t *s, const sc_weights_t *w,
                      bool markdown);
/* compare.csv, compare.json, compare.html (and its plots) into dir; head: what ran. */
sc_status_t sc_compare_write(const char *dir, const sc_compare_systems_t *s, const sc_weights_t *w,
                             const sc_kvs_t *head, sc_err_t *err);
sc_status_t sc_json_write_compare(const char *path, const sc_compare_systems_t *s,
                                  const sc_weights_t *w, const sc_kvs_t *head, sc_err_t *err);

#endif
