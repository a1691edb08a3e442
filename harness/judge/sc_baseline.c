/* sc_baseline.c - a result's figures, a baseline built from known-good results, and a result
 * held to a baseline. */
#include "judge/sc_baseline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/sc_verdict.h"

static sc_status_t baseline__figure(sc_figures_t *out, int run, const char *key, const char *metric,
                                    double value, bool higher_is_better, sc_err_t *err)
{
    if (!(value > 0))
        return SC_OK; /* nothing measured: not a figure to hold anything to */
    sc_figure_t *f = SC_LIST_PUSH(out);
    if (f == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "no memory for the figures of a result");
    snprintf(f->key, sizeof(f->key), "%s", key);
    snprintf(f->metric, sizeof(f->metric), "%s", metric);
    f->value = value;
    f->higher_is_better = higher_is_better;
    f->run = run;
    return SC_OK;
}

/* A collective case: what ran, on how many ranks and hosts (a sweep's sizes are prefixed). */
static void baseline__case_key(const char *prefix, const sc_case_row_t *c, const sc_result_t *r,
                               char *key, size_t len)
{
    int n =
        snprintf(key, len, "%s%s %s %s %llu B%s, %d ranks on %d host%s", prefix, c->collective,
                 c->dtype, c->op, (unsigned long long)c->size_bytes, c->in_place ? " in-place" : "",
                 r->ranks, r->nhosts, r->nhosts == 1 ? "" : "s");
    if (n < 0 || (size_t)n >= len)
        key[len - 1] = '\0';
}

static sc_status_t baseline__cases(const sc_result_t *r, const char *prefix,
                                   const sc_case_rows_t *rows, int run, sc_figures_t *out,
                                   sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (size_t i = 0; status == SC_OK && i < rows->n; i++) {
        char key[192];
        baseline__case_key(prefix, &rows->items[i], r, key, sizeof(key));
        status = baseline__figure(out, run, key, "time_us", rows->items[i].time_us, false, err);
    }
    return status;
}

static sc_status_t baseline__points(const sc_result_t *r, int run, sc_figures_t *out, sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (size_t i = 0; status == SC_OK && i < r->points.n; i++) {
        const sc_point_t *p = &r->points.items[i];
        char key[192];
        snprintf(key, sizeof(key), "point %d GPUs x %d node%s (dp %d tp %d pp %d)", p->gpus,
                 p->nodes, p->nodes == 1 ? "" : "s", p->dp, p->tp, p->pp);
        status = baseline__figure(out, run, key, "step_time_ms", p->step_time_ms, false, err);
    }
    return status;
}

static sc_status_t baseline__pairs(const sc_result_t *r, int run, sc_figures_t *out, sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (size_t i = 0; status == SC_OK && i < r->pairs.n; i++) {
        const sc_pair_row_t *p = &r->pairs.items[i];
        char key[192];
        int n = snprintf(key, sizeof(key), "pair %s - %s", p->a, p->b);
        if (n < 0 || (size_t)n >= sizeof(key))
            key[sizeof(key) - 1] = '\0';
        status = baseline__figure(out, run, key, "bidir_GBps", p->bidir_GBps, true, err);
        if (status == SC_OK)
            status = baseline__figure(out, run, key, "latency_us", p->latency_us, false, err);
    }
    return status;
}

sc_status_t sc_result_figures(const sc_result_t *r, int run, sc_figures_t *out, sc_err_t *err)
{
    sc_status_t status = baseline__cases(r, "", &r->cases, run, out, err);
    if (status == SC_OK)
        status = baseline__cases(r, "sweep ", &r->sweep, run, out, err);
    if (status == SC_OK)
        status = baseline__points(r, run, out, err);
    if (status == SC_OK)
        status = baseline__pairs(r, run, out, err);
    return status;
}

static int baseline__key_cmp(const char *ka, const char *ma, const char *kb, const char *mb)
{
    int c = strcmp(ka, kb);
    return c != 0 ? c : strcmp(ma, mb);
}

static int baseline__figure_cmp(const void *a, const void *b)
{
    const sc_figure_t *x = a, *y = b;
    int c = baseline__key_cmp(x->key, x->metric, y->key, y->metric);
    return c != 0 ? c : (x->run > y->run) - (x->run < y->run);
}

static int baseline__point_cmp(const void *a, const void *b)
{
    const sc_baseline_point_t *x = a, *y = b;
    return baseline__key_cmp(x->key, x->metric, y->key, y->metric);
}

