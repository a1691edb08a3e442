#include "sc_report.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "session/sc_results.h"
#include "judge/sc_verdict.h"
#include "report/sc_verdict_render.h"
#include "report/sc_json_out.h"
#include "util/sc_files.h"

sc_status_t sc_report_load(const char *dir, json_t **doc, sc_err_t *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    json_error_t jerr;
    *doc = json_load_file(path, 0, &jerr);
    if (*doc == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: %s", path, jerr.line, jerr.column,
                          jerr.text);
    if (!json_is_object(*doc) || json_object_get(*doc, "command") == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s: not a scalecheck result", path);
    return SC_OK;
}

static double sc__num(const json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

/* Writes a gnuplot data file: one row per element of rows, the columns named by keys. */
static sc_status_t sc__dat(const char *dir, const char *file, const json_t *rows,
                           const char *const *keys, sc_err_t *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        for (size_t k = 0; keys[k]; k++)
            fprintf(f, "%s%.9g", k ? " " : "", sc__num(r, keys[k]));
        fputc('\n', f);
    }
    return fclose(f) == 0 ? SC_OK : sc_err_set(err, SC_ERR_IO, "cannot write %s", path);
}

/* Runs gnuplot on script in dir; false (and why) when it is not there or fails. The directory
 * goes to the shell in single quotes, each quote in it written as '\'' (a run name may hold one).
 */
static bool sc__gnuplot(const char *dir, const char *script, char *why, size_t len)
{
    char cmd[2 * PATH_MAX + 64];
    size_t used = (size_t)snprintf(cmd, sizeof(cmd), "cd '");
    for (const char *c = dir; *c && used + 40 < sizeof(cmd); c++) {
        if (*c == '\'')
            used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, "'\\''");
        else
            cmd[used++] = *c;
    }
    snprintf(cmd + used, sizeof(cmd) - used, "' && gnuplot 2>gnuplot.err");
    FILE *p = popen(cmd, "w");
    if (p == NULL) {
        snprintf(why, len, "cannot start gnuplot");
        return false;
    }
    fputs(script, p);
    int rc = pclose(p);
    if (rc != 0)
        snprintf(why, len, "gnuplot failed or is not installed (exit %d, see gnuplot.err)",
                 WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
    return rc == 0;
}

static const char *sc__plot_style =
    "reset\nset terminal svg size 720,440 dynamic font 'sans,12' background '#ffffff'\n"
    "set grid\nset key top left\n";

typedef struct {
    const char *name;        /* NAME.dat is written, NAME.svg drawn */
    const char *rows_key;    /* the rows in the result document */
    const char *const *keys; /* the columns of NAME.dat */
    const char *commands;    /* titles, axes and the plot line */
} sc__plot_t;

static const char *const sc__speedup_keys[] = {"gpus", "speedup", "expected_speedup", NULL};
static const char *const sc__busbw_keys[] = {"size_bytes", "busbw_GBps", "expected_busbw_GBps",
                                             NULL};
static const sc__plot_t sc__plot_list[] = {
    {"speedup", "points", sc__speedup_keys,
     "set title 'Speedup vs GPUs'\nset xlabel 'GPUs'\nset ylabel 'speedup'\n"
     "set logscale x 2\nset logscale y 2\n"
     "plot 'speedup.dat' u 1:1 w l dt 2 lc rgb '#888888' t 'ideal', "
     "'' u 1:3 w lp lc rgb '#1f77b4' t 'expected (model)', "
     "'' u 1:2 w lp lw 2 lc rgb '#d62728' t 'measured'\n"},
    {"busbw", "sweep", sc__busbw_keys,
     "set title 'Bus bandwidth vs size'\nset xlabel 'size (bytes)'\nset ylabel 'busbw (GB/s)'\n"
     "set logscale x 2\n"
     "plot 'busbw.dat' u 1:3 w lp lc rgb '#1f77b4' t 'expected (model)', "
     "'' u 1:2 w lp lw 2 lc rgb '#d62728' t 'measured'\n"},
};

/* speedup.svg (run) and busbw.svg (sweep, or coll's results), drawn by one gnuplot; names the
 * plots made in plots. */
static void sc__plots(const char *dir, const json_t *doc, json_t *plots, char *why, size_t len)
{
    char script[4096] = "";
    size_t used = 0, n = sizeof(sc__plot_list) / sizeof(sc__plot_list[0]);
    bool drawn[sizeof(sc__plot_list) / sizeof(sc__plot_list[0])] = {false};
    for (size_t i = 0; i < n; i++) {
        const sc__plot_t *pl = &sc__plot_list[i];
        const json_t *rows = json_object_get(doc, pl->rows_key);
        if (rows == NULL && !strcmp(pl->rows_key, "sweep"))
            rows = json_object_get(doc, "results");
        char dat[64];
        snprintf(dat, sizeof(dat), "%s.dat", pl->name);
        sc_err_t ignored;
        if (json_array_size(rows) == 0 || sc__dat(dir, dat, rows, pl->keys, &ignored) != SC_OK)
            continue;
        used += (size_t)snprintf(script + used, sizeof(script) - used, "%sset output '%s.svg'\n%s",
                                 sc__plot_style, pl->name, pl->commands);
        drawn[i] = true;
    }
    if (used == 0 || !sc__gnuplot(dir, script, why, len))
        return;
    for (size_t i = 0; i < n; i++) {
        char svg[64];
        snprintf(svg, sizeof(svg), "%s.svg", sc__plot_list[i].name);
        if (drawn[i])
            json_array_append_new(plots, json_string(svg));
    }
}

static void sc__html_file(FILE *out, const char *dir, const char *file)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return;
    char buf[8192];
    size_t n;
    bool past_prolog = false;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
        const char *start = buf;
        if (!past_prolog) { /* drop the XML declaration: inline SVG does not want it */
            const char *svg = strstr(buf, "<svg");
            start = svg ? svg : buf;
            past_prolog = svg != NULL;
        }
        fwrite(start, 1, n - (size_t)(start - buf), out);
    }
    fclose(in);
}

