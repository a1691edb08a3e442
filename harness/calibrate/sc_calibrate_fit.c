/* sc_calibrate_fit.c - measured all-reduce times as alpha-beta regimes, and the calibrated
 * topology file. The fit uses the model's own formula (sc_coll_ring_steps inside a
 * host, sc_coll_tree_steps between hosts, the busbw factor): time = steps(n) alpha + factor(n) S /
 * B, linear in alpha and 1/B. A regime is a run of neighbouring sizes; the split into regimes
 * minimises the squared relative error (dynamic programming over the ladder), with as few regimes
 * as keep every size within SC__GOOD. */
#include "calibrate/sc_calibrate.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/sc_coll.h"
#include "calibrate/sc_calibrate_bases.h"
#include "util/sc_files.h"

#define SC__GOOD     0.05 /* a fit this close everywhere needs no further regime */
#define SC__MIN_RUN  2    /* sizes per regime: a line needs two */
#define SC__MAX_RUNS 6
#define SC__MAX_PTS  64
#define SC__MAX_GBPS 1e6 /* a regime with no measurable bandwidth term */

typedef struct {
    double x1, x2, y; /* steps, factor x S / 1e3, measured us */
} calibrate_fit__pt_t;

/* Least squares of y ~ a x1 + b x2 weighted by 1/y^2 (relative error), a, b >= 0. Returns the
 * sum of squared relative errors; *worst the largest one. */
static double calibrate_fit__line(const calibrate_fit__pt_t *p, int n, double *a, double *b,
                                  double *worst)
{
    double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0;
    for (int i = 0; i < n; i++) {
        double w = 1.0 / (p[i].y * p[i].y);
        s11 += w * p[i].x1 * p[i].x1;
        s12 += w * p[i].x1 * p[i].x2;
        s22 += w * p[i].x2 * p[i].x2;
        s1y += w * p[i].x1 * p[i].y;
        s2y += w * p[i].x2 * p[i].y;
    }
    double det = s11 * s22 - s12 * s12;
    *a = det != 0 ? (s1y * s22 - s2y * s12) / det : 0;
    *b = det != 0 ? (s2y * s11 - s1y * s12) / det : 0;
    if (*b <= 0 || det == 0) { /* sizes too small to see bandwidth: latency alone */
        *b = 0;
        *a = s11 > 0 ? s1y / s11 : 0;
    } else if (*a < 0) { /* latency lost in the noise: bandwidth alone */
        *a = 0;
        *b = s22 > 0 ? s2y / s22 : 0;
    }
    double sum = 0;
    *worst = 0;
    for (int i = 0; i < n; i++) {
        double e = fabs(*a * p[i].x1 + *b * p[i].x2 - p[i].y) / p[i].y;
        sum += e * e;
        *worst = e > *worst ? e : *worst;
    }
    return sum;
}

/* The best split of points[0..n) into k runs: cut[r] is where run r ends (exclusive). */
static double calibrate_fit__split(const calibrate_fit__pt_t *p, int n, int k, int *cut)
{
    static double cost[SC_TOPOLOGY_MAX_REGIMES + 1][SC__MAX_PTS + 1];
    static int from[SC_TOPOLOGY_MAX_REGIMES + 1][SC__MAX_PTS + 1];
    for (int r = 0; r <= k; r++)
        for (int j = 0; j <= n; j++)
            cost[r][j] = INFINITY;
    cost[0][0] = 0;
    for (int r = 1; r <= k; r++)
        for (int j = r * SC__MIN_RUN; j <= n; j++)
            for (int i = (r - 1) * SC__MIN_RUN; i <= j - SC__MIN_RUN; i++) {
                double a, b, worst;
                double c = cost[r - 1][i] + calibrate_fit__line(p + i, j - i, &a, &b, &worst);
                if (c < cost[r][j]) {
                    cost[r][j] = c;
                    from[r][j] = i;
                }
            }
    for (int r = k, j = n; r >= 1; j = from[r][j], r--)
        cut[r - 1] = j;
    return cost[k][n];
}

