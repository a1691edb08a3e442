/* sc_soak_report.c - the soak in the report: a row a cycle in soak.dat, four plots over the
 * soak's hours (temperature, power, busbw, step time) and the cycles' table in report.html. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "report/sc_report_core.h"
#include "util/sc_files.h"

/* The cycle's hottest GPU and CPU, and its most power drawn, over its hosts (NaN: none). */
static void soak__hottest(const sc_soak_cycle_t *c, double *gpu_c, double *cpu_c, double *gpu_w)
{
    *gpu_c = *cpu_c = *gpu_w = SC_ABSENT;
    for (int k = 0; k < c->nhosts; k++) {
        const sc_soak_host_t *h = &c->hosts[k];
        if (h->max_gpu_temp_c >= 0 && !(h->max_gpu_temp_c <= *gpu_c))
            *gpu_c = h->max_gpu_temp_c;
        if (h->max_cpu_temp_c >= 0 && !(h->max_cpu_temp_c <= *cpu_c))
            *cpu_c = h->max_cpu_temp_c;
        if (h->max_power_w >= 0 && !(h->max_power_w <= *gpu_w))
            *gpu_w = h->max_power_w;
    }
}

/* A number, or NaN for gnuplot to leave out. */
static void soak__cell(FILE *f, double v)
{
    if (sc_present(v))
        fprintf(f, " %.9g", v);
    else
        fprintf(f, " NaN");
}

/* The soak's time axis in the unit its length reads best in: seconds for a short soak, minutes,
 * hours for the 72 h test (a 90 s soak drawn in hours is 0 to 0.03). */
typedef struct {
    double seconds;
    const char *name;
} soak__unit_t;

static soak__unit_t soak__unit(const sc_soak_cycles_t *cycles)
{
    const sc_soak_cycle_t *last = &cycles->items[cycles->n - 1];
    double span = last->start_s + last->wall_s;
    return span < 120    ? (soak__unit_t){1, "s"}
           : span < 7200 ? (soak__unit_t){60, "min"}
                         : (soak__unit_t){3600, "h"};
}

/* soak.dat: time, busbw, step ms, slowest pair, hottest GPU, hottest CPU, most GPU power. */
static bool soak__dat(const char *dir, const sc_soak_cycles_t *cycles)
{
    soak__unit_t unit = soak__unit(cycles);
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/soak.dat", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return false;
    for (size_t i = 0; i < cycles->n; i++) {
        const sc_soak_cycle_t *c = &cycles->items[i];
        double gpu_c, cpu_c, gpu_w;
        soak__hottest(c, &gpu_c, &cpu_c, &gpu_w);
        fprintf(f, "%.6f", (c->start_s + c->wall_s) / unit.seconds);
        soak__cell(f, sc_soak_cycle_busbw(c));
        soak__cell(f, c->step_ms);
        soak__cell(f, c->pair_min_GBps);
        soak__cell(f, gpu_c);
        soak__cell(f, cpu_c);
        soak__cell(f, gpu_w);
        fputc('\n', f);
    }
    return fclose(f) == 0;
}

/* A series of a plot: its column in soak.dat and its line's style and title. */
typedef struct {
    int column;
    const char *style;
} soak__series_t;

typedef struct {
    const char *svg, *head; /* the file, and the title and axes */
    soak__series_t series[2];
} soak__plot_t;

static const soak__plot_t soak__plot_list[SC_SOAK_PLOTS] = {
    {"soak-temperature.svg",
     "set title 'Temperature over the soak'\nset ylabel 'C'\n",
     {{5, "w lp lw 2 lc rgb '#d62728' t 'hottest GPU'"},
      {6, "w lp lc rgb '#1f77b4' t 'hottest CPU'"}}},
    {"soak-power.svg",
     "set title 'GPU power over the soak'\nset ylabel 'W'\n",
     {{7, "w lp lw 2 lc rgb '#ff7f0e' t 'most power drawn by a GPU'"}, {0, NULL}}},
    {"soak-busbw.svg",
     "set title 'All-reduce busbw over the soak (largest size)'\n"
     "set ylabel 'GB/s'\nset yrange [0:*]\n",
     {{2, "w lp lw 2 lc rgb '#2ca02c' t 'busbw'"}, {4, "w lp lc rgb '#9467bd' t 'slowest pair'"}}},
    {"soak-step.svg",
     "set title 'Training step time over the soak'\nset ylabel 'ms'\n"
     "set yrange [0:*]\n",
     {{3, "w lp lw 2 lc rgb '#8c564b' t 'median step'"}, {0, NULL}}},
};

