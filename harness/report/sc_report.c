#include "report/sc_prometheus.h"
#include "report/sc_report_core.h"
#include "sc_report.h"
#include "report/sc_report_outputs.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>

#include "report/sc_json_out.h"
#include "report/sc_report_busbw.h"
#include "report/sc_verdict_render.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

/* A field's cell: text as it is, numbers at 9 significant digits, absent figures as NaN
 * (gnuplot leaves those points out). */
static void report__dat_cell(FILE *f, const sc_field_t *field, const void *record)
{
    double v = sc_field_number(field, record);
    if (sc_field_present(field, record) && sc_present(v))
        fprintf(f, "%.9g", v);
    else
        fprintf(f, "NaN");
}

/* Writes a gnuplot data file: one row per record, the columns named by keys. */
static sc_status_t report__dat(const char *dir, const char *file, const void *items, size_t n,
                               size_t elem_size, const sc_field_t *fields, const char *const *keys,
                               sc_err_t *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    for (size_t i = 0; i < n; i++) {
        const void *record = (const char *)items + i * elem_size;
        for (size_t k = 0; keys[k]; k++) {
            fputs(k ? " " : "", f);
            for (const sc_field_t *field = fields; field->name; field++)
                if (strcmp(field->name, keys[k]) == 0)
                    report__dat_cell(f, field, record);
        }
        fputc('\n', f);
    }
    return fclose(f) == 0 ? SC_OK : sc_err_set(err, SC_ERR_IO, "cannot write %s", path);
}

/* Runs gnuplot on script in stage (a folder of its own, see sc_report_stage_open), for 30 s at
 * most; false (and why) when it is not there, fails or runs over. The folder goes to the shell in
 * single quotes, each quote in it written as '\'' (a run name may hold one). */
bool sc_report_gnuplot(const char *stage, const char *script, char *why, size_t len)
{
    char cmd[2 * PATH_MAX + 64];
    size_t used = (size_t)snprintf(cmd, sizeof(cmd), "cd '");
    for (const char *c = stage; *c && used + 40 < sizeof(cmd); c++) {
        if (*c == '\'')
            used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, "'\\''");
        else
            cmd[used++] = *c;
    }
    /* bounded: every ending renders the report now, the watchdog's too, which must end */
    snprintf(cmd + used, sizeof(cmd) - used, "' && timeout -k 2 30 gnuplot 2>gnuplot.err");
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

bool sc_report_stage_open(const char *dir, char *stage, size_t len, char *why, size_t why_len)
{
    if ((size_t)snprintf(stage, len, "%s/.plots-XXXXXX", dir) < len && mkdtemp(stage) != NULL)
        return true;
    snprintf(why, why_len, "cannot make a folder for the plots in %s: %s", dir, strerror(errno));
    return false;
}

void sc_report_stage_close(const char *stage, const char *dir)
{
    DIR *d = opendir(stage);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char from[PATH_MAX], to[PATH_MAX];
        snprintf(from, sizeof(from), "%s/%s", stage, e->d_name);
        snprintf(to, sizeof(to), "%s/%s", dir, e->d_name);
        if (rename(from, to) != 0) /* a folder in the way: the plot is not kept */
            unlink(from);
    }
    if (d != NULL)
        closedir(d);
    rmdir(stage);
}

void sc_report_gnuplot_text(char *buf, size_t len, const char *text)
{
    size_t n = 0;
    if (len < 3)
        return;
    buf[n++] = '\'';
    for (const char *c = text; *c && n + 3 < len; c++) {
        if (*c == '\'')
            buf[n++] = '\''; /* doubled: the only escape a single-quoted string has */
        buf[n++] = (unsigned char)*c < 0x20 ? ' ' : *c; /* a newline would end the command */
    }
    buf[n++] = '\'';
    buf[n] = '\0';
}

const char *const sc_report_plot_style =
    "reset\nset terminal svg size 720,440 dynamic font 'sans,12' background '#ffffff'\n"
    "set grid\nset key top left\n";

/* The rows a plot draws: the run's points, the sweep (run) or the cases (coll). */
typedef struct {
    const void *items;
    size_t n, elem_size;
    const sc_field_t *fields;
} report__rows_t;