static int baseline__double_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double baseline__median(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), baseline__double_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "all", or the indices of the runs figures[0..n) came from. */
static void baseline__runs_text(const sc_figure_t *f, size_t n, size_t nruns, char *out, size_t len)
{
    size_t distinct = 0, used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && f[i].run == f[i - 1].run)
            continue;
        distinct++;
        int w = snprintf(out + used, len - used, "%s%d", used ? " " : "", f[i].run);
        used = w < 0 || used + (size_t)w >= len ? len - 1 : used + (size_t)w;
    }
    if (distinct == nruns)
        snprintf(out, len, "all");
}

/* One point from the figures of a key and metric (sorted by run). */
static void baseline__summarise(const sc_figure_t *f, size_t n, size_t nruns, double *scratch,
                                sc_baseline_point_t *p)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->key, sizeof(p->key), "%s", f[0].key);
    snprintf(p->metric, sizeof(p->metric), "%s", f[0].metric);
    p->higher_is_better = f[0].higher_is_better;
    for (size_t i = 0; i < n; i++)
        scratch[i] = f[i].value;
    p->median = baseline__median(scratch, n); /* sorts scratch */
    p->lo = scratch[0];
    p->hi = scratch[n - 1];
    p->spread = fmax(p->median - p->lo, p->hi - p->median) / p->median;
    p->count = (int)n;
    baseline__runs_text(f, n, nruns, p->runs, sizeof(p->runs));
}

static void baseline__join_hosts(const sc_result_t *r, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int h = 0; r->hosts != NULL && h < r->nhosts && used + 1 < len; h++) {
        int w = snprintf(out + used, len - used, "%s%s", h ? "," : "", r->hosts[h]);
        used = w < 0 || used + (size_t)w >= len ? len - 1 : used + (size_t)w;
    }
}

static void baseline__join_libraries(const sc_result_t *r, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < r->libraries.n && used + 1 < len; i++) {
        const sc_kv_t *kv = &r->libraries.items[i];
        int w =
            kv->is_number
                ? snprintf(out + used, len - used, "%s%s %g", used ? "; " : "", kv->key, kv->number)
                : snprintf(out + used, len - used, "%s%s %s", used ? "; " : "", kv->key, kv->text);
        used = w < 0 || used + (size_t)w >= len ? len - 1 : used + (size_t)w;
    }
}

static sc_status_t baseline__run(const sc_result_t *r, const char *dir, sc_baseline_t *b,
                                 sc_err_t *err)
{
    sc_baseline_run_t *run = SC_LIST_PUSH(&b->runs);
    if (run == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "no memory for a baseline");
    snprintf(run->dir, sizeof(run->dir), "%s", dir);
    snprintf(run->command, sizeof(run->command), "%s", r->command);
    snprintf(run->start_utc, sizeof(run->start_utc), "%s", r->start_utc);
    snprintf(run->version, sizeof(run->version), "%s", r->version);
    snprintf(run->backend, sizeof(run->backend), "%s", r->backend);
    snprintf(run->topology, sizeof(run->topology), "%s", r->topology);
    run->ranks = r->ranks;
    run->nhosts = r->nhosts;
    baseline__join_hosts(r, run->hosts, sizeof(run->hosts));
    baseline__join_libraries(r, run->libraries, sizeof(run->libraries));
    return SC_OK;
}

static sc_status_t baseline__group(const sc_figures_t *all, size_t nruns, sc_baseline_t *b,
                                   sc_err_t *err)
{
    double *scratch = malloc(all->n * sizeof(double));
    if (scratch == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "no memory for a baseline");
    sc_status_t status = SC_OK;
    for (size_t i = 0, j; status == SC_OK && i < all->n; i = j) {
        const sc_figure_t *f = all->items;
        for (j = i + 1;
             j < all->n && baseline__key_cmp(f[i].key, f[i].metric, f[j].key, f[j].metric) == 0;
             j++)
            ;
        sc_baseline_point_t *p = SC_LIST_PUSH(&b->points);
        if (p == NULL)
            status = sc_err_set(err, SC_ERR_NOMEM, "no memory for a baseline");
        else
            baseline__summarise(&f[i], j - i, nruns, scratch, p);
    }
    free(scratch);
    return status;
}

sc_status_t sc_baseline_build(const sc_result_t *docs, const char *const *dirs, size_t n,
                              double tolerance, sc_baseline_t *out, sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    out->tolerance = tolerance;
    if (n > SC_BASELINE_MAX_RUNS)
        return sc_err_set(err, SC_ERR_USAGE, "baseline: at most %d runs (%zu given)",
                          SC_BASELINE_MAX_RUNS, n);
    sc_figures_t all = {0};
    sc_status_t status = SC_OK;
    for (size_t i = 0; status == SC_OK && i < n; i++) {
        status = baseline__run(&docs[i], dirs[i], out, err);
        if (status == SC_OK)
            status = sc_result_figures(&docs[i], (int)i, &all, err);
    }
    if (status == SC_OK && all.n == 0)
        status = sc_err_set(err, SC_ERR_INPUT,
                            "baseline: the runs hold no measured figure (%s, ...)", dirs[0]);
    if (status == SC_OK) {
        qsort(all.items, all.n, sizeof(*all.items), baseline__figure_cmp);
        status = baseline__group(&all, n, out, err);
    }
    sc_list_free(&all);
    if (status != SC_OK)
        sc_baseline_free(out);
    return status;
}

