#include "sc_localize.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sc_stats.h"

static double localize__pair_min(const double *bw, int n, int i, int j)
{
    double a = bw[i * n + j], b = bw[j * n + i];
    return a < b ? a : b;
}

/* The next suspect (the list has room for every pair and node). */
static sc_suspect_t *localize__suspect(sc_localization_t *out, const char *kind, const char *where)
{
    sc_suspect_t *s = &out->suspects[out->nsuspects++];
    snprintf(s->kind, sizeof(s->kind), "%s", kind);
    snprintf(s->where, sizeof(s->where), "%s", where);
    return s;
}

/* With no expectation the median is the reference, and when most pairs are bad the median is
 * bad too: say so when it sits below the slow line of the strong pairs. Not acted upon (a fabric
 * may have fast and slow pairs by design: NVLink-bridged GPU pairs on a PCIe server). */
static void localize__median_note(double strong, double median, double tolerance, char *note,
                                  size_t len)
{
    if (median >= (1.0 - tolerance) * strong)
        return;
    snprintf(note, len,
             "the median (%.3g GB/s) is below %.0f %% of the strong pairs (90th percentile, "
             "%.3g GB/s): if most pairs "
             "are bad the median hides them - give the expectation (--topology)",
             median, (1.0 - tolerance) * 100, strong);
}

/* Whether pair i-j was measured. */
static bool localize__measured(const int *measured, int n, int i, int j)
{
    return measured == NULL || measured[i * n + j] > 0;
}

/* Between two leaves: the pairs measured across, how many slow, and whether that is most. */
typedef struct {
    int pairs, slow;
    bool bad; /* at least 3/4 (and at least 2) slow: the leaves' uplinks or the spine */
} localize__across_t;

/* Every leaf pair (a * L + b, both ways) counted; NULL when memory is short. */
static localize__across_t *localize__across(const double *bw, const int *measured, int n,
                                            const sc_leaves_t *leaves, double limit)
{
    int nl = leaves->nleaves;
    localize__across_t *x = calloc((size_t)nl * nl, sizeof(localize__across_t));
    for (int i = 0; x && i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int a = leaves->leaf_of[i], b = leaves->leaf_of[j];
            if (a == b || !localize__measured(measured, n, i, j))
                continue;
            bool slow = localize__pair_min(bw, n, i, j) < limit;
            x[a * nl + b].pairs++, x[b * nl + a].pairs++;
            x[a * nl + b].slow += slow, x[b * nl + a].slow += slow;
        }
    for (int k = 0; x && k < nl * nl; k++)
        x[k].bad = x[k].pairs >= 2 && 4 * x[k].slow >= 3 * x[k].pairs;
    return x;
}

/* The switch suspects: a leaf slow with every other leaf it was measured with (two or more): its
 * uplinks; else each slow leaf pair: the path between them. */
static void localize__switch_suspects(const sc_leaves_t *leaves, const localize__across_t *x,
                                      sc_localization_t *out)
{
    int nl = leaves->nleaves;
    bool *uplinks = calloc((size_t)nl, sizeof(bool));
    for (int a = 0; uplinks && a < nl; a++) {
        int others = 0, slow = 0;
        for (int b = 0; b < nl; b++)
            others += b != a && x[a * nl + b].pairs > 0, slow += b != a && x[a * nl + b].bad;
        uplinks[a] = others >= 2 && slow == others;
        if (!uplinks[a])
            continue;
        char where[96];
        snprintf(where, sizeof(where), "%s uplinks", leaves->names[a]);
        sc_suspect_t *s = localize__suspect(out, "switch", where);
        snprintf(s->evidence, sizeof(s->evidence),
                 "slow across the spine with all %d other leaves, its hosts fine under it (the "
                 "leaf's uplinks)",
                 others);
    }
    for (int a = 0; uplinks && a < nl; a++)
        for (int b = a + 1; b < nl; b++) {
            if (!x[a * nl + b].bad || uplinks[a] || uplinks[b])
                continue;
            char where[160];
            snprintf(where, sizeof(where), "%s <-> %s", leaves->names[a], leaves->names[b]);
            sc_suspect_t *s = localize__suspect(out, "switch", where);
            snprintf(s->evidence, sizeof(s->evidence),
                     "%d of %d pairs between the two leaves slow, their hosts fine under each "
                     "(the leaves' uplinks or the spine between them)",
                     x[a * nl + b].slow, x[a * nl + b].pairs);
        }
    free(uplinks);
}

/* Whether pair i-j crosses a slow leaf pair (explained by it: no node, no link). */
static bool localize__explained(const sc_leaves_t *leaves, const localize__across_t *x, int i,
                                int j)
{
    if (x == NULL)
        return false;
    int a = leaves->leaf_of[i], b = leaves->leaf_of[j];
    return a != b && x[a * leaves->nleaves + b].bad;
}

