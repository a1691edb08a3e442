/* sc_pairs_verdict.c - the point-to-point matrix judged: the localisation, a check per pair
 * (the slower direction against the reference), slow pairs failed, a doubtful reference
 * warned. */
#include "judge/sc_pairs_verdict.h"

#include <stdio.h>
#include <string.h>

#include "judge/sc_localize.h"
#include "judge/sc_verdict.h"

static void pairs_verdict__check_name(char *buf, size_t len, const char *a, const char *b)
{
    snprintf(buf, len, "pair %s <-> %s bandwidth", a, b);
}

/* A row and a check per measured pair (the slower direction against the reference), in the
 * same order. */
static void pairs_verdict__rows_and_checks(const sc_pairs_view_t *m, const char *const *names,
                                           double reference, double tolerance, const char *source,
                                           sc_result_t *doc)
{
    int n = m->n;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (m->looks[i * n + j] == 0) /* a search strategy left it out */
                continue;
            double ab = m->uni[i * n + j], ba = m->uni[j * n + i];
            char name[160];
            pairs_verdict__check_name(name, sizeof(name), names[i], names[j]);
            sc_verdict_add(&doc->checks, name, "GBps", ab < ba ? ab : ba, reference, tolerance,
                           true, source);
            sc_pair_row_t *row = SC_LIST_PUSH(&doc->pairs);
            if (row == NULL)
                continue;
            snprintf(row->a, sizeof(row->a), "%s", names[i]);
            snprintf(row->b, sizeof(row->b), "%s", names[j]);
            row->uni_ab_GBps = ab;
            row->uni_ba_GBps = ba;
            row->bidir_GBps = m->bidir[i * n + j];
            row->latency_us = m->lat[i * n + j];
            row->looks = m->looks[i * n + j];
        }
}

/* A pair the localisation found slow (slow at every look) fails, whatever the WARN band says;
 * then each row gets its check's verdict. */
static void pairs_verdict__fail_slow(sc_result_t *doc, size_t first_check)
{
    const sc_localization_t *loc = &doc->localization;
    for (int k = 0; k < loc->nslow; k++) {
        char name[160];
        pairs_verdict__check_name(name, sizeof(name), loc->slow_pairs[k].a, loc->slow_pairs[k].b);
        for (size_t c = 0; c < doc->checks.n; c++)
            if (!strcmp(doc->checks.items[c].name, name))
                doc->checks.items[c].level = SC_LEVEL_FAIL;
    }
    for (size_t k = 0; k < doc->pairs.n && first_check + k < doc->checks.n; k++)
        doc->pairs.items[k].level = doc->checks.items[first_check + k].level;
}

/* A doubtful reference (the median, below the best pair's slow line) is a WARN check: never a
 * clean PASS. */
static void pairs_verdict__doubt(double tolerance, sc_result_t *doc)
{
    const sc_localization_t *loc = &doc->localization;
    if (loc->reference_note[0] == '\0')
        return;
    sc_check_t *c = sc_verdict_add(
        &doc->checks, "matrix median against the strong pairs (90th percentile)", "GBps",
        loc->reference_GBps, loc->strong_GBps, tolerance, true, "strong pairs");
    if (c != NULL)
        c->level = SC_LEVEL_WARN;
}

/* Whether anything inside group g is slow: a smaller slow group, or a slow measured pair. */
static bool pairs_verdict__explained(const sc_pairs_view_t *m, const sc_group_rows_t *groups,
                                     size_t g, double limit)
{
    const sc_group_row_t *G = &groups->items[g];
    int lo = G->first, hi = G->first + G->size, n = m->n;
    for (size_t k = 0; k < groups->n; k++) {
        const sc_group_row_t *h = &groups->items[k];
        if (k != g && h->slow && h->first >= lo && h->first + h->size <= hi && h->size < G->size)
            return true;
    }
    for (int i = lo; i < hi; i++)
        for (int j = i + 1; j < hi; j++)
            if (m->looks[i * n + j] > 0 && (m->uni[i * n + j] < limit || m->uni[j * n + i] < limit))
                return true;
    return false;
}

/* A check per bisect group, and a suspect for a slow group nothing inside explains. */
static void pairs_verdict__groups(const sc_pairs_view_t *m, double tolerance, sc_result_t *doc)
{
    sc_localization_t *loc = &doc->localization;
    double limit = (1.0 - tolerance) * loc->reference_GBps;
    for (size_t g = 0; g < doc->groups.n; g++) {
        sc_group_row_t *row = &doc->groups.items[g];
        char name[320];
        snprintf(name, sizeof(name), "group all-reduce %s", row->members);
        sc_check_t *c = sc_verdict_add(&doc->checks, name, "busbw_GBps", row->busbw_GBps,
                                       m->group_reference, tolerance, true, "first groups' middle");
        if (c != NULL && row->slow) /* slow at every look */
            c->level = SC_LEVEL_FAIL;
        row->level = c != NULL ? c->level : row->level;
        if (!row->slow || pairs_verdict__explained(m, &doc->groups, g, limit) ||
            loc->suspects == NULL)
            continue;
        sc_suspect_t *s = &loc->suspects[loc->nsuspects++];
        snprintf(s->kind, sizeof(s->kind), "group");
        snprintf(s->where, sizeof(s->where), "%s", row->members);
        snprintf(s->evidence, sizeof(s->evidence),
                 "all-reduce at %.3g GB/s against %.3g GB/s, yet nothing inside it is slow: a "
                 "link between its halves (measure them with --strategy all)",
                 row->busbw_GBps, m->group_reference);
    }
}

void sc_pairs_judge(const sc_pairs_view_t *m, const char *const *names, double expected,
                    double tolerance, sc_result_t *doc)
{
    sc_localize(m->uni, m->looks, m->n, names, expected, tolerance, m->leaves, &doc->localization);
    doc->has_localization = true;
    size_t first_check = doc->checks.n; /* after what came before (preflight's) */
    pairs_verdict__rows_and_checks(m, names, doc->localization.reference_GBps, tolerance,
                                   expected > 0 ? "topology" : "matrix median", doc);
    pairs_verdict__fail_slow(doc, first_check);
    pairs_verdict__doubt(tolerance, doc);
    pairs_verdict__groups(m, tolerance, doc);
    doc->judged = true;
}
