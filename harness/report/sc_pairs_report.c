/* sc_pairs_report.c - what `scalecheck pairs` shows of its matrices: heatmaps, the suspects,
 * the verdict (judged in judge/sc_pairs_verdict.c), the CSV. */
#include "report/sc_pairs_report.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/sc_pairs_verdict.h"
#include "report/sc_json_out.h"
#include "report/sc_verdict_render.h"

/* A terminal heatmap: each cell's bandwidth against the reference; a pair a search strategy
 * left out is "." (not measured), never 0 GB/s (which reads as a dead link). */
static void pairs_report__heatmap(sc_results_t *res, const double *m, const int *looks, int n,
                                  const char *const *names, double reference, const char *title)
{
    static const char *const shades[] = {"  ", "░░", "▒▒", "▓▓", "██"};
    sc_results_printf(res, "#\n# %s (GB/s; shade = fraction of %.3g GB/s expected)\n# %12s", title,
                      reference, "from \\ to");
    for (int j = 0; j < n; j++)
        sc_results_printf(res, " %10.10s", names[j]);
    sc_results_printf(res, "\n");
    for (int i = 0; i < n; i++) {
        sc_results_printf(res, "  %12.12s", names[i]);
        for (int j = 0; j < n; j++) {
            if (i == j || looks[i * n + j] == 0) {
                sc_results_printf(res, " %10s", i == j ? "-" : ".");
                continue;
            }
            double f = reference > 0 ? m[i * n + j] / reference : 0;
            int s = f >= 0.9 ? 4 : f >= 0.75 ? 3 : f >= 0.5 ? 2 : f >= 0.25 ? 1 : 0;
            sc_results_printf(res, " %s%8.3f", shades[s], m[i * n + j]);
        }
        sc_results_printf(res, "\n");
    }
}

static double *pairs_report__copy(const double *m, int n)
{
    double *copy = malloc((size_t)n * (size_t)n * sizeof(double));
    if (copy != NULL)
        memcpy(copy, m, (size_t)n * (size_t)n * sizeof(double));
    return copy;
}

/* The note on a doubtful reference and the suspects. */
static void pairs_report__print_findings(sc_results_t *res, const sc_localization_t *loc)
{
    if (loc->reference_note[0] != '\0')
        sc_results_printf(res, "#\n# note: %s\n", loc->reference_note);
    sc_results_printf(res, "#\n# suspects: %d\n", loc->nsuspects);
    for (int k = 0; k < loc->nsuspects; k++)
        sc_results_printf(res, "  SUSPECT %-4s %-24s %s\n", loc->suspects[k].kind,
                          loc->suspects[k].where, loc->suspects[k].evidence);
}

/* "h1 h2 h3", cut short with "..." where the names run past the field. */
static void pairs_report__members(char *out, size_t len, const char *const *names, sc_span_t span)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = span.first; i < span.first + span.count; i++) {
        size_t need = strlen(names[i]) + (used ? 1 : 0);
        if (used + need + 4 >= len) {
            snprintf(out + used, len - used, " ...");
            return;
        }
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "", names[i]);
    }
}

/* The bisect groups as rows of doc, and as a table. */
static void pairs_report__groups(sc_results_t *res, const sc_pairs_matrix_t *m,
                                 const char *const *names, sc_result_t *doc)
{
    if (m->ngroups == 0)
        return;
    sc_results_printf(res,
                      "#\n# bisect groups (all-reduce busbw, held to %.3g GB/s: the first "
                      "groups' middle figure)\n# %5s %5s %10s %5s  %s\n",
                      m->group_reference, "round", "size", "GB/s", "looks", "members");
    for (int g = 0; g < m->ngroups; g++) {
        const sc_pairs_group_t *G = &m->groups[g];
        sc_group_row_t *row = SC_LIST_PUSH(&doc->groups);
        if (row == NULL)
            return;
        pairs_report__members(row->members, sizeof(row->members), names, G->span);
        row->first = G->span.first;
        row->size = G->span.count;
        row->round = G->round;
        row->looks = G->looks;
        row->busbw_GBps = G->busbw_GBps;
        row->slow = G->slow;
        sc_results_printf(res, "  %5d %5d %10.3f %5d  %s%s\n", row->round, row->size,
                          row->busbw_GBps, row->looks, row->members, G->slow ? "  (slow)" : "");
    }
}

bool sc_pairs_report(sc_results_t *res, const sc_pairs_matrix_t *m, const char *const *names,
                     double expected, double tolerance, const sc_leaves_t *leaves, sc_result_t *doc)
{
    int n = m->n;
    pairs_report__groups(res, m, names, doc);
    sc_pairs_judge(
        &(sc_pairs_view_t){n, m->uni, m->bidir, m->lat, m->looks, leaves, m->group_reference},
        names, expected, tolerance, doc);
    double reference = doc->localization.reference_GBps;
    if (m->measured == 0)
        sc_results_printf(res, "#\n# no pair measured: every group was healthy\n");
    else if (n <= SC_PAIRS_HEATMAP_MAX) {
        pairs_report__heatmap(res, m->uni, m->looks, n, names, reference,
                              "uni-directional bandwidth");
        pairs_report__heatmap(res, m->bidir, m->looks, n, names, 2 * reference,
                              "bi-directional bandwidth (both directions)");
        if (m->measured < n * (n - 1) / 2)
            sc_results_printf(res, "# .: not measured (the strategy left the pair out)\n");
    } else
        sc_results_printf(res,
                          "#\n# %d participants: no heatmap above %d (pairs.csv, the HTML "
                          "report)\n",
                          n, SC_PAIRS_HEATMAP_MAX);
    pairs_report__print_findings(res, &doc->localization);
    sc_verdict_print_line(res, &doc->checks);
    doc->npairs_nodes = n;
    doc->pair_names = calloc((size_t)n, sizeof(*doc->pair_names));
    for (int i = 0; doc->pair_names != NULL && i < n; i++)
        snprintf(doc->pair_names[i], sizeof(doc->pair_names[i]), "%s", names[i]);
    doc->uni = pairs_report__copy(m->uni, n);
    doc->uni_first = pairs_report__copy(m->first, n);
    doc->bidir = pairs_report__copy(m->bidir, n);
    doc->latency = pairs_report__copy(m->lat, n);
    if (!doc->uni || !doc->uni_first || !doc->bidir || !doc->latency) {
        free(doc->uni); /* the document keeps what it can: no matrices */
        doc->uni = NULL;
    }
    return sc_result_tally(doc).fail > 0 || doc->localization.nsuspects > 0;
}

sc_status_t sc_traffic_save_csv(const sc_results_t *res, const sc_traffic_rows_t *rows,
                                sc_err_t *err)
{
    char path[PATH_MAX];
    if (rows->n == 0)
        return SC_OK;
    return sc_csv_write_records(sc_results_path(res, "traffic.csv", path, sizeof(path)),
                                rows->items, rows->n, sizeof(*rows->items), sc_traffic_row_fields,
                                err);
}

sc_status_t sc_pairs_save_csv(const sc_results_t *res, const char *extra,
                              const sc_pair_rows_t *rows, sc_err_t *err)
{
    char path[PATH_MAX];
    sc_status_t status =
        sc_csv_write_records(sc_results_path(res, "pairs.csv", path, sizeof(path)), rows->items,
                             rows->n, sizeof(*rows->items), sc_pair_row_fields, err);
    if (status == SC_OK && extra != NULL)
        status = sc_csv_write_records(extra, rows->items, rows->n, sizeof(*rows->items),
                                      sc_pair_row_fields, err);
    return status;
}
