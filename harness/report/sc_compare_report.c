/* sc_compare_report.c - compare's table, files and page (sc_compare_report.h). */
#include "report/sc_compare_report.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report/sc_json_out.h"
#include "report/sc_report_core.h"
#include "util/sc_files.h"

void sc_compare_formula(const sc_weights_t *w, char *buf, size_t len)
{
    double total = 0;
    size_t used = (size_t)snprintf(buf, len, "total = (");
    for (int d = 0; d < SC_DIM_COUNT && used < len; d++) {
        if (w->w[d] <= 0)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%g %s", total > 0 ? " + " : "", w->w[d],
                                 sc_dim_name((sc_dim_t)d));
        total += w->w[d];
    }
    if (used < len)
        snprintf(buf + used, len - used,
                 ") / %g, each score 0-10; a system with no figure (n/a) for a dimension "
                 "another has scores 0 there, a dimension none has is left out",
                 total);
}

/* A figure in width characters, "n/a" when absent. */
static const char *compare_report__fig(char *buf, size_t len, double v, const char *fmt)
{
    if (!sc_present(v))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, fmt, v);
    return buf;
}

static void compare_report__print_text(FILE *out, const sc_compare_systems_t *s)
{
    fprintf(out, "# %-4s %-28s %-9s %5s %12s %10s %10s %6s %6s %9s %10s %7s %10s %13s %-8s\n",
            "rank", "system", "source", "gpus", "samples/s", "per node", "per GPU", "eff", "model",
            "$/h", "samples/$", "kW", "samples/kWh", "memory GB", "verdict");
    for (size_t i = 0; i < s->n; i++) {
        const sc_compare_row_t *r = &s->items[i].row;
        char a[32], b[32], c[32], d[32], e[32];
        char mem[48];
        if (sc_present(r->memory_headroom))
            snprintf(mem, sizeof(mem), "%.1f/%.0f%s", r->memory_need_gb, r->gpu_memory_gb,
                     r->memory_fits ? "" : " NO");
        else
            snprintf(mem, sizeof(mem), "n/a");
        fprintf(
            out,
            "  %-4d %-28s %-9s %5d %12.1f %10.1f %10.1f %6.3f %6s %9s %10s %7s %10s %13s %-8s\n",
            r->rank, r->system, r->source, r->gpus, r->throughput, r->throughput_per_node,
            r->throughput_per_gpu, r->efficiency,
            compare_report__fig(a, sizeof(a), r->expected_efficiency, "%.3f"),
            compare_report__fig(b, sizeof(b), r->cost_hour_usd, "%.2f"),
            compare_report__fig(c, sizeof(c), r->samples_per_usd, "%.0f"),
            compare_report__fig(d, sizeof(d), r->power_kw, "%.2f"),
            compare_report__fig(e, sizeof(e), r->samples_per_kwh, "%.0f"), mem,
            r->verdict[0] ? r->verdict : "-");
    }
    fprintf(out, "#\n# scores (0-10)  %-28s", "");
    for (int d = 0; d < SC_DIM_COUNT; d++)
        fprintf(out, " %10s", sc_dim_name((sc_dim_t)d));
    fprintf(out, " %7s\n", "total");
    for (size_t i = 0; i < s->n; i++) {
        const sc_compare_row_t *r = &s->items[i].row;
        fprintf(out, "  %-4d %-39s", r->rank, r->system);
        for (int d = 0; d < SC_DIM_COUNT; d++) {
            char v[32];
            fprintf(out, " %10s", compare_report__fig(v, sizeof(v), r->score[d], "%.1f"));
        }
        fprintf(out, " %7.2f%s\n", r->total, r->memory_fits ? "" : "  (does not fit)");
    }
    for (size_t i = 0; i < s->n; i++) { /* what makes a row's figures not what they seem */
        const sc_compare_row_t *r = &s->items[i].row;
        if (r->note[0] || r->memory_note[0])
            fprintf(out, "# %s: %s%s%s\n", r->system, r->note,
                    r->note[0] && r->memory_note[0] ? "; " : "", r->memory_note);
        if (r->input_note[0]) /* the same rules for every system, said for each */
            fprintf(out, "# %s: %s\n", r->system, r->input_note);
        if (r->compute_note[0])
            fprintf(out, "# %s: %s\n", r->system, r->compute_note);
    }
}