void sc_calibrate_fit(const sc_case_row_t *rows, size_t nrows, int n, double steps,
                      sc_regimes_t *fit, double *worst_error)
{
    calibrate_fit__pt_t p[SC__MAX_PTS];
    int m = 0;
    for (size_t i = 0; i < nrows && m < SC__MAX_PTS; i++)
        if (rows[i].time_us > 0)
            p[m++] = (calibrate_fit__pt_t){
                steps, sc_coll_allreduce.busbw_factor(n) * (double)rows[i].size_bytes / 1e3,
                rows[i].time_us};
    memset(fit, 0, sizeof(*fit));
    *worst_error = 0;
    if (m < SC__MIN_RUN || n < 2)
        return;
    int cut[SC_TOPOLOGY_MAX_REGIMES], best_k = 1;
    double best_worst = INFINITY;
    int kmax = m / SC__MIN_RUN < SC__MAX_RUNS ? m / SC__MIN_RUN : SC__MAX_RUNS;
    for (int k = 1; k <= kmax; k++) {
        calibrate_fit__split(p, m, k, cut);
        double worst = 0;
        for (int r = 0, start = 0; r < k; start = cut[r], r++) {
            double a, b, w;
            calibrate_fit__line(p + start, cut[r] - start, &a, &b, &w);
            worst = w > worst ? w : worst;
        }
        if (worst < best_worst - 0.01) { /* a regime more must earn its place */
            best_worst = worst;
            best_k = k;
        }
        if (best_worst <= SC__GOOD)
            break;
    }
    calibrate_fit__split(p, m, best_k, cut);
    for (int r = 0, start = 0; r < best_k; start = cut[r], r++) {
        double a, b, w;
        calibrate_fit__line(p + start, cut[r] - start, &a, &b, &w);
        sc_regime_t *g = &fit->r[fit->n++];
        /* x2 = factor S / 1e3 back to the size: the last size of the run */
        double last = p[cut[r] - 1].x2 * 1e3 / sc_coll_allreduce.busbw_factor(n);
        g->upto = r + 1 < best_k ? floor(last + 0.5) : 0;
        g->latency_us = a;
        g->GBps = b > 1.0 / SC__MAX_GBPS ? 1.0 / b : SC__MAX_GBPS;
    }
    *worst_error = best_worst;
}

/* ---- the file ---- */

typedef struct {
    const char *text; /* the declared file, its own calibrated: block left out */
    size_t len;
    const sc_calibration_t *c;
    const char *by;
} calibrate_fit__file_t;

static void calibrate_fit__path(FILE *out, const char *key, const sc_calibrated_path_t *p)
{
    if (p->fit.n == 0)
        return;
    fprintf(out, "  # all-reduce ladder of %zu sizes on %s; worst fit error %.1f %%\n", p->rows.n,
            p->where, p->worst_error * 100);
    fprintf(out, "  %s:\n", key);
    for (int i = 0; i < p->fit.n; i++) {
        const sc_regime_t *r = &p->fit.r[i];
        fprintf(out, "    - {");
        if (r->upto > 0)
            fprintf(out, "upto: %.0f, ", r->upto);
        fprintf(out, "latency_us: %.4g, bandwidth_GBps: %.4g}\n", r->latency_us, r->GBps);
    }
}

static int calibrate_fit__writer(FILE *out, void *arg)
{
    const calibrate_fit__file_t *f = arg;
    const sc_calibration_t *c = f->c;
    fwrite(f->text, 1, f->len, out);
    if (f->len > 0 && f->text[f->len - 1] != '\n')
        fputc('\n', out);
    fprintf(out, "# Measured here by `scalecheck calibrate`: this machine's figures, not a spec "
                 "sheet's\n# (topologies/README.md, \"Calibration on the spot\").\n");
    fprintf(out, "calibrated:\n  by: \"%s\"\n", f->by);
    if (c->memory_GBps > 0)
        fprintf(out, "  memory_GBps: %.4g\n", c->memory_GBps);
    if (c->overlap >= 0)
        fprintf(out,
                "  overlap: %.3f          # of a started all-reduce's pace kept beside "
                "compute\n  overlap_slowdown: 0\n",
                c->overlap);
    fprintf(out, "  probe_us: %.4g\n  probe_spread: %.3f\n", c->probe_us, c->probe_spread);
    if (c->compute_tflops > 0)
        fprintf(out,
                "  # a layer's products of %s on %d GPUs at compute scale %g: the median GPU's "
                "(the slowest %.4g)\n  compute_workload: %s\n  compute_tflops: %.4g\n",
                c->compute_workload, c->compute_gpus, c->compute_scale, c->compute_tflops_min,
                c->compute_workload, c->compute_tflops);
    calibrate_fit__path(out, "intra", &c->intra);
    calibrate_fit__path(out, "inter", &c->inter);
    return ferror(out);
}

sc_status_t sc_calibrate_write(const char *declared_path, const char *out_path,
                               const sc_calibration_t *c, const char *by, sc_err_t *err)
{
    char real[PATH_MAX], line[PATH_MAX + 32];
    if (realpath(declared_path, real) == NULL)
        return sc_err_set(err, SC_ERR_IO, "%s: cannot resolve it: %s", declared_path,
                          strerror(errno));
    char *text = sc_calibrate_read_text(real, err), *kept = NULL;
    if (text == NULL)
        return err->status;
    sc_status_t status = sc_calibrate_extends_line(real, text, out_path, line, sizeof(line), err);
    if (status == SC_OK && (kept = malloc(strlen(text) + strlen(line) + 1)) == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "%s: no memory to copy it", declared_path);
    if (status == SC_OK) {
        calibrate_fit__file_t f = {kept, sc_calibrate_copy_text(text, line, true, kept), c, by};
        status = sc_files_write_text(out_path, calibrate_fit__writer, &f, err);
    }
    free(text);
    free(kept);
    return status;
}
