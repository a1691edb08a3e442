/* sc_peers.c - like things held to the median of their peers. */
#include "judge/sc_peers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/sc_stats.h"

double sc_peers_median(const sc_peer_t *peers, int n)
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    size_t m = 0;
    for (int i = 0; v != NULL && i < n; i++)
        if (!isnan(peers[i].value))
            v[m++] = peers[i].value;
    sc_stats_t st = {0};
    if (m >= 2)
        sc_stats_compute(v, m, &st);
    free(v);
    return m >= 2 ? st.median : NAN;
}

static sc_check_t *peers__check(sc_checks_t *checks, const char *what, const char *metric,
                                const sc_peer_t *p, double median, const sc_band_t *band,
                                const char *source, int measured)
{
    char name[192];
    snprintf(name, sizeof(name), "%s: %s", what, p->who);
    sc_check_t *c = sc_verdict_band(checks, name, metric, p->value, median, band, true, source);
    if (c != NULL)
        snprintf(c->note, sizeof(c->note), "against the median of %d peers", measured);
    return c;
}

int sc_verdict_peers(sc_checks_t *checks, const char *what, const char *metric,
                     const sc_peer_t *peers, int n, const sc_band_t *band, const char *source)
{
    double median = sc_peers_median(peers, n);
    if (isnan(median) || median <= 0)
        return 0;
    int measured = 0, lowest = -1, added = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(peers[i].value)) {
            measured++;
            lowest = lowest < 0 || peers[i].value < peers[lowest].value ? i : lowest;
        }
    for (int i = 0; i < n; i++)
        if (!isnan(peers[i].value) && peers[i].value < median * (1.0 - band->tolerance))
            added += peers__check(checks, what, metric, &peers[i], median, band, source,
                                  measured) != NULL;
    if (added == 0 && lowest >= 0)
        added += peers__check(checks, what, metric, &peers[lowest], median, band, source,
                              measured) != NULL;
    return added;
}
