/* sc_verdict_render.h - the checks of a verdict (judge/sc_verdict.h) rendered. */
#ifndef SC_VERDICT_RENDER_H
#define SC_VERDICT_RENDER_H

#include <stdio.h>

#include "record/sc_record.h"
#include "record/sc_result.h"
#include "session/sc_results.h"
#include "util/sc_status.h"

/* The compact table (coloured when out is a terminal), then the verdict line. */
void sc_verdict_print(FILE *out, FILE *log, const sc_checks_t *checks);
/* A document's checks, and a line for those it holds unlisted (r->unlisted: a fleet's). */
void sc_verdict_print_result(FILE *out, FILE *log, const sc_result_t *r);

/* The verdict line alone: "# verdict: PASS (n pass, n warn, n fail)". */
void sc_verdict_print_line(sc_results_t *res, const sc_checks_t *checks);

/* junit.xml in the Ant/Jenkins JUnit schema (one <testsuite>: timestamp, hostname, time,
 * <properties>, <system-out>, <system-err>): one <testcase> per check, a <failure> for FAIL,
 * WARN listed in the suite's output, and a run that did not complete one more case in <error>. */
sc_status_t sc_verdict_write_junit(const char *path, const sc_result_t *r, sc_err_t *err);

/* The declared-vs-detected findings, one line each (res NULL: stdout only). */
void sc_print_findings(sc_results_t *res, const sc_findings_t *findings);

#endif
