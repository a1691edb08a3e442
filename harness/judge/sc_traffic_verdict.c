/* sc_traffic_verdict.c - traffic that collides, judged (sc_traffic_verdict.h). */
#include "judge/sc_traffic_verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/sc_verdict.h"
#include "util/sc_defaults.h"
#include "util/sc_size.h"
#include "util/sc_stats.h"

static sc_level_t traffic__level(double slowdown)
{
    return slowdown >= SC_COLLIDE_FAIL_SLOWDOWN   ? SC_LEVEL_FAIL
           : slowdown >= SC_COLLIDE_WARN_SLOWDOWN ? SC_LEVEL_WARN
                                                  : SC_LEVEL_PASS;
}

static bool traffic__same(const sc_traffic_row_t *a, const sc_traffic_row_t *b)
{
    return strcmp(a->kind, b->kind) == 0 && a->size_bytes == b->size_bytes;
}

void sc_traffic_peers(sc_traffic_rows_t *rows)
{
    for (size_t i = 0; i < rows->n; i++) {
        sc_traffic_row_t *r = &rows->items[i];
        double best = INFINITY;
        int peers = 0;
        for (size_t j = 0; j < rows->n; j++)
            if (j != i && traffic__same(r, &rows->items[j]) && rows->items[j].loaded_us > 0) {
                best = fmin(best, rows->items[j].loaded_us);
                peers++;
            }
        best = fmin(best, r->loaded_us);
        r->vs_peers = peers > 0 && best > 0 ? r->loaded_us / best : SC_ABSENT;
    }
}

/* Whether a kind already had its checks (an earlier row of it). */
static bool traffic__seen(const sc_traffic_rows_t *rows, size_t upto, const char *kind)
{
    for (size_t i = 0; i < upto; i++)
        if (strcmp(rows->items[i].kind, kind) == 0)
            return true;
    return false;
}

/* A figure of the rows' (the slowdown, or the time against the peers'). */
typedef double (*traffic__figure_fn)(const sc_traffic_row_t *r);
static double traffic__slowdown(const sc_traffic_row_t *r)
{
    return r->slowdown;
}
static double traffic__vs_peers(const sc_traffic_row_t *r)
{
    return r->vs_peers;
}

/* One kind's check of one figure: its worst row, against the median of its rows. what: the
 * check's words, printf format with the kind and the operation. */
static void traffic__kind_check(const sc_traffic_rows_t *rows, const char *kind,
                                traffic__figure_fn figure, const char *what, const char *against,
                                sc_checks_t *checks)
{
    double *fig = malloc(rows->n * sizeof(double));
    const sc_traffic_row_t *worst = NULL;
    size_t n = 0;
    for (size_t i = 0; fig != NULL && i < rows->n; i++) {
        const sc_traffic_row_t *r = &rows->items[i];
        if (strcmp(r->kind, kind) != 0 || !(figure(r) > 0))
            continue;
        fig[n++] = figure(r);
        if (worst == NULL || figure(r) > figure(worst))
            worst = r;
    }
    sc_stats_t st;
    sc_stats_compute(fig, n, &st);
    free(fig);
    if (worst == NULL)
        return;
    char name[192], head[96], size[32];
    snprintf(head, sizeof(head), what, kind, worst->coll);
    snprintf(name, sizeof(name), "%s: %.80s (%s B)", head, worst->group,
             sc_size_format(worst->size_bytes, size, sizeof(size)));
    sc_band_t band = {.tolerance = 1 - 1 / SC_COLLIDE_WARN_SLOWDOWN,
                      .fail_tolerance = 1 - 1 / SC_COLLIDE_FAIL_SLOWDOWN};
    /* the share of the speed kept: 1 when the load (or the group's place) cost nothing */
    sc_check_t *c =
        sc_verdict_band(checks, name, "speed_kept", 1 / figure(worst), 1, &band, true, against);
    if (c != NULL)
        snprintf(c->note, sizeof(c->note), "%.2fx slower than %s; median %.2fx over %zu",
                 figure(worst), against, st.median, n);
}

/* A crowded host's slowdown under load: a WARN at most, the note saying why. */
static void traffic__crowded(sc_checks_t *checks, size_t from, const char *crowded)
{
    for (size_t i = from; crowded != NULL && crowded[0] != '\0' && i < checks->n; i++) {
        sc_check_t *c = &checks->items[i];
        if (strstr(c->name, "under the others' load") == NULL)
            continue;
        if (c->level == SC_LEVEL_FAIL)
            c->level = SC_LEVEL_WARN;
        char note[sizeof(c->note)];
        snprintf(note, sizeof(note), "%s (%s: the load takes cores too)", c->note, crowded);
        snprintf(c->note, sizeof(c->note), "%s", note);
    }
}

void sc_verdict_traffic(sc_traffic_rows_t *rows, const char *crowded, sc_checks_t *checks,
                        char *line, size_t len)
{
    size_t used = 0, first = checks->n;
    if (len > 0)
        line[0] = '\0';
    sc_traffic_peers(rows);
    for (size_t i = 0; i < rows->n; i++) {
        sc_traffic_row_t *r = &rows->items[i];
        if (strcmp(r->kind, "cut") == 0)
            continue;
        sc_level_t by_load = traffic__level(r->slowdown);
        sc_level_t by_peers = sc_present(r->vs_peers) ? traffic__level(r->vs_peers) : SC_LEVEL_PASS;
        r->level = by_load > by_peers ? by_load : by_peers;
        /* a pair is judged in its host's row; a cut by the topology (sc_pairs_cut_row) */
        bool judged = strcmp(r->kind, "pair") != 0;
        if (judged && !traffic__seen(rows, i, r->kind)) {
            traffic__kind_check(rows, r->kind, traffic__slowdown,
                                "%s %s keeps its speed under the others' load", "alone", checks);
            traffic__kind_check(rows, r->kind, traffic__vs_peers,
                                "%s %s groups alike under the same load", "the fastest group",
                                checks);
        }
        if (judged && r->level != SC_LEVEL_PASS && used + 1 < len)
            used += (size_t)snprintf(line + used, len - used, "%s%s %.60s %.2fx alone, %.2fx peers",
                                     used ? "; " : "", r->kind, r->group, r->slowdown,
                                     sc_present(r->vs_peers) ? r->vs_peers : 1.0);
    }
    traffic__crowded(checks, first, crowded);
}