static report__rows_t report__points_rows(const sc_result_t *r)
{
    return (report__rows_t){r->points.items, r->points.n, sizeof(sc_point_t), sc_point_fields};
}

static report__rows_t report__sweep_rows(const sc_result_t *r)
{
    const sc_case_rows_t *rows = r->sweep.n > 0 ? &r->sweep : &r->cases;
    return (report__rows_t){rows->items, rows->n, sizeof(sc_case_row_t), sc_case_row_fields};
}

/* speedup.dat (the run's points) and the commands that draw it; false: nothing to draw. */
static bool report__speedup_data(const char *stage, const sc_result_t *r, char *commands,
                                 size_t size)
{
    static const char *const keys[] = {"gpus", "speedup", "expected_speedup", NULL};
    report__rows_t rows = report__points_rows(r);
    sc_err_t ignored;
    if (rows.n == 0 || report__dat(stage, "speedup.dat", rows.items, rows.n, rows.elem_size,
                                   rows.fields, keys, &ignored) != SC_OK)
        return false;
    snprintf(commands, size, "%s",
             "set title 'Speedup vs GPUs'\nset xlabel 'GPUs'\nset ylabel 'speedup'\n"
             "set logscale x 2\nset yrange [0:*]\nset rmargin 4\n"
             "plot 'speedup.dat' u 1:1 w l dt 2 lc rgb '#888888' t 'ideal', "
             "'' u 1:3 w lp lc rgb '#1f77b4' t 'expected (model)', "
             "'' u 1:2 w lp lw 2 lc rgb '#d62728' t 'measured'\n");
    return true;
}

/* busbw.dat (the sweep's cases, run; coll's cases) and the commands that draw it. */
static bool report__busbw_data(const char *stage, const sc_result_t *r, char *commands, size_t size)
{
    report__rows_t rows = report__sweep_rows(r);
    sc_err_t ignored;
    return sc_report_busbw_curves(stage, rows.items, rows.n, commands, size, &ignored) > 0;
}

typedef struct {
    const char *name; /* NAME.svg drawn */
    bool (*data)(const char *stage, const sc_result_t *r, char *commands, size_t size);
} report__plot_t;

static const report__plot_t report__plot_list[] = {
    {"speedup", report__speedup_data},
    {"busbw", report__busbw_data},
};
#define SC__NPLOTS (sizeof(report__plot_list) / sizeof(report__plot_list[0]))

/* speedup.svg (run) and busbw.svg (sweep, or coll's results), drawn by one gnuplot; names the
 * plots made in plots. */
static int report__plots(const char *dir, const sc_result_t *r, const char **plots, char *why,
                         size_t len)
{
    char script[8192] = "", commands[4096], stage[PATH_MAX];
    size_t used = 0;
    bool drawn[SC__NPLOTS] = {false};
    if (!sc_report_stage_open(dir, stage, sizeof(stage), why, len))
        return 0;
    for (size_t i = 0; i < SC__NPLOTS && used < sizeof(script); i++) {
        const report__plot_t *pl = &report__plot_list[i];
        if (!pl->data(stage, r, commands, sizeof(commands)))
            continue;
        used += (size_t)snprintf(script + used, sizeof(script) - used, "%sset output '%s.svg'\n%s",
                                 sc_report_plot_style, pl->name, commands);
        drawn[i] = used < sizeof(script);
    }
    bool ok = used > 0 && used < sizeof(script) && sc_report_gnuplot(stage, script, why, len);
    sc_report_stage_close(stage, dir);
    if (!ok)
        return 0;
    int n = 0;
    static const char *const svgs[SC__NPLOTS] = {"speedup.svg", "busbw.svg"};
    for (size_t i = 0; i < SC__NPLOTS; i++)
        if (drawn[i])
            plots[n++] = svgs[i];
    return n;
}

void sc_report_html_file(FILE *out, const char *dir, const char *file)
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

static const char *report__level_class(const char *s)
{
    int level = sc_level_parse(s);
    return level == SC_LEVEL_PASS   ? " class=pass"
           : level == SC_LEVEL_WARN ? " class=warn"
           : level == SC_LEVEL_FAIL ? " class=fail"
                                    : "";
}

