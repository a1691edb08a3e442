/* sc_steady.c - steadiness: a median hides a link that is slow now and then (a flapping port,
 * a congested uplink, a throttling GPU), its iterations' tail does not, nor do the looks a slow
 * case was given: the best look is what a verdict keeps, the slowest one says how far the case
 * strayed. For each collective the worst row's 99th percentile against its median, where there
 * are enough iterations for a p99 and the time is not the microseconds an operating system's
 * jitter decides, and the worst row's slowest look against the look kept. */
#include "sc_steady.h"

#include <stdio.h>
#include <string.h>

#include "coll/sc_coll.h"
#include "util/sc_size.h"

#define SC__STEADY_MIN_ITERS 20    /* a p99 of fewer says nothing of a tail */
#define SC__STEADY_MIN_US    100.0 /* below, the host's scheduling decides the tail */

/* Whether a row's tail can be judged. */
static bool steady__judgeable(const sc_case_row_t *r)
{
    return r->time_us_p99 > 0 && r->time_us >= SC__STEADY_MIN_US &&
           (r->iterations == 0 || r->iterations >= SC__STEADY_MIN_ITERS);
}

/* A row's tail: its p99 over its median, where it can be judged (else 0). */
double sc_steady_tail_ratio(const sc_case_row_t *r)
{
    return steady__judgeable(r) ? r->time_us_p99 / r->time_us : 0.0;
}

/* A row's spread between looks: its slowest look over the one kept, where it was looked at
 * more than once outside the microseconds the host's scheduling decides (else 0). */
double sc_steady_looks_ratio(const sc_case_row_t *r)
{
    bool judged =
        r->looks >= 2 && sc_present(r->slowest_look_us) && r->time_us >= SC__STEADY_MIN_US;
    return judged ? r->slowest_look_us / r->time_us : 0.0;
}

/* The row of collective `name` whose ratio is the largest (NULL: none judgeable). */
static const sc_case_row_t *steady__worst(const sc_case_row_t *rows, size_t n, const char *name,
                                          double (*ratio)(const sc_case_row_t *))
{
    const sc_case_row_t *worst = NULL;
    double most = 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = strcmp(rows[i].collective, name) == 0 ? ratio(&rows[i]) : 0.0;
        if (r > most) {
            most = r;
            worst = &rows[i];
        }
    }
    return worst;
}

static void steady__tail(const sc_case_row_t *w, const sc_band_t *band, sc_checks_t *checks)
{
    char name[192], size[32];
    snprintf(name, sizeof(name),
             "steadiness: %s's slowest 1 %% of iterations against the median (worst: %s B %s)",
             w->collective, sc_size_format(w->size_bytes, size, sizeof(size)),
             w->in_place ? "in-place" : "out-of-place");
    sc_check_t *c = sc_verdict_band(checks, name, "time_us_p99", w->time_us_p99, w->time_us, band,
                                    false, "steadiness");
    if (c != NULL && c->level != SC_LEVEL_PASS)
        snprintf(c->note, sizeof(c->note),
                 "p99 %.3g us is %.1f x the median: some iterations ran far slower (a link or a "
                 "GPU slow now and then)",
                 w->time_us_p99, w->time_us_p99 / w->time_us);
}

static void steady__looks(const sc_case_row_t *w, const sc_band_t *band, sc_checks_t *checks)
{
    char name[192], size[32];
    snprintf(name, sizeof(name),
             "steadiness: %s's looks against each other (worst: %s B %s, %d looks)", w->collective,
             sc_size_format(w->size_bytes, size, sizeof(size)),
             w->in_place ? "in-place" : "out-of-place", w->looks);
    sc_check_t *c = sc_verdict_band(checks, name, "slowest_look_us", w->slowest_look_us, w->time_us,
                                    band, false, "steadiness");
    if (c != NULL && c->level != SC_LEVEL_PASS)
        snprintf(c->note, sizeof(c->note),
                 "one look's median took %.1f x the kept look's: the best of %d looks passed, the "
                 "case itself was slow now and then (a link or a GPU, or a busy host: see the "
                 "quiet-hosts check)",
                 w->slowest_look_us / w->time_us, w->looks);
}

void sc_verdict_steadiness(const sc_topology_t *t, const sc_case_row_t *rows, size_t n,
                           sc_checks_t *checks)
{
    sc_band_t band = {t->steadiness_tolerance, t->steadiness_fail_tolerance, false};
    /* two checks a registered collective, one pass over the rows each: linear in the rows */
    for (const sc_coll_t *const *coll = sc_coll_list(); *coll != NULL; coll++) {
        const sc_case_row_t *tail = steady__worst(rows, n, (*coll)->name, sc_steady_tail_ratio);
        if (tail != NULL)
            steady__tail(tail, &band, checks);
        const sc_case_row_t *looks = steady__worst(rows, n, (*coll)->name, sc_steady_looks_ratio);
        if (looks != NULL)
            steady__looks(looks, &band, checks);
    }
}
