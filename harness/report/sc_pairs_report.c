/* sc_pairs_report.c - what `scalecheck pairs` makes of its matrices: heatmaps, a check per
 * pair, the suspects, the verdict, the JSON and the CSV. */
#include "report/sc_pairs_report.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "judge/sc_localize.h"
#include "judge/sc_verdict.h"
#include "report/sc_json_out.h"

/* A terminal heatmap: each cell's bandwidth against the reference. */
static void pairs__heatmap(sc_results_t *res, const double *m, int n, const char *const *names,
                           double reference, const char *title)
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
            if (i == j) {
                sc_results_printf(res, " %10s", "-");
                continue;
            }
            double f = reference > 0 ? m[i * n + j] / reference : 0;
            int s = f >= 0.9 ? 4 : f >= 0.75 ? 3 : f >= 0.5 ? 2 : f >= 0.25 ? 1 : 0;
            sc_results_printf(res, " %s%8.3f", shades[s], m[i * n + j]);
        }
        sc_results_printf(res, "\n");
    }
}

static json_t *pairs__matrix_json(const double *m, int n)
{
    json_t *rows = json_array();
    for (int i = 0; i < n; i++) {
        json_t *row = json_array();
        for (int j = 0; j < n; j++)
            json_array_append_new(row, json_real(m[i * n + j]));
        json_array_append_new(rows, row);
    }
    return rows;
}

static void pairs__check_name(char *buf, size_t len, const char *a, const char *b)
{
    snprintf(buf, len, "pair %s <-> %s bandwidth", a, b);
}

/* A row and a check per pair (the slower direction against the reference), in the same order. */
static void pairs__rows_and_checks(const sc_pairs_matrix_t *m, const char *const *names,
                                   double reference, double tolerance, const char *source,
                                   json_t *rows, json_t *checks)
{
    int n = m->n;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double ab = m->uni[i * n + j], ba = m->uni[j * n + i];
            char name[160];
            pairs__check_name(name, sizeof(name), names[i], names[j]);
            sc_verdict_add(checks, name, "GBps", ab < ba ? ab : ba, reference, tolerance, true,
                           source);
            json_array_append_new(rows,
                                  json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:i}", "a", names[i],
                                            "b", names[j], "uni_ab_GBps", ab, "uni_ba_GBps", ba,
                                            "bidir_GBps", m->bidir[i * n + j], "latency_us",
                                            m->lat[i * n + j], "looks", m->looks[i * n + j]));
        }
}

/* A pair the localisation found slow (slow at every look) fails, whatever the WARN band says;
 * then each row gets its check's verdict. */
static void pairs__fail_slow(const json_t *loc, json_t *rows, json_t *checks)
{
    size_t k, c;
    json_t *s, *check, *row;
    json_array_foreach(json_object_get(loc, "slow_pairs"), k, s)
    {
        char name[160];
        pairs__check_name(name, sizeof(name), json_string_value(json_object_get(s, "a")),
                          json_string_value(json_object_get(s, "b")));
        json_array_foreach(checks, c, check)
        {
            if (!strcmp(json_string_value(json_object_get(check, "name")), name))
                json_object_set_new(check, "verdict", json_string("FAIL"));
        }
    }
    json_array_foreach(rows, k, row)
    {
        json_object_set(row, "verdict", json_object_get(json_array_get(checks, k), "verdict"));
    }
}

/* The note on a doubtful reference (then a WARN check: never a clean PASS) and the suspects. */
static void pairs__print_findings(sc_results_t *res, const json_t *loc, double tolerance,
                                  json_t *checks)
{
    json_t *note = json_object_get(loc, "reference_note");
    if (json_is_string(note)) {
        sc_results_printf(res, "#\n# note: %s\n", json_string_value(note));
        sc_verdict_add(checks, "matrix median against the best pair", "GBps",
                       json_real_value(json_object_get(loc, "reference_GBps")),
                       json_real_value(json_object_get(loc, "best_GBps")), tolerance, true,
                       "best pair");
        json_object_set_new(json_array_get(checks, json_array_size(checks) - 1), "verdict",
                            json_string("WARN"));
    }
    json_t *suspects = json_object_get(loc, "suspects"), *s;
    size_t k;
    sc_results_printf(res, "#\n# suspects: %zu\n", json_array_size(suspects));
    json_array_foreach(suspects, k, s)
    {
        sc_results_printf(res, "  SUSPECT %-4s %-24s %s\n",
                          json_string_value(json_object_get(s, "kind")),
                          json_string_value(json_object_get(s, "where")),
                          json_string_value(json_object_get(s, "evidence")));
    }
}

bool sc_pairs_report(sc_results_t *res, const sc_pairs_matrix_t *m, const char *const *names,
                     double expected, double tolerance, json_t *doc)
{
    int n = m->n;
    json_t *loc = sc_localize(m->uni, n, names, expected, tolerance);
    double reference = json_real_value(json_object_get(loc, "reference_GBps"));
    pairs__heatmap(res, m->uni, n, names, reference, "uni-directional bandwidth");
    pairs__heatmap(res, m->bidir, n, names, 2 * reference,
                   "bi-directional bandwidth (both directions)");
    json_t *checks = json_array(), *rows = json_array();
    pairs__rows_and_checks(m, names, reference, tolerance,
                           expected > 0 ? "topology" : "matrix median", rows, checks);
    pairs__fail_slow(loc, rows, checks);
    pairs__print_findings(res, loc, tolerance, checks);
    json_t *verdict = sc_verdict_summary(checks);
    sc_results_printf(res, "# verdict: %s (%lld pass, %lld warn, %lld fail)\n",
                      json_string_value(json_object_get(verdict, "verdict")),
                      json_integer_value(json_object_get(verdict, "pass")),
                      json_integer_value(json_object_get(verdict, "warn")),
                      json_integer_value(json_object_get(verdict, "fail")));
    bool failed = json_integer_value(json_object_get(verdict, "fail")) > 0 ||
                  json_array_size(json_object_get(loc, "suspects")) > 0;
    json_object_set_new(doc, "uni_GBps", pairs__matrix_json(m->uni, n));
    /* later looks run each pair alone: in concurrent mode a pair slow only under the load of the
     * others passes at a later look, and this keeps what the first look saw */
    json_object_set_new(doc, "uni_first_look_GBps", pairs__matrix_json(m->first, n));
    json_object_set_new(doc, "bidir_GBps", pairs__matrix_json(m->bidir, n));
    json_object_set_new(doc, "latency_us", pairs__matrix_json(m->lat, n));
    json_object_set_new(doc, "pairs", rows);
    json_object_set_new(doc, "localization", loc);
    json_object_set_new(doc, "checks", checks);
    json_object_set_new(doc, "verdict", verdict);
    return failed;
}

sc_status_t sc_pairs_save_csv(const sc_results_t *res, const char *extra, const json_t *rows,
                              sc_err_t *err)
{
    static const char *const fields[] = {"a",           "b",          "uni_ab_GBps",
                                         "uni_ba_GBps", "bidir_GBps", "latency_us",
                                         "looks",       "verdict",    NULL};
    char path[PATH_MAX];
    sc_status_t status =
        sc_csv_write_rows(sc_results_path(res, "pairs.csv", path, sizeof(path)), rows, fields, err);
    return status == SC_OK && extra != NULL ? sc_csv_write_rows(extra, rows, fields, err) : status;
}