/* A number as a reader wants it: counts and sizes whole (16384, not 1.638e+04), a flag as
 * yes/no, a figure to 4 significant digits (whole from 10^4 up). */
static void report__html_number(FILE *out, const sc_field_t *f, const void *record)
{
    double v = sc_field_number(f, record);
    if (f->kind == SC_FIELD_BOOL)
        fprintf(out, "<td>%s</td>", v != 0 ? "yes" : "no");
    else if (f->kind == SC_FIELD_INT || f->kind == SC_FIELD_U64 || f->kind == SC_FIELD_I64 ||
             (fabs(v) >= 1e4 && fabs(v) < 1e15))
        fprintf(out, "<td>%.0f</td>", v);
    else
        fprintf(out, "<td>%.4g</td>", v);
}

void sc_report_header(const char *name, char *out, size_t len)
{
    static const struct {
        const char *suffix, *unit;
    } units[] = {{"_GBps", "GB/s"}, {"_bytes", "B"}, {"_us", "us"}, {"_ms", "ms"},
                 {"_s", "s"},       {"_c", "C"},     {"_w", "W"}};
    size_t n = strlen(name), cut = n;
    const char *unit = NULL;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && unit == NULL; i++) {
        size_t s = strlen(units[i].suffix);
        if (n > s && strcmp(name + n - s, units[i].suffix) == 0) {
            unit = units[i].unit;
            cut = n - s;
        }
    }
    size_t used = 0;
    for (size_t i = 0; i < cut && used + 1 < len; i++)
        out[used++] = name[i] == '_' ? ' ' : name[i];
    out[used] = '\0';
    if (unit != NULL)
        snprintf(out + used, len - used, " (%s)", unit);
}

/* The records' fields shown in HTML, one row each, headed in words and units ("busbw (GB/s)"),
 * scrolling sideways inside the page when wider than it. */
static void report__html_table(FILE *out, const char *title, report__rows_t rows)
{
    if (rows.n == 0)
        return;
    fprintf(out, "<h2>%s</h2>\n<div class=wide><table><tr>", title);
    for (const sc_field_t *f = rows.fields; f->name; f++)
        if (f->show & SC_SHOW_HTML) {
            char header[96];
            sc_report_header(f->name, header, sizeof(header));
            fprintf(out, "<th>%s</th>", header);
        }
    fprintf(out, "</tr>\n");
    for (size_t i = 0; i < rows.n; i++) {
        const void *record = (const char *)rows.items + i * rows.elem_size;
        fprintf(out, "<tr>");
        for (const sc_field_t *f = rows.fields; f->name; f++) {
            if (!(f->show & SC_SHOW_HTML))
                continue;
            if (!sc_field_present(f, record)) {
                fprintf(out, "<td></td>");
            } else if (sc_field_text(f, record) != NULL) {
                const char *s = sc_field_text(f, record);
                fprintf(out, "<td%s>", report__level_class(s));
                sc_files_xml_text(out, s);
                fprintf(out, "</td>");
            } else {
                report__html_number(out, f, record);
            }
        }
        fprintf(out, "</tr>\n");
    }
    fprintf(out, "</table></div>\n");
}

/* The checks that did not pass, first in the verdict's box: what failed and why, FAILs first. */
static void report__html_not_passed(FILE *out, const sc_result_t *r)
{
    enum { SHOWN = 12 };
    int listed = 0, more = 0;
    for (int level = SC_LEVEL_FAIL; level >= SC_LEVEL_WARN; level--)
        for (size_t i = 0; i < r->checks.n; i++) {
            const sc_check_t *c = &r->checks.items[i];
            if ((int)c->level != level)
                continue;
            if (listed == SHOWN) {
                more++;
                continue;
            }
            fprintf(out, "%s<li><b>%s</b> ", listed++ ? "" : "<ul>", sc_level_name(c->level));
            sc_files_xml_text(out, c->name);
            fprintf(out, ": measured %.4g against %.4g expected (ratio %.3f)", c->measured,
                    c->expected, c->ratio);
            if (c->note[0] != '\0') {
                fprintf(out, " - ");
                sc_files_xml_text(out, c->note);
            }
            fprintf(out, "</li>\n");
        }
    more += r->unlisted.checks - r->unlisted.pass;
    if (more > 0)
        fprintf(out, "%s<li>and %d more that did not pass (the Checks table; result.json)</li>\n",
                listed ? "" : "<ul>", more);
    if (listed > 0 || more > 0)
        fprintf(out, "</ul>\n");
}

