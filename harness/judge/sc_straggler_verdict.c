/* sc_straggler_verdict.c - the straggler over a run's cases (sc_straggler_verdict.h). */
#include "judge/sc_straggler_verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/sc_verdict.h"
#include "util/sc_defaults.h"
#include "util/sc_stats.h"

/* The rank most rows name as their slowest, and how many rows name it (and any rank). */
static const char *straggler__most_named(const sc_case_rows_t *rows, int *named, int *any)
{
    const char *best = NULL;
    *named = *any = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const char *who = rows->items[i].slowest;
        if (who[0] == '\0')
            continue;
        (*any)++;
        int same = 0;
        for (size_t j = 0; j < rows->n; j++)
            same += strcmp(rows->items[j].slowest, who) == 0;
        if (same > *named) {
            *named = same;
            best = who;
        }
    }
    return best;
}

/* A crowded host's straggler: a WARN at most, the note saying why. */
static void straggler__crowded(sc_check_t *c, const char *crowded)
{
    if (c == NULL || crowded == NULL || crowded[0] == '\0')
        return;
    if (c->level == SC_LEVEL_FAIL)
        c->level = SC_LEVEL_WARN;
    char note[sizeof(c->note)];
    snprintf(note, sizeof(note), "%s (%s: the scheduler can make any rank the slowest)", c->note,
             crowded);
    snprintf(c->note, sizeof(c->note), "%s", note);
}

bool sc_verdict_straggler(const sc_case_rows_t *rows, int ranks, const char *crowded,
                          sc_checks_t *checks, char *line, size_t len)
{
    if (len > 0)
        line[0] = '\0';
    int named = 0, any = 0;
    const char *who = straggler__most_named(rows, &named, &any);
    /* of two ranks one is always the slower: which is slow takes a third */
    if (ranks < 3 || who == NULL || named < 3 || 4 * named < 3 * any)
        return false;
    double *lost = malloc((size_t)named * sizeof(double)),
           *lag = malloc((size_t)named * sizeof(double));
    int n = 0;
    double time_us = 0, without_us = 0;
    for (size_t i = 0; lost != NULL && lag != NULL && i < rows->n; i++) {
        const sc_case_row_t *r = &rows->items[i];
        if (strcmp(r->slowest, who) != 0 || !(r->time_us > 0))
            continue;
        lost[n] = (r->time_us - r->time_without_slowest_us) / r->time_us;
        lag[n] = r->slowest_lag_us;
        time_us += r->time_us / named;
        without_us += r->time_without_slowest_us / named;
        n++;
    }
    sc_stats_t lost_st, lag_st;
    sc_stats_compute(lost, (size_t)n, &lost_st);
    sc_stats_compute(lag, (size_t)n, &lag_st);
    free(lost);
    free(lag);
    if (n < 3)
        return false;
    char name[192];
    snprintf(name, sizeof(name), "no rank holds the others up: %s", who);
    sc_band_t band = {.tolerance = SC_STRAGGLER_WARN, .fail_tolerance = SC_STRAGGLER_FAIL};
    /* the share of the time left without it: 1 when it costs nothing */
    sc_check_t *c = sc_verdict_band(checks, name, "share_without_slowest", 1 - lost_st.median, 1,
                                    &band, true, "the other ranks");
    snprintf(line, len,
             "%s came last to %d of %d cases, %.1f us after the ranks' median (median over them): "
             "%.1f us measured on average, %.1f us without its lag (%.0f %% of the time lost)",
             who, named, (int)rows->n, lag_st.median, time_us, without_us, 100 * lost_st.median);
    if (c != NULL)
        snprintf(c->note, sizeof(c->note), "last to %d of %d cases, %.1f us late; %.0f %% lost",
                 named, (int)rows->n, lag_st.median, 100 * lost_st.median);
    straggler__crowded(c, crowded);
    return true;
}

bool sc_verdict_point_straggler(const sc_point_t *p, const char *crowded, sc_checks_t *checks,
                                char *line, size_t len)
{
    if (len > 0)
        line[0] = '\0';
    double step = p->step_time_ms, without = p->step_without_slowest_ms;
    /* of two ranks one is always the slower: which is slow takes a third */
    if (p->gpus < 3 || !(step > 0) || !(without >= 0) ||
        !(p->slowest_lag_ms >= SC_DEFAULT_STRAGGLER_MIN_LAG * step))
        return false;
    double lost = (step - without) / step;
    if (lost < SC_STRAGGLER_WARN)
        return false;
    char name[192];
    snprintf(name, sizeof(name),
             "no rank holds the others up at %d GPUs x %d nodes: rank %d (host %.64s)",
             p->gpus / (p->nodes > 0 ? p->nodes : 1), p->nodes, p->slowest_rank, p->slowest_host);
    sc_band_t band = {.tolerance = SC_STRAGGLER_WARN, .fail_tolerance = SC_STRAGGLER_FAIL};
    /* the share of the step left without its lag: 1 when it costs nothing */
    sc_check_t *c = sc_verdict_band(checks, name, "share_without_slowest", 1 - lost, 1, &band, true,
                                    "the other ranks");
    if (c != NULL)
        snprintf(c->note, sizeof(c->note),
                 "%.3f ms a step in its own work, %.3f ms more than the median",
                 p->slowest_rank_mean_ms, p->slowest_lag_ms);
    straggler__crowded(c, crowded);
    snprintf(line, len,
             "rank %d (host %s) at %d GPUs: %.3f ms a step more than the ranks' median in its own "
             "work; the step %.3f ms, %.3f ms without its lag (%.0f %% of the step lost)",
             p->slowest_rank, p->slowest_host, p->gpus, p->slowest_lag_ms, step, without,
             100 * lost);
    return true;
}
