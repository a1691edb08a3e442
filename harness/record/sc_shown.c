/* sc_shown.c - a stream thinned to what a person reads: the notable elements first kept, the
 * others at a stride that doubles whenever they fill their share, so that what is kept is an even
 * spread of the whole stream however long it turns out to be, in stream order. */
#include "record/sc_shown.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SC__NOTABLE ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* Every SC_LIST has this layout (cap is the list's own: grown by sc_list_push). */
// cppcheck-suppress unusedStructMember
typedef SC_LIST(char) shown__list_t;

static void shown__thin_init(sc_thin_t *t, size_t limit)
{
    memset(t, 0, sizeof(*t));
    t->limit = limit == 0 ? SIZE_MAX / 4 : limit;
    t->stride = 1;
}

/* The kept elements that are notable or on the doubled stride stay, in order. */
static void shown__thin_halve(sc_thin_t *t, shown__list_t *l, size_t elem_size)
{
    size_t kept = 0;
    t->stride *= 2;
    t->spread = 0;
    for (size_t i = 0; i < l->n; i++) {
        bool notable = (t->place[i] & SC__NOTABLE) != 0;
        if (!notable && t->place[i] % t->stride != 0)
            continue;
        t->spread += !notable;
        memmove(l->items + kept * elem_size, l->items + i * elem_size, elem_size);
        t->place[kept++] = t->place[i];
    }
    l->n = kept;
}

/* item offered to list; false only when memory ran out. */
static bool shown__offer(sc_thin_t *t, void *list, size_t elem_size, const void *item, bool notable)
{
    shown__list_t *l = list;
    size_t index = t->seen++;
    if (notable ? t->notable >= t->limit : index % t->stride != 0)
        return true;
    if (!notable && t->spread >= t->limit) {
        shown__thin_halve(t, l, elem_size);
        if (index % t->stride != 0)
            return true;
    }
    if (l->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        size_t *place = realloc(t->place, cap * sizeof(*place));
        if (place == NULL)
            return false;
        t->place = place;
        t->cap = cap;
    }
    void *slot = sc_list_push(list, elem_size);
    if (slot == NULL)
        return false;
    memcpy(slot, item, elem_size);
    t->place[l->n - 1] = index | (notable ? SC__NOTABLE : 0);
    t->notable += notable;
    t->spread += !notable;
    return true;
}

void sc_shown_init(sc_shown_t *s, size_t limit)
{
    memset(s, 0, sizeof(*s));
    shown__thin_init(&s->rows, limit);
    shown__thin_init(&s->checks, limit);
}

bool sc_shown_row(sc_shown_t *s, sc_result_t *r, const sc_case_row_t *row, bool notable)
{
    return shown__offer(&s->rows, &r->cases, sizeof(*row), row, notable);
}

bool sc_shown_check(sc_shown_t *s, sc_result_t *r, const sc_check_t *c)
{
    sc_tally_add(&s->tally, c);
    return shown__offer(&s->checks, &r->checks, sizeof(*c), c, c->level != SC_LEVEL_PASS);
}

static bool shown__wants(const sc_thin_t *t, bool notable)
{
    return notable ? t->notable < t->limit : t->seen % t->stride == 0;
}

bool sc_shown_wants_row(const sc_shown_t *s)
{
    return shown__wants(&s->rows, false);
}

bool sc_shown_wants_check(const sc_shown_t *s, sc_level_t level)
{
    return shown__wants(&s->checks, level != SC_LEVEL_PASS);
}

void sc_shown_pass_row(sc_shown_t *s)
{
    s->rows.seen++;
}

void sc_shown_pass_check(sc_shown_t *s, const sc_check_t *c)
{
    sc_tally_add(&s->tally, c);
    s->checks.seen++;
}

void sc_shown_finish(sc_shown_t *s, sc_result_t *r)
{
    sc_tally_t kept = sc_checks_tally(&r->checks);
    sc_tally_t left = {.checks = s->tally.checks - kept.checks,
                       .pass = s->tally.pass - kept.pass,
                       .warn = s->tally.warn - kept.warn,
                       .fail = s->tally.fail - kept.fail,
                       .disturbed = s->tally.disturbed};
    r->unlisted = sc_tally_sum(left, (sc_tally_t){0}); /* its level from its counts */
    r->cases_unlisted = s->rows.seen - r->cases.n;
    free(s->rows.place);
    free(s->checks.place);
    memset(s, 0, sizeof(*s));
}