/* A run shrunk to fit (--bytes-scale, --compute-scale below 1) measured less than the workload:
 * said on top, with how it was run, so that nobody sends its figures as the system's. */
static void report__html_shrunk(FILE *out, const sc_result_t *r)
{
    bool shrunk = (r->bytes_scale > 0 && r->bytes_scale < 1) ||
                  (r->compute_scale > 0 && r->compute_scale < 1);
    if (shrunk)
        fprintf(out,
                "<p class='warn'><b>A shrunk run</b>: messages at %g and compute at %g of the "
                "workload's. Its figures say whether the system scales as modelled at that size, "
                "not what the workload itself takes.</p>\n",
                r->bytes_scale > 0 ? r->bytes_scale : 1.0,
                r->compute_scale > 0 ? r->compute_scale : 1.0);
    if (r->argv == NULL)
        return;
    fprintf(out, "<p><b>command</b>: <code>");
    for (char **a = r->argv; *a != NULL; a++) {
        sc_files_xml_text(out, *a);
        fputc(' ', out);
    }
    fprintf(out, "</code><br><b>scalecheck</b> ");
    sc_files_xml_text(out, r->version);
    for (size_t i = 0; i < r->libraries.n; i++) {
        const sc_kv_t *kv = &r->libraries.items[i];
        fprintf(out, "; ");
        sc_files_xml_text(out, kv->key);
        fputc(' ', out);
        if (kv->is_number)
            fprintf(out, "%g", kv->number);
        else
            sc_files_xml_text(out, kv->text);
    }
    fprintf(out, "</p>\n");
}

static void report__html_facts(FILE *out, const sc_result_t *r)
{
    const char *const facts[][2] = {{"workload", r->workload},
                                    {"topology", r->topology},
                                    {"backend", r->backend},
                                    {"start_utc", r->start_utc},
                                    {"results_dir", r->results_dir}};
    fprintf(out, "<h1>scalecheck ");
    sc_files_xml_text(out, r->command);
    fprintf(out, "</h1>\n<p>");
    for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
        if (facts[i][1][0] != '\0') {
            fprintf(out, "<b>%s</b>: ", facts[i][0]);
            sc_files_xml_text(out, facts[i][1]);
            fprintf(out, "<br>\n");
        }
    fprintf(out, "<b>ranks</b>: %d on %d host(s)</p>\n", r->ranks, r->nhosts);
    if (sc_result_incomplete(r)) {
        fprintf(out, "<p>verdict: <span class='badge fail'>INCOMPLETE</span> the run ended ");
        sc_files_xml_text(out, r->state[0] ? r->state : "without a final state");
        fprintf(out, ": ");
        sc_files_xml_text(out, r->reason);
        if (r->at_fault[0] != '\0') {
            fprintf(out, "<br><b>at fault</b>: ");
            sc_files_xml_text(out, r->at_fault);
        }
        fprintf(out, "</p>\n");
    } else if (r->judged) {
        static const char *const classes[SC_VERDICT_COUNT] = {"pass", "warn", "fail", "warn"};
        sc_tally_t t = sc_result_tally(r);
        sc_verdict_t v = sc_result_verdict(r);
        fprintf(out,
                "<div class='verdict %s'><p>verdict: <span class='badge %s'>%s</span> %d "
                "checks: %d pass, %d warn, %d fail%s</p>\n",
                classes[v], classes[v], sc_verdict_row(v)->name, t.checks, t.pass, t.warn, t.fail,
                v == SC_VERDICT_INCONCLUSIVE ? "; " SC_INCONCLUSIVE_TEXT : "");
        if (r->not_checked[0] != '\0') {
            fprintf(out, "<p><b>not checked</b>: ");
            sc_files_xml_text(out, r->not_checked);
            fprintf(out, "</p>\n");
        }
        report__html_not_passed(out, r);
        fprintf(out, "</div>\n");
    }
    report__html_shrunk(out, r);
}