/* docs/compare.md's table: one row a system. */
static void compare_report__print_markdown(FILE *out, const sc_compare_systems_t *s)
{
    fprintf(out, "| rank | system | GPU | GPUs | efficiency | samples/s | per GPU | memory a GPU "
                 "| score |\n|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < s->n; i++) {
        const sc_compare_row_t *r = &s->items[i].row;
        if (r->throughput <= 0)
            fprintf(out, "| %d | %s | %s | %d | - | - | - | %s | %.2f |\n", r->rank, r->system,
                    r->gpu, r->gpus, r->memory_note, r->total);
        else if (!sc_present(r->memory_headroom))
            fprintf(out, "| %d | %s | %s | %d | %.1f %% | %.0f | %.1f | %s | %.2f |\n", r->rank,
                    r->system, r->gpu, r->gpus, 100.0 * r->efficiency, r->throughput,
                    r->throughput_per_gpu, r->memory_note, r->total);
        else
            fprintf(out,
                    "| %d | %s | %s | %d | %.1f %% | %.*f | %.*f | %.1f of %.0f GB%s | %.2f |\n",
                    r->rank, r->system, r->gpu, r->gpus, 100.0 * r->efficiency,
                    r->throughput < 1000 ? 1 : 0, r->throughput,
                    r->throughput_per_gpu < 100 ? 2 : 1, r->throughput_per_gpu, r->memory_need_gb,
                    r->gpu_memory_gb, r->memory_fits ? "" : ": does not fit", r->total);
    }
}

void sc_compare_print(FILE *out, const sc_compare_systems_t *s, const sc_weights_t *w,
                      bool markdown)
{
    if (markdown) {
        compare_report__print_markdown(out, s);
        return;
    }
    compare_report__print_text(out, s);
    char formula[512];
    sc_compare_formula(w, formula, sizeof(formula));
    fprintf(out, "# %s%s%s\n", formula, w->path[0] ? "; weights from " : "",
            w->path[0] ? w->path : "");
}

/* A system's curve (gpus, efficiency, the model's) and sweep (size, busbw) as data files. */
static sc_status_t compare_report__data(const char *dir, size_t i, const sc_compare_system_t *sys,
                                        sc_err_t *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/curve-%zu.dat", dir, i);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return sc_err_set(err, SC_ERR_IO, "%s: cannot write", path);
    for (size_t p = 0; p < sys->curve.n; p++) {
        const sc_point_t *pt = &sys->curve.items[p];
        fprintf(f, "%d %.6g %.6g\n", pt->gpus, pt->efficiency,
                sc_present(pt->expected_efficiency) ? pt->expected_efficiency : pt->efficiency);
    }
    fclose(f);
    snprintf(path, sizeof(path), "%s/busbw-%zu.dat", dir, i);
    if ((f = fopen(path, "w")) == NULL)
        return sc_err_set(err, SC_ERR_IO, "%s: cannot write", path);
    for (size_t p = 0; p < sys->busbw.n; p++)
        fprintf(f, "%llu %.6g\n", (unsigned long long)sys->busbw.items[p].size_bytes,
                sys->busbw.items[p].busbw_GBps);
    fclose(f);
    return SC_OK;
}

/* What tells a system from the others on the page: its name, and for a measured one the run it
 * came from (two runs held to localhost.yaml are both "localhost"). */
static void compare_report__label(char *buf, size_t len, const sc_compare_row_t *r)
{
    const char *base = strrchr(r->origin, '/');
    base = base != NULL && base[1] != '\0' ? base + 1 : r->origin;
    if (strcmp(r->source, "measured") == 0 && base[0] != '\0')
        snprintf(buf, len, "%s, %s", r->system, base);
    else
        snprintf(buf, len, "%s", r->system);
}

/* A curve's title for gnuplot, quoted (sc_report_gnuplot_text): "SYSTEM (SOURCE)SUFFIX". */
static void compare_report__title(char *buf, size_t len, const sc_compare_row_t *r,
                                  const char *suffix)
{
    char label[160], text[256];
    compare_report__label(label, sizeof(label), r);
    snprintf(text, sizeof(text), "%s (%s)%s", label, r->source, suffix);
    sc_report_gnuplot_text(buf, len, text);
}

/* The script's lines for efficiency.svg and (where sweeps were measured) busbw.svg; false when
 * it does not fit. */
