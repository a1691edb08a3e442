/* sc_report_busbw.h - busbw.svg's data and plot command: a curve a collective, each point the
 * median of the cases measured at one size (report module only: others use sc_report.h). */
#ifndef SC_REPORT_BUSBW_H
#define SC_REPORT_BUSBW_H

#include <stddef.h>

#include "record/sc_record.h"
#include "util/sc_status.h"

/* The most curves one plot draws (a collective each): cases of further collectives - only a
 * planted or foreign result names more than the nine scalecheck runs - are left out of it. */
#define SC_REPORT_BUSBW_CURVES 12

/* stage/busbw.dat from rows, and into commands (size bytes) the plot command that draws it; the
 * number of curves, 0 when no row has a bus bandwidth (nothing written), -1 on error (err). */
int sc_report_busbw_curves(const char *stage, const sc_case_row_t *rows, size_t n, char *commands,
                           size_t size, sc_err_t *err);

#endif
