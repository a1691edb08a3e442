/* sc_straggler_verdict.h - the rank that holds the others up, judged over a run's cases: named
 * only when it came last to most of them (a healthy run's last rank changes from case to case),
 * with its lag and what it cost - the time measured against the time without its lag. */
#ifndef SC_STRAGGLER_VERDICT_H
#define SC_STRAGGLER_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "record/sc_record.h"

/* crowded (both): "" or why the host's scheduler alone can make a rank the slowest (more ranks
 * than cores, sc_session_crowded): the check is then a WARN at most, and says so.
 * From the rows' `slowest` figures, on ranks ranks (3 at least): when one rank came last to at
 * least 3 cases and to 3 in 4 of those with a rank measurably late, a check of what it cost (the
 * median over its cases of the time lost, over the time: WARN from SC_STRAGGLER_WARN, FAIL from
 * SC_STRAGGLER_FAIL) and the sentence that says so into line; false (line "") when no rank stands
 * out. */
bool sc_verdict_straggler(const sc_case_rows_t *rows, int ranks, const char *crowded,
                          sc_checks_t *checks, char *line, size_t len);

/* A point of `run` on 3 GPUs or more whose slowest rank comes measurably late
 * (SC_DEFAULT_STRAGGLER_MIN_LAG of the step) and costs at least SC_STRAGGLER_WARN of it: a check,
 * and its sentence into line; false (line "") otherwise. */
bool sc_verdict_point_straggler(const sc_point_t *p, const char *crowded, sc_checks_t *checks,
                                char *line, size_t len);

#endif
