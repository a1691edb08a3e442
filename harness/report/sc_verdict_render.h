/* sc_verdict_render.h - the checks of a verdict (judge/sc_verdict.h) rendered. */
#ifndef SC_VERDICT_RENDER_H
#define SC_VERDICT_RENDER_H

#include <jansson.h>
#include <stdio.h>

#include "session/sc_results.h"
#include "util/sc_status.h"

/* The compact table (coloured when out is a terminal). */
void sc_verdict_print(FILE *out, FILE *log, const json_t *checks);

/* junit.xml: one <testcase> per check, failures for FAIL, WARN as system-out. */
sc_status_t sc_verdict_write_junit(const char *path, const char *suite, const json_t *checks,
                                   sc_err_t *err);

/* The declared-vs-detected findings, one line each. */
void sc_run_print_findings(sc_results_t *res, const json_t *findings);

#endif
