/* sc_report_outputs.h - the one list of the files a run directory holds besides result.json,
 * walked by sc_report_render (report/sc_report.h): every ending of a measuring command (complete,
 * failed, ended by the watchdog: drive/sc_drive_end.c), `scalecheck report DIR` and `scalecheck
 * judge` write the same files.
 *
 * A report format: a writer `sc_NAME.c` with the signature below and its declaration `sc_NAME.h`
 * in report/, and one row of sc_report_outputs (sc_report_outputs.c). */
#ifndef SC_REPORT_OUTPUTS_H
#define SC_REPORT_OUTPUTS_H

#include <stdbool.h>

#include "record/sc_result.h"
#include "util/sc_status.h"

/* What every writer is given: the run directory, the document, and the plots drawn first (the
 * SVG files' names; why none were, when gnuplot could not). */
typedef struct {
    const char *dir;
    const sc_result_t *r;
    const char *const *plots;
    int nplots;
    const char *no_plots_why;
} sc_report_ctx_t;

typedef struct {
    const char *file; /* its name in the run directory */
    /* whether this document has it (NULL: every document) */
    bool (*wanted)(const sc_result_t *r);
    /* writes it whole at path (util/sc_files.h: whole or not at all) */
    sc_status_t (*write)(const char *path, const sc_report_ctx_t *x, sc_err_t *err);
} sc_report_output_t;

/* Ends with a row whose file is NULL. */
extern const sc_report_output_t sc_report_outputs[];

/* The writers of the list that live in report/sc_report.c (the page, and the plots it shows). */
sc_status_t sc_report_write_html(const char *path, const sc_report_ctx_t *x, sc_err_t *err);

#endif