void sc_baseline_sort(sc_baseline_t *b)
{
    if (b->points.n > 1)
        qsort(b->points.items, b->points.n, sizeof(*b->points.items), baseline__point_cmp);
}

const sc_baseline_point_t *sc_baseline_find(const sc_baseline_t *b, const char *key,
                                            const char *metric)
{
    sc_baseline_point_t probe = {0};
    snprintf(probe.key, sizeof(probe.key), "%s", key);
    snprintf(probe.metric, sizeof(probe.metric), "%s", metric);
    if (b->points.n == 0)
        return NULL;
    return bsearch(&probe, b->points.items, b->points.n, sizeof(*b->points.items),
                   baseline__point_cmp);
}

/* A figure's band: its spread, at least the baseline's tolerance. */
static double baseline__tolerance(const sc_baseline_t *b, const sc_baseline_point_t *p)
{
    return fmin(fmax(p->spread, b->tolerance), 0.9);
}

/* One figure against its baseline point: a WARN beyond the spread (at least the baseline's
 * tolerance), a FAIL beyond twice that. Returns the ratio (> 1: better than the baseline). */
static double baseline__hold(const sc_baseline_t *b, const sc_baseline_point_t *p,
                             const sc_figure_t *f, sc_checks_t *checks)
{
    double tolerance = baseline__tolerance(b, p);
    sc_band_t band = {tolerance, fmin(2 * tolerance, 0.95), false};
    char name[192];
    int n = snprintf(name, sizeof(name), "%s vs baseline", f->key);
    if (n < 0 || (size_t)n >= sizeof(name))
        name[sizeof(name) - 1] = '\0';
    sc_check_t *c = sc_verdict_band(checks, name, f->metric, f->value, p->median, &band,
                                    f->higher_is_better, "baseline");
    if (c != NULL && c->level != SC_LEVEL_PASS)
        snprintf(c->note, sizeof(c->note),
                 "beyond the baseline's spread (%d run%s: %.4g .. %.4g, median %.4g)", p->count,
                 p->count == 1 ? "" : "s", p->lo, p->hi, p->median);
    return c != NULL ? c->ratio : 0;
}

/* The median ratio of every matched figure, in the median of their bands: a run off its
 * baseline as a whole (a WARN at most: it explains the figures' checks, it is not one more
 * failure). */
static void baseline__whole_run(double *ratios, double *tolerances, size_t n, sc_checks_t *checks)
{
    double median = baseline__median(ratios, n);
    sc_band_t band = {baseline__median(tolerances, n), 1.0, false};
    char name[96];
    snprintf(name, sizeof(name), "whole run vs baseline (median of %zu figures)", n);
    sc_check_t *c = sc_verdict_band(checks, name, "ratio", median, 1.0, &band, true, "baseline");
    if (c != NULL && c->level != SC_LEVEL_PASS)
        snprintf(c->note, sizeof(c->note),
                 "the whole run sits %.0f %% off its baseline: the machine was slow for the whole "
                 "run, or it changed",
                 (1.0 - median) * 100);
}

size_t sc_verdict_baseline(const sc_baseline_t *b, const sc_result_t *r, sc_checks_t *checks)
{
    sc_figures_t figures = {0};
    sc_err_t ignored;
    if (sc_result_figures(r, 0, &figures, &ignored) != SC_OK || figures.n == 0) {
        sc_list_free(&figures);
        return 0;
    }
    double *ratios = malloc(2 * figures.n * sizeof(double));
    double *tolerances = ratios + figures.n;
    size_t matched = 0;
    for (size_t i = 0; ratios != NULL && i < figures.n; i++) {
        const sc_figure_t *f = &figures.items[i];
        const sc_baseline_point_t *p = sc_baseline_find(b, f->key, f->metric);
        if (p == NULL)
            continue;
        tolerances[matched] = baseline__tolerance(b, p);
        ratios[matched++] = baseline__hold(b, p, f, checks);
    }
    if (matched >= 2)
        baseline__whole_run(ratios, tolerances, matched, checks);
    free(ratios);
    sc_list_free(&figures);
    return matched;
}