static bool compare_report__script(char *script, size_t size, const sc_compare_systems_t *s,
                                   bool *any_busbw)
{
    size_t used = (size_t)snprintf(script, size,
                                   "%sset output 'efficiency.svg'\nset title 'Scaling efficiency' "
                                   "noenhanced\nset xlabel 'GPUs'\nset ylabel 'efficiency'\nset "
                                   "logscale x 2\nset yrange [0:1.1]\nset key outside below\n"
                                   "plot 1 title 'ideal' dt 2",
                                   sc_report_plot_style);
    *any_busbw = false;
    char title[400];
    for (size_t i = 0; i < s->n && used < size; i++) {
        compare_report__title(title, sizeof(title), &s->items[i].row, "");
        used += (size_t)snprintf(script + used, size - used,
                                 ", 'curve-%zu.dat' using 1:2 with linespoints lc %zu title %s "
                                 "noenhanced",
                                 i, i + 1, title);
        compare_report__title(title, sizeof(title), &s->items[i].row, ", its model");
        if (strcmp(s->items[i].row.source, "measured") == 0 && used < size)
            used += (size_t)snprintf(script + used, size - used,
                                     ", 'curve-%zu.dat' using 1:3 with lines dt 3 lc %zu title "
                                     "%s noenhanced",
                                     i, i + 1, title);
        *any_busbw |= s->items[i].busbw.n > 0;
    }
    if (used < size)
        used += (size_t)snprintf(script + used, size - used, "\n");
    if (*any_busbw && used < size) {
        used += (size_t)snprintf(script + used, size - used,
                                 "set output 'busbw.svg'\nset title 'All-reduce bus bandwidth' "
                                 "noenhanced\nset xlabel 'size'\nset ylabel 'GB/s'\nset "
                                 "logscale x 2\nset format x '%%.0b%%BB'\nset logscale y 10\n"
                                 "set autoscale y\nset key outside below\nplot");
        for (size_t i = 0, k = 0; i < s->n && used < size; i++) {
            if (s->items[i].busbw.n == 0)
                continue;
            compare_report__title(title, sizeof(title), &s->items[i].row, "");
            used += (size_t)snprintf(script + used, size - used,
                                     "%s 'busbw-%zu.dat' using 1:2 with linespoints title %s "
                                     "noenhanced",
                                     k++ ? "," : "", i, title);
        }
        if (used < size)
            used += (size_t)snprintf(script + used, size - used, "\n");
    }
    return used < size;
}

/* efficiency.svg: every system's curve over the ideal; busbw.svg where sweeps were measured.
 * Their data files are written, and gnuplot run, in a stage (sc_report_stage_open). */
static int compare_report__plots(const char *dir, const sc_compare_systems_t *s, char *why,
                                 size_t len)
{
    static char script[32768]; /* compare runs once, on one thread */
    bool any_busbw;
    if (!compare_report__script(script, sizeof(script), s, &any_busbw)) {
        snprintf(why, len, "too many systems for one plot");
        return 0;
    }
    char stage[PATH_MAX];
    if (!sc_report_stage_open(dir, stage, sizeof(stage), why, len))
        return 0;
    sc_err_t err;
    bool ok = true;
    for (size_t i = 0; i < s->n && ok; i++)
        if (compare_report__data(stage, i, &s->items[i], &err) != SC_OK) {
            snprintf(why, len, "%s", err.msg);
            ok = false;
        }
    ok = ok && sc_report_gnuplot(stage, script, why, len);
    sc_report_stage_close(stage, dir);
    return ok ? (any_busbw ? 2 : 1) : 0;
}

static void compare_report__html_cell(FILE *out, const char *text)
{
    fputs("<td>", out);
    sc_files_xml_text(out, text);
    fputs("</td>", out);
}

/* The ranking: rank, system, total, verdict and the scores (a dozen columns, on a laptop's
 * screen whole). */
static void compare_report__html_rank_row(FILE *out, const sc_compare_row_t *r)
{
    char v[192];
    fprintf(out, "<tr><td>%d</td>", r->rank);
    compare_report__label(v, sizeof(v), r);
    compare_report__html_cell(out, v);
    fprintf(out, "<td><b>%.2f</b></td>", r->total);
    int level = sc_level_parse(r->verdict);
    fprintf(out, "<td%s>",
            level == SC_LEVEL_FAIL   ? " class=fail"
            : level == SC_LEVEL_WARN ? " class=warn"
            : level == SC_LEVEL_PASS ? " class=pass"
                                     : "");
    sc_files_xml_text(out, r->verdict[0] ? r->verdict : "-");
    fputs("</td>", out);
    for (int d = 0; d < SC_DIM_COUNT; d++)
        compare_report__html_cell(out, compare_report__fig(v, sizeof(v), r->score[d], "%.1f"));
    fputs("</tr>\n", out);
}

