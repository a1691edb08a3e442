/* sc_report_core.h - what the report's parts share inside the report module: gnuplot run on a
 * script, the plots' style, an SVG inlined into the page; and the soak's part of the report
 * (sc_soak_report.c). Not for other modules: they use sc_report.h. */
#ifndef SC_REPORT_CORE_H
#define SC_REPORT_CORE_H

#include <stdbool.h>
#include <stdio.h>

#include "record/sc_result.h"
#include "record/sc_soak.h"

/* Plots are drawn in a stage: a folder made exclusively inside dir (mkdtemp), where the data
 * files are written and gnuplot runs (its .svg and gnuplot.err land there), then moved into dir
 * by rename - which replaces whatever is at the name, a planted symbolic link included, and never
 * writes through it. open: false (and why) when the folder cannot be made. */
bool sc_report_stage_open(const char *dir, char *stage, size_t len, char *why, size_t why_len);
void sc_report_stage_close(const char *stage, const char *dir);
/* Runs gnuplot on script in stage; false (and why) when it is not there or fails. */
bool sc_report_gnuplot(const char *stage, const char *script, char *why, size_t len);
/* text as a gnuplot single-quoted string, quotes included: no backquote, macro or backslash
 * processing happens inside one (gnuplot's "quote marks"); a quote doubled, control characters
 * as spaces. Cut to fit len. */
void sc_report_gnuplot_text(char *buf, size_t len, const char *text);
extern const char *const sc_report_plot_style;
/* dir/file (an SVG) copied into the page, without its XML declaration. */
void sc_report_html_file(FILE *out, const char *dir, const char *file);
/* A field's name as a column's header: words and its unit ("expected_busbw_GBps" ->
 * "expected busbw (GB/s)"). */
void sc_report_header(const char *name, char *out, size_t len);

/* The soak's time series (soak.dat, a row a cycle) and its plots over hours: GPU and CPU
 * temperature, GPU power, the largest sweep size's busbw, the training step time; their names
 * into plots (room for SC_SOAK_PLOTS); how many were drawn. */
#define SC_SOAK_PLOTS 4
int sc_soak_plots(const char *dir, const sc_soak_cycles_t *cycles, const char **plots, char *why,
                  size_t len);
/* A row a cycle in the page (nothing without cycles). */
void sc_soak_html_cycles(FILE *out, const sc_soak_cycles_t *cycles);

/* A pairs run's suspects and its matrix as a heatmap, for the top of the page (sc_pairs_html.c;
 * nothing for another command). No heatmap past SC_PAIRS_HTML_MAX participants. */
#define SC_PAIRS_HTML_MAX 64
void sc_pairs_html(FILE *out, const sc_result_t *r);

#endif
