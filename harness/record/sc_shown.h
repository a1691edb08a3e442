/* sc_shown.h - what a person is shown of a result too large to read whole (a fleet's million
 * rows): every check that did not pass, up to a limit, with its row, and an even spread of the
 * rest, chosen from rows and checks streamed past one at a time, in bounded memory. The tally
 * counts every check; result.json keeps every row and check (sc_result_t.cases_file). Below the
 * limit everything is kept, in order. */
#ifndef SC_SHOWN_H
#define SC_SHOWN_H

#include <stdbool.h>
#include <stddef.h>

#include "record/sc_result.h"

/* One stream thinned: its notable elements (up to limit) and every stride-th of the others (at
 * most limit: the stride doubles, and every other one kept goes, when they reach it). */
typedef struct {
    size_t limit, stride, seen, notable, spread;
    size_t *place; /* each kept element's index in the stream; the top bit marks a notable one */
    size_t cap;
} sc_thin_t;

typedef struct {
    sc_thin_t rows, checks;
    sc_tally_t tally; /* every check offered */
} sc_shown_t;

/* Keeps up to limit of each kind (0: every one). */
void sc_shown_init(sc_shown_t *s, size_t limit);
/* row offered into r->cases; notable: its check did not pass (kept while notable ones are under
 * the limit). False when memory ran out. */
bool sc_shown_row(sc_shown_t *s, sc_result_t *r, const sc_case_row_t *row, bool notable);
/* c counted, and offered into r->checks (a check that did not pass is notable). */
bool sc_shown_check(sc_shown_t *s, sc_result_t *r, const sc_check_t *c);
/* Whether the next row (check at level) offered would be kept: a reader parses only those, and
 * passes the others by with sc_shown_pass_row (sc_shown_pass_check: its level and disturbance
 * counted). */
bool sc_shown_wants_row(const sc_shown_t *s);
bool sc_shown_wants_check(const sc_shown_t *s, sc_level_t level);
void sc_shown_pass_row(sc_shown_t *s);
void sc_shown_pass_check(sc_shown_t *s, const sc_check_t *c);
/* r->cases_unlisted and r->unlisted say what was left out; s freed. */
void sc_shown_finish(sc_shown_t *s, sc_result_t *r);

#endif