/* A fleet's result is more than a page holds: what this one lists of it. */
static void report__html_unlisted(FILE *out, const sc_result_t *r)
{
    if (r->cases_unlisted == 0 && r->unlisted.checks == 0)
        return;
    const sc_case_rows_t *rows = r->sweep.n > 0 ? &r->sweep : &r->cases;
    fprintf(out,
            "<p class='warn'>This page lists %zu of the %zu rows and %zu of the %zu checks: every "
            "check that did not pass (up to %d) with its row, and an even spread of the rest. "
            "result.json holds them all; the verdict counts them all (%d more checks, %d of "
            "them not PASS, are not listed).</p>\n",
            rows->n, rows->n + r->cases_unlisted, r->checks.n,
            r->checks.n + (size_t)r->unlisted.checks, SC_DEFAULT_SHOWN, r->unlisted.checks,
            r->unlisted.checks - r->unlisted.pass);
}

static int report__html_writer(FILE *out, void *arg)
{
    const sc_report_ctx_t *h = arg;
    const sc_result_t *r = h->r;
    fprintf(out, "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>scalecheck ");
    sc_files_xml_text(out, r->command);
    fprintf(out, "</title>"
                 "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
                 "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
                 "padding:3px 8px;text-align:right}th{background:#eee}.pass{background:#c8f0c8}"
                 ".warn{background:#fff0b0}.fail{background:#f6c0c0}.unmeasured{color:#999}.badge{"
                 "font-size:1.4em;"
                 "padding:4px 12px}.wide{overflow-x:auto;max-width:100%%}.verdict{padding:"
                 "4px 12px;margin:1em 0}svg{max-width:100%%;height:auto}code{word-break:"
                 "break-all}</style></head><body>\n");
    report__html_facts(out, r);
    sc_pairs_html(out, r);
    report__html_unlisted(out, r);
    for (int i = 0; i < h->nplots; i++)
        sc_report_html_file(out, h->dir, h->plots[i]);
    report__html_table(out, "Scaling curve", report__points_rows(r));
    report__html_table(out, "Collective sweep", report__sweep_rows(r));
    report__html_table(
        out, "Inside the node: PCIe links, NICs, GPUDirect, copies, ranks' places, memory",
        (report__rows_t){r->node.items, r->node.n, sizeof(sc_node_row_t), sc_node_row_fields});
    report__html_table(out, "Traffic that collides: each victim alone and under load",
                       (report__rows_t){r->traffic.items, r->traffic.n, sizeof(sc_traffic_row_t),
                                        sc_traffic_row_fields});
    sc_soak_html_cycles(out, &r->soak);
    report__html_table(
        out, "Checks",
        (report__rows_t){r->checks.items, r->checks.n, sizeof(sc_check_t), sc_check_fields});
    report__html_table(out, "Declared vs detected",
                       (report__rows_t){r->findings.items, r->findings.n, sizeof(sc_finding_t),
                                        sc_finding_fields});
    fprintf(out, "</body></html>\n");
    return ferror(out);
}

sc_status_t sc_report_write_html(const char *path, const sc_report_ctx_t *x, sc_err_t *err)
{
    return sc_files_write_text(path, report__html_writer, (void *)x, err);
}

sc_status_t sc_report_render(const char *dir, const sc_result_t *r, sc_err_t *err)
{
    const char *plots[SC__NPLOTS + SC_SOAK_PLOTS];
    char why[256] = "";
    int nplots = r->soak.n > 0 ? sc_soak_plots(dir, &r->soak, plots, why, sizeof(why))
                               : report__plots(dir, r, plots, why, sizeof(why));
    sc_report_ctx_t x = {dir, r, plots, nplots, why};
    sc_status_t status = SC_OK;
    for (const sc_report_output_t *o = sc_report_outputs; status == SC_OK && o->file != NULL; o++) {
        if (o->wanted != NULL && !o->wanted(r))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", dir, o->file);
        status = o->write(path, &x, err);
    }
    return status;
}
