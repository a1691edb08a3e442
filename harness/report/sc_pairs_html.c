/* sc_pairs_html.c - the pairs run's part of report.html, at the top of the page: the suspects
 * the localisation named, then the matrix as a heatmap (each pair's slower direction against
 * the reference, a pair the strategy left out shown as not measured - never as 0 GB/s). */
#include "report/sc_report_core.h"

#include <stdlib.h>
#include <string.h>

#include "util/sc_files.h"

/* The participant named name, or -1. */
static int pairs_html__index(const sc_result_t *r, const char *name)
{
    for (int i = 0; i < r->npairs_nodes; i++)
        if (!strcmp(r->pair_names[i], name))
            return i;
    return -1;
}

static void pairs_html__suspects(FILE *out, const sc_result_t *r)
{
    const sc_localization_t *loc = &r->localization;
    if (!r->has_localization && loc->nsuspects == 0)
        return;
    fprintf(out, "<div class='verdict %s'><h2>Suspects: %d</h2>\n",
            loc->nsuspects ? "fail" : "pass", loc->nsuspects);
    if (loc->nsuspects == 0)
        fprintf(out, "<p>no node, link or switch is slower than the others</p>\n");
    for (int k = 0; k < loc->nsuspects; k++) {
        fprintf(out, "<p><b>SUSPECT %s ", loc->suspects[k].kind);
        sc_files_xml_text(out, loc->suspects[k].where);
        fprintf(out, "</b>: ");
        sc_files_xml_text(out, loc->suspects[k].evidence);
        fprintf(out, "</p>\n");
    }
    if (loc->reference_note[0] != '\0') {
        fprintf(out, "<p>note: ");
        sc_files_xml_text(out, loc->reference_note);
        fprintf(out, "</p>\n");
    }
    fprintf(out, "</div>\n");
}

/* The cell of participants i and j: its pair row's index, or -1 (not measured). */
static void pairs_html__cells(const sc_result_t *r, int *cell)
{
    int n = r->npairs_nodes;
    for (int k = 0; k < n * n; k++)
        cell[k] = -1;
    for (size_t k = 0; k < r->pairs.n; k++) {
        int a = pairs_html__index(r, r->pairs.items[k].a);
        int b = pairs_html__index(r, r->pairs.items[k].b);
        if (a >= 0 && b >= 0)
            cell[a * n + b] = cell[b * n + a] = (int)k;
    }
}

static void pairs_html__cell(FILE *out, const sc_result_t *r, const int *cell, int i, int j)
{
    static const char *const classes[] = {"pass", "warn", "fail"};
    int n = r->npairs_nodes, k = cell[i * n + j];
    if (i == j) {
        fprintf(out, "<td>-</td>");
        return;
    }
    if (k < 0) {
        fprintf(out, "<td class=unmeasured title='not measured'>&middot;</td>");
        return;
    }
    const sc_pair_row_t *row = &r->pairs.items[k];
    bool forward = !strcmp(row->a, r->pair_names[i]);
    fprintf(out, "<td class=%s>%.3g</td>", classes[row->level],
            forward ? row->uni_ab_GBps : row->uni_ba_GBps);
}

static void pairs_html__heatmap(FILE *out, const sc_result_t *r)
{
    int n = r->npairs_nodes;
    if (n < 2 || r->pair_names == NULL || r->pairs.n == 0)
        return;
    if (n > SC_PAIRS_HTML_MAX) {
        fprintf(out, "<p>%d participants: no heatmap above %d (the pairs below, pairs.csv)</p>\n",
                n, SC_PAIRS_HTML_MAX);
        return;
    }
    int *cell = malloc((size_t)n * (size_t)n * sizeof(int));
    if (cell == NULL)
        return;
    pairs_html__cells(r, cell);
    fprintf(out,
            "<h2>Pair matrix</h2>\n<p>uni-directional GB/s from the row to the column, held to "
            "%.3g GB/s; &middot; not measured (the %s strategy left the pair out)</p>\n"
            "<div class=wide><table><tr><th>from \\ to</th>",
            r->localization.reference_GBps, r->strategy[0] ? r->strategy : "search");
    for (int j = 0; j < n; j++) {
        fprintf(out, "<th>");
        sc_files_xml_text(out, r->pair_names[j]);
        fprintf(out, "</th>");
    }
    fprintf(out, "</tr>\n");
    for (int i = 0; i < n; i++) {
        fprintf(out, "<tr><th>");
        sc_files_xml_text(out, r->pair_names[i]);
        fprintf(out, "</th>");
        for (int j = 0; j < n; j++)
            pairs_html__cell(out, r, cell, i, j);
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</table></div>\n");
    free(cell);
}

void sc_pairs_html(FILE *out, const sc_result_t *r)
{
    if (strcmp(r->command, "pairs") != 0)
        return;
    pairs_html__suspects(out, r);
    pairs_html__heatmap(out, r);
}
