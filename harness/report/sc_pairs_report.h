/* sc_pairs_report.h - what `scalecheck pairs` makes of its matrices: the
 * heatmaps, a check per pair, the localisation's suspects and the verdict, the JSON and CSV. */
#ifndef SC_PAIRS_REPORT_H
#define SC_PAIRS_REPORT_H

#include <stdbool.h>

#include "pairs/sc_pairs.h"
#include "record/sc_result.h"
#include "session/sc_results.h"

#define SC_PAIRS_HEATMAP_MAX 32 /* wider matrices are for the JSON, the CSV and the HTML */

/* Rank 0: judges the matrix (the localisation, a check per pair), prints the heatmaps,
 * suspects and verdict to res, and puts the matrices, the pairs, the localisation and the
 * checks in doc (the bisect groups and their checks too; leaves: the switch map, or NULL).
 * Heatmaps only up to SC_PAIRS_HEATMAP_MAX participants. expected: GB/s from the topology, or 0 for
 * the matrix's median. Returns whether anything failed (a FAIL or a suspect). */
bool sc_pairs_report(sc_results_t *res, const sc_pairs_matrix_t *m, const char *const *names,
                     double expected, double tolerance, const sc_leaves_t *leaves,
                     sc_result_t *doc);

/* Traffic that collides (coll --concurrent, pairs --background and --bisection): the rows as
 * traffic.csv in the run directory (none: no file). */
sc_status_t sc_traffic_save_csv(const sc_results_t *res, const sc_traffic_rows_t *rows,
                                sc_err_t *err);
/* pairs.csv in the run directory, and at extra when not NULL: one row per pair. */
sc_status_t sc_pairs_save_csv(const sc_results_t *res, const char *extra,
                              const sc_pair_rows_t *rows, sc_err_t *err);

#endif