/* The figures behind the scores, a system a row (wide: it scrolls inside the page). */
static void compare_report__html_row(FILE *out, const sc_compare_row_t *r)
{
    char v[192];
    fprintf(out, "<tr><td>%d</td>", r->rank);
    compare_report__label(v, sizeof(v), r);
    compare_report__html_cell(out, v);
    compare_report__html_cell(out, r->description);
    compare_report__html_cell(out, r->source);
    compare_report__html_cell(out, r->origin);
    fprintf(out, "<td>%d</td><td>%.1f</td><td>%.1f</td><td>%.3f</td>", r->gpus, r->throughput,
            r->throughput_per_gpu, r->efficiency);
    compare_report__html_cell(out,
                              compare_report__fig(v, sizeof(v), r->expected_efficiency, "%.3f"));
    compare_report__html_cell(out, compare_report__fig(v, sizeof(v), r->samples_per_usd, "%.0f"));
    compare_report__html_cell(out, compare_report__fig(v, sizeof(v), r->samples_per_kwh, "%.0f"));
    if (sc_present(r->memory_headroom))
        snprintf(v, sizeof(v), "%.1f of %.0f GB%s", r->memory_need_gb, r->gpu_memory_gb,
                 r->memory_fits ? "" : " (does not fit)");
    else
        snprintf(v, sizeof(v), "n/a");
    compare_report__html_cell(out, v);
    compare_report__html_cell(out, r->note);
    compare_report__html_cell(out, r->claims[0] ? r->claims : "-");
    snprintf(v, sizeof(v), "%d", r->differences);
    compare_report__html_cell(out, v);
    compare_report__html_cell(out, r->versions);
    fputs("</tr>\n", out);
}

typedef struct {
    const char *dir;
    const sc_compare_systems_t *s;
    const sc_weights_t *w;
    int plots;
    const char *why;
} compare_report__page_t;

static int compare_report__page(FILE *out, void *arg)
{
    const compare_report__page_t *p = arg;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>scalecheck compare"
          "</title><style>body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-"
          "collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:"
          "right}th{background:#eee}.pass{background:#c8f0c8}.warn{background:#fff0b0}.fail{"
          "background:#f6c0c0}.wide{overflow-x:auto;max-width:100%}svg{max-width:100%;height:"
          "auto}</style></head><body>\n<h1>Systems side by side</h1>\n<p>",
          out);
    char formula[512];
    sc_compare_formula(p->w, formula, sizeof(formula));
    sc_files_xml_text(out, formula);
    fputs("</p>\n<h2>Ranking</h2>\n<div class=wide><table><tr><th>rank</th><th>system</th>"
          "<th>total</th><th>verdict</th>",
          out);
    for (int d = 0; d < SC_DIM_COUNT; d++) {
        fputs("<th>", out);
        sc_files_xml_text(out, sc_dim_words((sc_dim_t)d));
        fputs("</th>", out);
    }
    fputs("</tr>\n", out);
    for (size_t i = 0; i < p->s->n; i++)
        compare_report__html_rank_row(out, &p->s->items[i].row);
    fputs("</table></div>\n<h2>The figures behind the scores</h2>\n<div class=wide><table><tr>"
          "<th>rank</th><th>system</th><th>description</th><th>source</th><th>from</th>"
          "<th>GPUs</th><th>samples/s</th><th>per GPU</th><th>efficiency</th><th>model</th>"
          "<th>samples/$</th><th>samples/kWh</th><th>memory a GPU</th><th>note</th>"
          "<th>claims</th><th>differences</th><th>versions</th></tr>\n",
          out);
    for (size_t i = 0; i < p->s->n; i++)
        compare_report__html_row(out, &p->s->items[i].row);
    fputs("</table></div>\n", out);
    if (p->plots >= 1)
        sc_report_html_file(out, p->dir, "efficiency.svg");
    if (p->plots >= 2)
        sc_report_html_file(out, p->dir, "busbw.svg");
    if (p->plots == 0) {
        fputs("<p>No plots: ", out);
        sc_files_xml_text(out, p->why);
        fputs("</p>\n", out);
    }
    fputs("</body></html>\n", out);
    return ferror(out);
}

sc_status_t sc_compare_write(const char *dir, const sc_compare_systems_t *s, const sc_weights_t *w,
                             const sc_kvs_t *head, sc_err_t *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/compare.csv", dir);
    sc_compare_row_t *rows = calloc(s->n ? s->n : 1, sizeof(*rows));
    if (rows == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "compare: no memory for the rows");
    for (size_t i = 0; i < s->n; i++)
        rows[i] = s->items[i].row;
    sc_status_t status =
        sc_csv_write_records(path, rows, s->n, sizeof(*rows), sc_compare_row_fields, err);
    free(rows);
    snprintf(path, sizeof(path), "%s/compare.json", dir);
    if (status == SC_OK)
        status = sc_json_write_compare(path, s, w, head, err);
    if (status != SC_OK)
        return status;
    char why[256] = "";
    compare_report__page_t page = {dir, s, w, compare_report__plots(dir, s, why, sizeof(why)), why};
    snprintf(path, sizeof(path), "%s/compare.html", dir);
    return sc_files_write_text(path, compare_report__page, &page, err);
}