/* Whether any cycle has a figure in soak.dat's column (2 busbw, 3 step, 4 pair, 5-7 health). */
static bool soak__has(const sc_soak_cycles_t *cycles, int column)
{
    for (size_t i = 0; i < cycles->n; i++) {
        const sc_soak_cycle_t *c = &cycles->items[i];
        double gpu_c, cpu_c, gpu_w;
        soak__hottest(c, &gpu_c, &cpu_c, &gpu_w);
        double v[] = {0,     0,    sc_soak_cycle_busbw(c), c->step_ms, c->pair_min_GBps, gpu_c,
                      cpu_c, gpu_w};
        if (sc_present(v[column]))
            return true;
    }
    return false;
}

/* The plot's commands, its series without a figure left out; false when none has one. */
static bool soak__plot(const sc_soak_cycles_t *cycles, const soak__plot_t *p, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "%sset output '%s'\n%sset xlabel 'time (%s)'\nplot ",
                                   sc_report_plot_style, p->svg, p->head, soak__unit(cycles).name);
    int drawn = 0;
    for (int k = 0; k < 2 && p->series[k].style != NULL; k++)
        if (soak__has(cycles, p->series[k].column))
            used += (size_t)snprintf(out + used, len - used, "%s'soak.dat' u 1:%d %s",
                                     drawn++ ? ", " : "", p->series[k].column, p->series[k].style);
    snprintf(out + used, len - used, "\n");
    return drawn > 0;
}

int sc_soak_plots(const char *dir, const sc_soak_cycles_t *cycles, const char **plots, char *why,
                  size_t len)
{
    char script[4096], stage[PATH_MAX];
    if (cycles->n == 0 || !sc_report_stage_open(dir, stage, sizeof(stage), why, len))
        return 0;
    size_t used = 0;
    int n = 0;
    const char *drawn[SC_SOAK_PLOTS];
    bool ok = soak__dat(stage, cycles);
    for (int i = 0; ok && i < SC_SOAK_PLOTS; i++)
        if (soak__plot(cycles, &soak__plot_list[i], script + used, sizeof(script) - used)) {
            used += strlen(script + used);
            drawn[n++] = soak__plot_list[i].svg;
        } else
            script[used] = '\0';
    ok = ok && n > 0 && sc_report_gnuplot(stage, script, why, len);
    sc_report_stage_close(stage, dir);
    if (!ok)
        return 0;
    for (int i = 0; i < n; i++)
        plots[i] = drawn[i];
    return n;
}

/* A figure's cell: "-" where the cycle has none (no pairs measured, no GPU sampled), not nan. */
static void soak__html_cell(FILE *out, double v, const char *format)
{
    fputs("<td>", out);
    if (sc_present(v) && v >= 0)
        fprintf(out, format, v);
    else
        fputs("-", out);
    fputs("</td>", out);
}

void sc_soak_html_cycles(FILE *out, const sc_soak_cycles_t *cycles)
{
    if (cycles->n == 0)
        return;
    soak__unit_t unit = soak__unit(cycles);
    fprintf(out,
            "<h2>Cycles</h2>\n<div class=wide><table><tr><th>cycle</th><th>start (%s)</th>"
            "<th>length (s)</th><th>busbw (GB/s)</th><th>step (ms)</th><th>slowest pair "
            "(GB/s)</th><th>hottest GPU (C)</th><th>verdict</th><th>breaches</th></tr>\n",
            unit.name);
    for (size_t i = 0; i < cycles->n; i++) {
        const sc_soak_cycle_t *c = &cycles->items[i];
        double gpu_c, cpu_c, gpu_w;
        soak__hottest(c, &gpu_c, &cpu_c, &gpu_w);
        static const char *const classes[] = {"pass", "warn", "fail"};
        fprintf(out, "<tr><td>%d</td><td>%.3g</td><td>%.1f</td>", c->cycle,
                c->start_s / unit.seconds, c->wall_s);
        soak__html_cell(out, sc_soak_cycle_busbw(c), "%.4g");
        soak__html_cell(out, c->step_ms, "%.4g");
        soak__html_cell(out, c->pair_min_GBps, "%.4g");
        soak__html_cell(out, gpu_c, "%.0f");
        fprintf(out, "<td class=%s>%s</td><td>", classes[c->level], sc_level_name(c->level));
        sc_files_xml_text(out, c->breaches);
        fprintf(out, "</td></tr>\n");
    }
    fprintf(out, "</table></div>\n");
}
