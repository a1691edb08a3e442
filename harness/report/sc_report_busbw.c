/* sc_report_busbw.c - busbw.svg's curves: one a collective, each point the median bus bandwidth
 * (and the model's) of the cases measured at one size. A sweep of every type, operation and
 * placement (-d all -o all) holds ~100 cases a size; drawn as they come, they made one line
 * zig-zagging through thousands of points, which nobody could read and gnuplot took most of the
 * report's time to draw. */
#include "report/sc_report_busbw.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/sc_report_core.h"
#include "util/sc_numtext.h"

/* One case as a point of its curve. */
typedef struct {
    int curve;
    uint64_t size;
    double busbw, expected; /* expected: SC_ABSENT without a model */
} busbw__point_t;

typedef struct {
    char names[SC_REPORT_BUSBW_CURVES][24]; /* the collectives, in the order they came */
    bool modelled[SC_REPORT_BUSBW_CURVES];  /* a curve with the model's figures */
    int n;
    size_t per_point_max; /* the most cases one point stands for */
} busbw__curves_t;

static int busbw__by_curve_size_busbw(const void *a, const void *b)
{
    const busbw__point_t *x = a, *y = b;
    if (x->curve != y->curve)
        return x->curve < y->curve ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return (x->busbw > y->busbw) - (x->busbw < y->busbw);
}

static int busbw__by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The curve a collective draws: its index, a new one, or -1 past SC_REPORT_BUSBW_CURVES. */
static int busbw__curve_of(busbw__curves_t *c, const char *collective)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->names[i], collective) == 0)
            return i;
    if (c->n == SC_REPORT_BUSBW_CURVES)
        return -1;
    snprintf(c->names[c->n], sizeof(c->names[0]), "%s", collective);
    return c->n++;
}

/* The cases with a bus bandwidth, as points of their curves (sorted); their count. */
static size_t busbw__points(const sc_case_row_t *rows, size_t n, busbw__curves_t *c,
                            busbw__point_t *pts)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int curve = sc_present(rows[i].busbw_GBps) ? busbw__curve_of(c, rows[i].collective) : -1;
        if (curve >= 0)
            pts[m++] = (busbw__point_t){curve, rows[i].size_bytes, rows[i].busbw_GBps,
                                        rows[i].expected_busbw_GBps};
    }
    qsort(pts, m, sizeof(*pts), busbw__by_curve_size_busbw);
    return m;
}

