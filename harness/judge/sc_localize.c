#include "sc_localize.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/sc_stats.h"

static double sc__pair_min(const double *bw, int n, int i, int j)
{
    double a = bw[i * n + j], b = bw[j * n + i];
    return a < b ? a : b;
}

/* With no expectation the median is the reference, and when most pairs are bad the median is
 * bad too: say so when it sits below the slow line of the best pair. Not acted upon (a fabric
 * may have fast and slow pairs by design: NVLink-bridged GPU pairs on a PCIe server). */
static json_t *sc__median_note(double best, double median, double tolerance)
{
    if (median >= (1.0 - tolerance) * best)
        return json_null();
    char note[256];
    snprintf(note, sizeof(note),
             "the median (%.3g GB/s) is below %.0f %% of the best pair (%.3g GB/s): if most pairs "
             "are bad the median hides them - give the expectation (--topology)",
             median, (1.0 - tolerance) * 100, best);
    return json_string(note);
}

json_t *sc_localize(const double *bw, int n, const char *const *names, double reference,
                    double tolerance)
{
    double best = 0;
    for (int i = 0; i < n * n; i++)
        best = i / n != i % n && bw[i] > best ? bw[i] : best;
    json_t *note = json_null();
    if (reference <= 0) {
        reference = sc_stats_matrix_median(bw, n);
        note = sc__median_note(best, reference, tolerance);
    }
    double limit = (1.0 - tolerance) * reference;
    int *slow_of = calloc((size_t)n, sizeof(int));
    json_t *slow_pairs = json_array(), *suspects = json_array();
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double b = sc__pair_min(bw, n, i, j);
            if (b >= limit)
                continue;
            slow_of[i]++;
            slow_of[j]++;
            json_array_append_new(
                slow_pairs, json_pack("{s:s, s:s, s:f}", "a", names[i], "b", names[j], "GBps", b));
        }
    /* Nodes: most of their pairs slow. With two nodes one cannot tell node from link. */
    bool *node_suspect = calloc((size_t)n, sizeof(bool));
    for (int i = 0; i < n && n >= 3; i++) {
        if (slow_of[i] < 2 || 4 * slow_of[i] < 3 * (n - 1))
            continue;
        node_suspect[i] = true;
        double sum = 0;
        for (int j = 0; j < n; j++)
            if (j != i)
                sum += sc__pair_min(bw, n, i, j);
        char evidence[256];
        snprintf(evidence, sizeof(evidence),
                 "%d of %d pairs slow; mean %.3g GB/s against %.3g GB/s expected (node or NIC)",
                 slow_of[i], n - 1, sum / (n - 1), reference);
        json_array_append_new(suspects, json_pack("{s:s, s:s, s:s}", "kind", "node", "where",
                                                  names[i], "evidence", evidence));
    }
    /* Links: slow pairs between nodes that are otherwise fine. */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double b = sc__pair_min(bw, n, i, j);
            if (b >= limit || node_suspect[i] || node_suspect[j])
                continue;
            char where[160], evidence[256];
            snprintf(where, sizeof(where), "%s <-> %s", names[i], names[j]);
            snprintf(evidence, sizeof(evidence),
                     "%.3g GB/s against %.3g GB/s expected; both nodes fine with the others "
                     "(link or route)",
                     b, reference);
            json_array_append_new(suspects, json_pack("{s:s, s:s, s:s}", "kind", "link", "where",
                                                      where, "evidence", evidence));
        }
    free(slow_of);
    free(node_suspect);
    return json_pack("{s:f, s:f, s:f, s:o, s:o, s:o}", "reference_GBps", reference, "best_GBps",
                     best, "tolerance", tolerance, "slow_pairs", slow_pairs, "suspects", suspects,
                     "reference_note", note);
}