void sc_localize(const double *bw, const int *measured, int n, const char *const *names,
                 double reference, double tolerance, const sc_leaves_t *leaves,
                 sc_localization_t *out)
{
    memset(out, 0, sizeof(*out));
    double best = 0;
    for (int i = 0; i < n * n; i++)
        best = i / n != i % n && bw[i] > best ? bw[i] : best;
    if (reference <= 0) {
        reference = sc_stats_matrix_median(bw, measured, n);
        /* held to the strong pairs' pace (the 90th percentile), not the single best: pairs
         * measured side by side on shared hosts have one lucky pair, and a median below half of
         * it is noise; most pairs bad still pulls the median below half of the strong ones */
        out->strong_GBps = sc_stats_matrix_quantile(bw, measured, n, 0.9);
        localize__median_note(out->strong_GBps, reference, tolerance, out->reference_note,
                              sizeof(out->reference_note));
    }
    out->reference_GBps = reference;
    out->best_GBps = best;
    if (out->strong_GBps <= 0)
        out->strong_GBps = best;
    out->tolerance = tolerance;
    size_t npairs = (size_t)n * (size_t)(n > 1 ? n - 1 : 0) / 2 + 1;
    out->slow_pairs = calloc(npairs, sizeof(sc_slow_pair_t));
    /* room for every link and node, the switch suspects (leaves and their pairs) and the bisect
     * groups' (fewer than n) that the verdict adds */
    size_t nl = leaves != NULL ? (size_t)leaves->nleaves : 0;
    out->suspects = calloc(npairs + 2 * (size_t)n + nl * (nl + 1) / 2, sizeof(sc_suspect_t));
    if (out->slow_pairs == NULL || out->suspects == NULL) {
        sc_localization_free(out);
        snprintf(out->reference_note, sizeof(out->reference_note), "no memory to localise");
        return;
    }
    double limit = (1.0 - tolerance) * reference;
    bool mapped = leaves != NULL && leaves->nleaves > 1 && leaves->n == n;
    localize__across_t *across = mapped ? localize__across(bw, measured, n, leaves, limit) : NULL;
    if (across != NULL)
        localize__switch_suspects(leaves, across, out);
    int *slow_of = calloc((size_t)n, sizeof(int)), *pairs_of = calloc((size_t)n, sizeof(int));
    for (int i = 0; slow_of && pairs_of && i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (!localize__measured(measured, n, i, j))
                continue;
            pairs_of[i]++;
            pairs_of[j]++;
            double b = localize__pair_min(bw, n, i, j);
            if (b >= limit)
                continue;
            sc_slow_pair_t *sp = &out->slow_pairs[out->nslow++];
            snprintf(sp->a, sizeof(sp->a), "%s", names[i]);
            snprintf(sp->b, sizeof(sp->b), "%s", names[j]);
            sp->GBps = b;
            if (localize__explained(leaves, across, i, j)) /* the switch's, not the nodes' */
                continue;
            slow_of[i]++;
            slow_of[j]++;
        }
    /* Nodes: most of their pairs slow. With two nodes one cannot tell node from link. */
    bool *node_suspect = calloc((size_t)n, sizeof(bool));
    for (int i = 0; slow_of && pairs_of && node_suspect && i < n && n >= 3; i++) {
        if (slow_of[i] < 2 || 4 * slow_of[i] < 3 * pairs_of[i])
            continue;
        node_suspect[i] = true;
        double sum = 0;
        for (int j = 0; j < n; j++)
            if (j != i && localize__measured(measured, n, i, j))
                sum += localize__pair_min(bw, n, i, j);
        sc_suspect_t *s = localize__suspect(out, "node", names[i]);
        snprintf(s->evidence, sizeof(s->evidence),
                 "%d of %d pairs slow; mean %.3g GB/s against %.3g GB/s expected (node or NIC)",
                 slow_of[i], pairs_of[i], sum / pairs_of[i], reference);
    }
    /* Links: slow pairs between nodes that are otherwise fine. */
    for (int i = 0; node_suspect && i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double b = localize__pair_min(bw, n, i, j);
            if (!localize__measured(measured, n, i, j) || b >= limit || node_suspect[i] ||
                node_suspect[j] || localize__explained(leaves, across, i, j))
                continue;
            char where[2 * SC_HOST_MAX + 40];
            snprintf(where, sizeof(where), "%s <-> %s", names[i], names[j]);
            sc_suspect_t *s = localize__suspect(out, "link", where);
            snprintf(s->evidence, sizeof(s->evidence),
                     "%.3g GB/s against %.3g GB/s expected; both nodes fine with the others "
                     "(link or route)",
                     b, reference);
        }
    free(slow_of);
    free(pairs_of);
    free(node_suspect);
    free(across);
}