/* The median of the present figures among v[0..n) (sorted in place); SC_ABSENT when none. */
static double busbw__median(double *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (sc_present(v[i]))
            v[m++] = v[i];
    if (m == 0)
        return SC_ABSENT;
    qsort(v, m, sizeof(*v), busbw__by_value);
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

static void busbw__cell(FILE *f, double v)
{
    if (!sc_present(v)) {
        fputs("NaN", f); /* gnuplot leaves the point out */
        return;
    }
    char num[40];
    sc_numtext_g(v, 9, num);
    fputs(num, f);
}

/* One point a size: "size median-busbw median-expected"; a curve's block ends with two blank
 * lines (gnuplot's `index`). */
static void busbw__write_blocks(FILE *f, busbw__point_t *pts, size_t m, busbw__curves_t *c,
                                double *scratch)
{
    for (size_t i = 0, j; i < m; i = j) {
        for (j = i; j < m && pts[j].curve == pts[i].curve && pts[j].size == pts[i].size; j++)
            scratch[j - i] = pts[j].expected;
        size_t k = j - i;
        double busbw =
            k % 2 ? pts[i + k / 2].busbw : 0.5 * (pts[i + k / 2 - 1].busbw + pts[i + k / 2].busbw);
        double expected = busbw__median(scratch, k);
        c->modelled[pts[i].curve] |= sc_present(expected);
        c->per_point_max = k > c->per_point_max ? k : c->per_point_max;
        fprintf(f, "%" PRIu64 " ", pts[i].size);
        busbw__cell(f, busbw);
        fputc(' ', f);
        busbw__cell(f, expected);
        fputc('\n', f);
        if (j == m || pts[j].curve != pts[i].curve)
            fputs("\n\n", f);
    }
}

/* The plot command: a curve a collective (measured solid, the model dashed, one colour). */
static bool busbw__commands(const busbw__curves_t *c, char *out, size_t size)
{
    size_t used = (size_t)snprintf(
        out, size,
        "set title 'Bus bandwidth vs size%s'\nset xlabel 'size'\nset ylabel 'busbw (GB/s)'\n"
        "set logscale x 2\nset format x '%%.0b%%BB'\nset xtics rotate by -30\n%s\nplot",
        c->per_point_max > 1 ? " (a point: the median of the cases of that size)" : "",
        c->n > 1 ? "set key outside right top" : "set rmargin 6");
    bool model_keyed = false;
    for (int k = 0; k < c->n && used < size; k++) {
        char title[64], model[64], colour[24], model_colour[24];
        bool one = c->n == 1; /* its figures as every plot of the report draws them */
        if (one) {
            snprintf(colour, sizeof(colour), "rgb '#d62728'");
            snprintf(model_colour, sizeof(model_colour), "rgb '#1f77b4'");
        } else { /* the curve's own colour for both */
            snprintf(colour, sizeof(colour), "%d", k + 1);
            snprintf(model_colour, sizeof(model_colour), "%d", k + 1);
        }
        sc_report_gnuplot_text(title, sizeof(title), one ? "measured" : c->names[k]);
        sc_report_gnuplot_text(model, sizeof(model),
                               one ? "expected (model)" : "dashed: the model");
        bool keyed = one || !model_keyed; /* many curves: one key for the dashed lines */
        if (c->modelled[k])
            used += (size_t)snprintf(out + used, size - used,
                                     "%s 'busbw.dat' index %d u 1:3 w %s lc %s %s%s noenhanced",
                                     k > 0 ? "," : "", k, one ? "lp" : "l dt 2", model_colour,
                                     keyed ? "t " : "notitle", keyed ? model : "");
        model_keyed |= c->modelled[k];
        used += (size_t)snprintf(out + used, size - used,
                                 "%s 'busbw.dat' index %d u 1:2 w lp lw 2 lc %s t %s noenhanced",
                                 k > 0 || c->modelled[k] ? "," : "", k, colour, title);
    }
    used += used < size ? (size_t)snprintf(out + used, size - used, "\n") : 0;
    return used < size;
}

int sc_report_busbw_curves(const char *stage, const sc_case_row_t *rows, size_t n, char *commands,
                           size_t size, sc_err_t *err)
{
    busbw__curves_t c = {.n = 0};
    busbw__point_t *pts = n > 0 ? malloc(n * sizeof(*pts)) : NULL;
    double *scratch = n > 0 ? malloc(n * sizeof(*scratch)) : NULL;
    if (n > 0 && (pts == NULL || scratch == NULL)) {
        free(pts);
        free(scratch);
        sc_err_set(err, SC_ERR_NOMEM, "busbw.dat: no memory for %zu cases", n);
        return -1;
    }
    size_t m = n > 0 ? busbw__points(rows, n, &c, pts) : 0;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/busbw.dat", stage);
    FILE *f = m > 0 ? fopen(path, "w") : NULL;
    int curves = m == 0 ? 0 : -1;
    if (m > 0 && f == NULL)
        sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if (f != NULL) {
        busbw__write_blocks(f, pts, m, &c, scratch);
        if (fclose(f) != 0)
            sc_err_set(err, SC_ERR_IO, "cannot write %s", path);
        else if (!busbw__commands(&c, commands, size))
            sc_err_set(err, SC_ERR_IO, "busbw.svg: its plot command is too long");
        else
            curves = c.n;
    }
    free(pts);
    free(scratch);
    return curves;
}