static void sc__html_table(FILE *out, const json_t *rows, const char *const *keys)
{
    fprintf(out, "<table><tr>");
    for (size_t k = 0; keys[k]; k++)
        fprintf(out, "<th>%s</th>", keys[k]);
    fprintf(out, "</tr>\n");
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        fprintf(out, "<tr>");
        for (size_t k = 0; keys[k]; k++) {
            json_t *v = json_object_get(r, keys[k]);
            if (json_is_string(v)) {
                const char *s = json_string_value(v);
                const char *cls = !strcmp(s, "PASS")   ? " class=pass"
                                  : !strcmp(s, "WARN") ? " class=warn"
                                  : !strcmp(s, "FAIL") ? " class=fail"
                                                       : "";
                fprintf(out, "<td%s>", cls);
                sc_files_xml_text(out, s);
                fprintf(out, "</td>");
            } else if (json_is_number(v)) {
                fprintf(out, "<td>%.4g</td>", json_number_value(v));
            } else {
                fprintf(out, "<td></td>");
            }
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</table>\n");
}

typedef struct {
    const char *dir;
    const json_t *doc, *summary, *plots;
} sc__html_t;

static int sc__html_writer(FILE *out, void *arg)
{
    const sc__html_t *h = arg;
    const json_t *doc = h->doc;
    const char *verdict = json_string_value(json_object_get(h->summary, "verdict"));
    fprintf(out,
            "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>scalecheck %s</title>"
            "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
            "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
            "padding:3px 8px;text-align:right}th{background:#eee}.pass{background:#c8f0c8}"
            ".warn{background:#fff0b0}.fail{background:#f6c0c0}.badge{font-size:1.4em;"
            "padding:4px 12px}</style></head><body>\n",
            json_string_value(json_object_get(doc, "command")));
    fprintf(out, "<h1>scalecheck %s</h1>\n<p>", json_string_value(json_object_get(doc, "command")));
    static const char *const facts[] = {"workload",  "topology",    "backend",
                                        "start_utc", "results_dir", NULL};
    for (size_t i = 0; facts[i]; i++)
        if (json_is_string(json_object_get(doc, facts[i]))) {
            fprintf(out, "<b>%s</b>: ", facts[i]);
            sc_files_xml_text(out, json_string_value(json_object_get(doc, facts[i])));
            fprintf(out, "<br>\n");
        }
    fprintf(out, "<b>ranks</b>: %lld on %lld host(s)</p>\n",
            json_integer_value(json_object_get(doc, "ranks")),
            json_integer_value(json_object_get(doc, "nhosts")));
    if (verdict)
        fprintf(out, "<p>verdict: <span class='badge %s'>%s</span></p>\n",
                !strcmp(verdict, "PASS")   ? "pass"
                : !strcmp(verdict, "WARN") ? "warn"
                                           : "fail",
                verdict);
    size_t i;
    for (i = 0; i < json_array_size(h->plots); i++)
        sc__html_file(out, h->dir, json_string_value(json_array_get(h->plots, i)));
    static const char *const pk[] = {"gpus",
                                     "nodes",
                                     "dp",
                                     "tp",
                                     "pp",
                                     "step_time_ms",
                                     "step_time_p99_ms",
                                     "throughput",
                                     "speedup",
                                     "expected_speedup",
                                     "efficiency",
                                     "expected_efficiency",
                                     "comm_fraction",
                                     "slowest_host",
                                     NULL};
    static const char *const sk[] = {"collective", "size_bytes",          "time_us",
                                     "busbw_GBps", "expected_busbw_GBps", NULL};
    static const char *const ck[] = {"name",  "metric",  "measured", "expected",
                                     "ratio", "verdict", NULL};
    if (json_array_size(json_object_get(doc, "points"))) {
        fprintf(out, "<h2>Scaling curve</h2>\n");
        sc__html_table(out, json_object_get(doc, "points"), pk);
    }
    const json_t *sweep = json_object_get(doc, "sweep");
    if (sweep == NULL)
        sweep = json_object_get(doc, "results");
    if (json_array_size(sweep)) {
        fprintf(out, "<h2>Collective sweep</h2>\n");
        sc__html_table(out, sweep, sk);
    }
    if (json_array_size(json_object_get(doc, "checks"))) {
        fprintf(out, "<h2>Checks</h2>\n");
        sc__html_table(out, json_object_get(doc, "checks"), ck);
    }
    if (json_array_size(json_object_get(doc, "findings"))) {
        static const char *const fk[] = {"severity", "what", "declared", "detected", NULL};
        fprintf(out, "<h2>Declared vs detected</h2>\n");
        sc__html_table(out, json_object_get(doc, "findings"), fk);
    }
    fprintf(out, "</body></html>\n");
    return ferror(out);
}

sc_status_t sc_report_render(const char *dir, const json_t *doc, sc_err_t *err)
{
    json_t *checks = json_object_get(doc, "checks");
    json_t *summary = checks ? sc_verdict_summary(checks) : json_pack("{s:s}", "verdict", "NONE");
    json_t *plots = json_array();
    char why[256] = "";
    sc__plots(dir, doc, plots, why, sizeof(why));
    json_object_set(summary, "plots", plots);
    if (why[0])
        json_object_set_new(summary, "plots_note", json_string(why));
    static const char *const copy[] = {"command", "workload", "topology", "backend",
                                       "ranks",   "nhosts",   "state",    NULL};
    for (size_t i = 0; copy[i]; i++)
        if (json_object_get(doc, copy[i]))
            json_object_set(summary, copy[i], json_object_get(doc, copy[i]));
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/summary.json", dir);
    sc_status_t status = sc_json_write_file(path, summary, err);
    if (status == SC_OK && checks) {
        snprintf(path, sizeof(path), "%s/junit.xml", dir);
        status = sc_verdict_write_junit(path, json_string_value(json_object_get(doc, "command")),
                                        checks, err);
    }
    if (status == SC_OK) {
        sc__html_t h = {dir, doc, summary, plots};
        snprintf(path, sizeof(path), "%s/report.html", dir);
        status = sc_files_write_text(path, sc__html_writer, &h, err);
    }
    json_decref(plots);
    json_decref(summary);
    return status;
}

/* The identity of a point and its main figure, per command. */
static void sc__key(const json_t *row, bool run, char *key, size_t len, double *figure)
{
    if (run) {
        snprintf(key, len, "%lld GPUs x %lld nodes",
                 json_integer_value(json_object_get(row, "gpus")),
                 json_integer_value(json_object_get(row, "nodes")));
        *figure = sc__num(row, "throughput");
    } else {
        snprintf(key, len, "%s %s %s %lld B%s",
                 json_string_value(json_object_get(row, "collective")),
                 json_string_value(json_object_get(row, "dtype")),
                 json_string_value(json_object_get(row, "op")),
                 json_integer_value(json_object_get(row, "size_bytes")),
                 json_is_true(json_object_get(row, "in_place")) ? " in-place" : "");
        *figure = sc__num(row, "busbw_GBps") > 0 ? sc__num(row, "busbw_GBps")
                                                 : 1.0 / sc__num(row, "time_us");
    }
}

sc_status_t sc_report_compare(const json_t *a, const json_t *b, double tolerance, int *regressions,
                              sc_err_t *err)
{
    const char *ca = json_string_value(json_object_get(a, "command"));
    const char *cb = json_string_value(json_object_get(b, "command"));
    if (ca == NULL || cb == NULL || strcmp(ca, cb) != 0)
        return sc_err_set(err, SC_ERR_INPUT, "report: cannot compare a '%s' run with a '%s' run",
                          ca ? ca : "?", cb ? cb : "?");
    bool run = strcmp(ca, "run") == 0;
    const char *list = run ? "points" : "results";
    *regressions = 0;
    printf("# %-44s %12s %12s %8s\n", run ? "point (throughput)" : "point (busbw)", "before",
           "after", "ratio");
    size_t i, j;
    json_t *rb, *ra;
    json_array_foreach(json_object_get(b, list), i, rb)
    {
        char kb[160], ka[160];
        double fb, fa;
        sc__key(rb, run, kb, sizeof(kb), &fb);
        json_array_foreach(json_object_get(a, list), j, ra)
        {
            sc__key(ra, run, ka, sizeof(ka), &fa);
            if (strcmp(ka, kb) != 0 || fa <= 0)
                continue;
            double ratio = fb / fa;
            bool worse = ratio < 1.0 - tolerance;
            *regressions += worse;
            printf("  %-44s %12.4g %12.4g %8.3f%s\n", kb, fa, fb, ratio,
                   worse ? "  REGRESSION" : "");
            break;
        }
    }
    printf("# %d regression%s beyond %.0f %%\n", *regressions, *regressions == 1 ? "" : "s",
           tolerance * 100);
    return SC_OK;
}
