/* sc_baseline.c - a result's figures, a baseline built from known-good results, and a result
 * held to a baseline. */
#include "judge/sc_baseline.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/sc_baseline_store.h"
#include "judge/sc_verdict.h"
#include "util/sc_numtext.h"

/* Where a result's figures go: a list (one result held to a baseline), or a builder's store
 * (many results made into one). */
typedef struct {
    sc_figures_t *list;
    sc_baseline_builder_t *builder;
} baseline__sink_t;

/* nothing measured (0, absent): not a figure to hold anything to */
static bool baseline__measured(double value)
{
    return value > 0;
}

static sc_status_t baseline__figure(baseline__sink_t *out, int run, const char *key,
                                    const char *metric, double value, bool higher_is_better,
                                    sc_err_t *err)
{
    if (!baseline__measured(value))
        return SC_OK;
    if (out->builder != NULL) { /* readers of later runs may be adding theirs */
        pthread_mutex_lock(&out->builder->lock);
        bool ok =
            sc_store_add(&out->builder->store, key, metric, value, higher_is_better, run, NULL);
        pthread_mutex_unlock(&out->builder->lock);
        return ok ? SC_OK : sc_err_set(err, SC_ERR_NOMEM, "no memory for the figures of the runs");
    }
    sc_figure_t *f = SC_LIST_PUSH(out->list);
    if (f == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "no memory for the figures of a result");
    snprintf(f->key, sizeof(f->key), "%s", key);
    snprintf(f->metric, sizeof(f->metric), "%s", metric);
    f->value = value;
    f->higher_is_better = higher_is_better;
    f->run = run;
    return SC_OK;
}

/* A key being written: text appended up to its last byte (a million rows a run: no printf). */
typedef struct {
    char *at, *last;
} baseline__text_t;

static void baseline__put(baseline__text_t *t, const char *text)
{
    size_t n = strlen(text), room = (size_t)(t->last - t->at);
    n = n < room ? n : room;
    memcpy(t->at, text, n);
    t->at += n;
}

/* A whole number (util/sc_numtext: a million rows a run). */
static void baseline__put_number(baseline__text_t *t, long long v)
{
    char digits[24];
    sc_numtext_int(v, digits);
    baseline__put(t, digits);
}

/* A collective case: what ran, on how many ranks and hosts (a sweep's sizes are prefixed):
 * "allreduce float sum 1048576 B in-place, 4 ranks on 2 hosts". */
static void baseline__case_key(const char *prefix, const sc_case_row_t *c, const sc_result_t *r,
                               char *key, size_t len)
{
    baseline__text_t t = {key, key + len - 1};
    const char *words[] = {prefix, c->collective, " ", c->dtype, " ", c->op, " "};
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
        baseline__put(&t, words[w]);
    if (c->size_bytes <= (uint64_t)LLONG_MAX)
        baseline__put_number(&t, (long long)c->size_bytes);
    else { /* past what a result may hold (2^56 bytes), as it came */
        char digits[24];
        snprintf(digits, sizeof(digits), "%llu", (unsigned long long)c->size_bytes);
        baseline__put(&t, digits);
    }
    baseline__put(&t, c->in_place ? " B in-place, " : " B, ");
    baseline__put_number(&t, r->ranks);
    baseline__put(&t, " ranks on ");
    baseline__put_number(&t, r->nhosts);
    baseline__put(&t, r->nhosts == 1 ? " host" : " hosts");
    *t.at = '\0';
}

static sc_status_t baseline__case(const sc_result_t *r, const char *prefix,
                                  const sc_case_row_t *row, int run, baseline__sink_t *out,
                                  sc_err_t *err)
{
    char key[SC_FIGURE_KEY_MAX];
    baseline__case_key(prefix, row, r, key, sizeof(key));
    return baseline__figure(out, run, key, "time_us", row->time_us, false, err);
}

static sc_status_t baseline__cases(const sc_result_t *r, const char *prefix,
                                   const sc_case_rows_t *rows, int run, baseline__sink_t *out,
                                   sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (size_t i = 0; status == SC_OK && i < rows->n; i++)
        status = baseline__case(r, prefix, &rows->items[i], run, out, err);
    return status;
}

static sc_status_t baseline__points(const sc_result_t *r, int run, baseline__sink_t *out,
                                    sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (size_t i = 0; status == SC_OK && i < r->points.n; i++) {
        const sc_point_t *p = &r->points.items[i];
        char key[SC_FIGURE_KEY_MAX];
        snprintf(key, sizeof(key), "point %d GPUs x %d node%s (dp %d tp %d pp %d)", p->gpus,
                 p->nodes, p->nodes == 1 ? "" : "s", p->dp, p->tp, p->pp);
        status = baseline__figure(out, run, key, "step_time_ms", p->step_time_ms, false, err);
    }
    return status;
}

static sc_status_t baseline__pairs(const sc_result_t *r, int run, baseline__sink_t *out,
                                   sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (size_t i = 0; status == SC_OK && i < r->pairs.n; i++) {
        const sc_pair_row_t *p = &r->pairs.items[i];
        char key[SC_FIGURE_KEY_MAX];
        int n = snprintf(key, sizeof(key), "pair %s - %s", p->a, p->b);
        if (n < 0 || (size_t)n >= sizeof(key))
            key[sizeof(key) - 1] = '\0';
        status = baseline__figure(out, run, key, "bidir_GBps", p->bidir_GBps, true, err);
        if (status == SC_OK)
            status = baseline__figure(out, run, key, "latency_us", p->latency_us, false, err);
    }
    return status;
}

static sc_status_t baseline__figures(const sc_result_t *r, int run, baseline__sink_t *out,
                                     sc_err_t *err)
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

sc_status_t sc_result_figures(const sc_result_t *r, int run, sc_figures_t *out, sc_err_t *err)
{
    baseline__sink_t sink = {.list = out};
    return baseline__figures(r, run, &sink, err);
}

static int baseline__key_cmp(const char *ka, const char *ma, const char *kb, const char *mb)
{
    int c = strcmp(ka, kb);
    return c != 0 ? c : strcmp(ma, mb);
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

void sc_baseline_begin(sc_baseline_builder_t *bb, sc_baseline_t *out, double tolerance)
{
    memset(bb, 0, sizeof(*bb));
    memset(out, 0, sizeof(*out));
    out->tolerance = tolerance;
    bb->out = out;
    sc_store_init(&bb->store);
    /* a default mutex holds nothing to destroy: a builder is freed without it */
    pthread_mutex_init(&bb->lock, NULL);
}

void sc_run_kind_of(const sc_result_t *r, sc_run_kind_t *kind)
{
    memset(kind, 0, sizeof(*kind));
    snprintf(kind->command, sizeof(kind->command), "%s", r->command);
    snprintf(kind->backend, sizeof(kind->backend), "%s", r->backend);
    snprintf(kind->workload, sizeof(kind->workload), "%s", r->workload);
    kind->ranks = r->ranks;
    kind->nhosts = r->nhosts;
    kind->bytes_scale = r->bytes_scale;
    kind->compute_scale = r->compute_scale;
}

/* Two scales alike: equal to a part in a million, or both unset (0: a command without one). */
static bool baseline__same_scale(double a, double b)
{
    return fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b));
}

bool sc_run_kind_differs(const sc_run_kind_t *a, const sc_run_kind_t *b, char *why, size_t len)
{
    if (strcmp(a->command, b->command) != 0)
        snprintf(why, len, "command %s against %s", a->command, b->command);
    else if (strcmp(a->backend, b->backend) != 0)
        snprintf(why, len, "backend %s against %s", a->backend, b->backend);
    else if (a->ranks != b->ranks || a->nhosts != b->nhosts)
        snprintf(why, len, "%d ranks on %d hosts against %d on %d", a->ranks, a->nhosts, b->ranks,
                 b->nhosts);
    else if (strcmp(a->workload, b->workload) != 0)
        snprintf(why, len, "workload %s against %s", a->workload, b->workload);
    else if (!baseline__same_scale(a->bytes_scale, b->bytes_scale))
        snprintf(why, len, "bytes_scale %g against %g", a->bytes_scale, b->bytes_scale);
    else if (!baseline__same_scale(a->compute_scale, b->compute_scale))
        snprintf(why, len, "compute_scale %g against %g", a->compute_scale, b->compute_scale);
    else
        return false;
    return true;
}

sc_status_t sc_run_kind_check(const sc_result_t *r, const char *dir, const sc_run_kind_t *first,
                              const char *first_dir, sc_err_t *err)
{
    sc_run_kind_t kind;
    sc_run_kind_of(r, &kind);
    char why[256];
    if (!sc_run_kind_differs(&kind, first, why, sizeof(why)))
        return SC_OK;
    return sc_err_set(err, SC_ERR_INPUT,
                      "%s is not like %s: %s (runs compared must share the command, backend, "
                      "ranks, hosts, workload and scales)",
                      dir, first_dir, why);
}

sc_status_t sc_baseline_add(sc_baseline_builder_t *bb, const sc_result_t *r, const char *dir,
                            sc_err_t *err)
{
    if (bb->nruns == SC_BASELINE_MAX_RUNS)
        return sc_err_set(err, SC_ERR_USAGE, "baseline: at most %d runs (%s is one more)",
                          SC_BASELINE_MAX_RUNS, dir);
    if (bb->nruns == 0) {
        snprintf(bb->first_dir, sizeof(bb->first_dir), "%s", dir);
        sc_run_kind_of(r, &bb->first);
    }
    sc_status_t status = sc_run_kind_check(r, dir, &bb->first, bb->first_dir, err);
    if (status != SC_OK)
        return status;
    status = baseline__run(r, dir, bb->out, err);
    baseline__sink_t sink = {.builder = bb};
    if (status == SC_OK)
        status = baseline__figures(r, (int)bb->nruns, &sink, err);
    bb->nruns++;
    return status;
}

void sc_baseline_batch_begin(sc_baseline_batch_t *batch, sc_baseline_builder_t *bb, int run)
{
    batch->bb = bb;
    batch->run = run;
    batch->n = 0;
    batch->hint = 0;
}

sc_status_t sc_baseline_batch_flush(sc_baseline_batch_t *batch, sc_err_t *err)
{
    bool ok = true;
    pthread_mutex_lock(&batch->bb->lock);
    for (size_t i = 0; ok && i < batch->n; i++)
        ok = sc_store_add(&batch->bb->store, batch->keys[i], "time_us", batch->values[i], false,
                          batch->run, &batch->hint);
    pthread_mutex_unlock(&batch->bb->lock);
    batch->n = 0;
    return ok ? SC_OK : sc_err_set(err, SC_ERR_NOMEM, "no memory for the figures of the runs");
}

sc_status_t sc_baseline_batch_case(sc_baseline_batch_t *batch, const sc_result_t *r, bool sweep,
                                   const sc_case_row_t *row, sc_err_t *err)
{
    if (!baseline__measured(row->time_us))
        return SC_OK;
    baseline__case_key(sweep ? "sweep " : "", row, r, batch->keys[batch->n],
                       sizeof(batch->keys[0]));
    batch->values[batch->n++] = row->time_us;
    return batch->n < SC_BASELINE_BATCH ? SC_OK : sc_baseline_batch_flush(batch, err);
}

sc_status_t sc_baseline_end(sc_baseline_builder_t *bb, sc_status_t status, bool keep, sc_err_t *err)
{
    if (status == SC_OK && bb->store.nfigures == 0)
        status = sc_err_set(err, SC_ERR_INPUT,
                            "baseline: the runs hold no measured figure (%s, ...)", bb->first_dir);
    if (status == SC_OK && !sc_store_group(&bb->store))
        status = sc_err_set(err, SC_ERR_NOMEM, "no memory for a baseline");
    for (size_t i = 0; status == SC_OK && !keep && i < bb->store.nkeys; i++) {
        sc_baseline_point_t made[SC_STORE_METRICS];
        int n = sc_store_points(&bb->store, i, bb->nruns, made);
        if (n < 0)
            status = sc_err_set(err, SC_ERR_NOMEM, "no memory for a baseline");
        for (int m = 0; m < n && status == SC_OK; m++) {
            sc_baseline_point_t *p = SC_LIST_PUSH(&bb->out->points);
            if (p == NULL)
                status = sc_err_set(err, SC_ERR_NOMEM, "no memory for a baseline");
            else
                *p = made[m];
        }
    }
    if (status != SC_OK || !keep)
        sc_store_free(&bb->store);
    if (status != SC_OK)
        sc_baseline_free(bb->out);
    return status;
}

void sc_baseline_builder_free(sc_baseline_builder_t *bb)
{
    sc_store_free(&bb->store);
}

sc_status_t sc_baseline_build(const sc_result_t *docs, const char *const *dirs, size_t n,
                              double tolerance, sc_baseline_t *out, sc_err_t *err)
{
    sc_baseline_builder_t bb;
    sc_baseline_begin(&bb, out, tolerance);
    if (n > SC_BASELINE_MAX_RUNS)
        return sc_baseline_end(&bb,
                               sc_err_set(err, SC_ERR_USAGE,
                                          "baseline: at most %d runs (%zu given)",
                                          SC_BASELINE_MAX_RUNS, n),
                               false, err);
    sc_status_t status = SC_OK;
    for (size_t i = 0; status == SC_OK && i < n; i++)
        status = sc_baseline_add(&bb, &docs[i], dirs[i], err);
    return sc_baseline_end(&bb, status, false, err);
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

void sc_baseline_hold_begin(sc_baseline_hold_t *h, const sc_baseline_t *b, const sc_store_t *store,
                            size_t nruns)
{
    *h = (sc_baseline_hold_t){.b = b, .store = store, .nruns = nruns};
}

/* f's point: from the store (made now), or b's sorted list; false when there is none. */
static bool baseline__point_of(const sc_baseline_hold_t *h, const sc_figure_t *f,
                               sc_baseline_point_t *p)
{
    if (h->store == NULL) {
        const sc_baseline_point_t *found = sc_baseline_find(h->b, f->key, f->metric);
        if (found != NULL)
            *p = *found;
        return found != NULL;
    }
    long k = sc_store_find(h->store, f->key);
    sc_baseline_point_t made[SC_STORE_METRICS];
    int n = k < 0 ? 0 : sc_store_key_points(h->store, (size_t)k, h->nruns, made);
    for (int m = 0; m < n; m++)
        if (strcmp(made[m].metric, f->metric) == 0) {
            *p = made[m];
            return true;
        }
    return false;
}

void sc_baseline_hold_figure(sc_baseline_hold_t *h, const sc_figure_t *f, sc_checks_t *checks)
{
    sc_baseline_point_t p;
    if (!baseline__point_of(h, f, &p))
        return;
    if (h->matched == h->cap && !h->nomem) {
        size_t cap = h->cap ? 2 * h->cap : 1024;
        double *ratios = realloc(h->ratios, cap * sizeof(double));
        if (ratios != NULL) {
            h->ratios = ratios;
            double *tolerances = realloc(h->tolerances, cap * sizeof(double));
            if (tolerances != NULL) {
                h->tolerances = tolerances;
                h->cap = cap;
            }
        }
        h->nomem = h->cap != cap;
    }
    double ratio = baseline__hold(h->b, &p, f, checks);
    if (h->matched < h->cap) {
        h->tolerances[h->matched] = baseline__tolerance(h->b, &p);
        h->ratios[h->matched] = ratio;
    }
    h->matched++; /* counted even when it could not be kept: nomem says so */
}

void sc_baseline_hold_case(sc_baseline_hold_t *h, const sc_result_t *r, bool sweep,
                           const sc_case_row_t *row, sc_checks_t *checks)
{
    if (!baseline__measured(row->time_us))
        return;
    sc_figure_t f = {.value = row->time_us, .higher_is_better = false};
    baseline__case_key(sweep ? "sweep " : "", row, r, f.key, sizeof(f.key));
    snprintf(f.metric, sizeof(f.metric), "time_us");
    sc_baseline_hold_figure(h, &f, checks);
}

sc_status_t sc_baseline_hold_end(sc_baseline_hold_t *h, sc_checks_t *checks, size_t *matched,
                                 sc_err_t *err)
{
    *matched = h->matched;
    if (!h->nomem && h->matched >= 2)
        baseline__whole_run(h->ratios, h->tolerances, h->matched, checks);
    free(h->ratios);
    free(h->tolerances);
    bool nomem = h->nomem;
    *h = (sc_baseline_hold_t){0};
    return nomem ? sc_err_set(err, SC_ERR_NOMEM, "no memory for the figures held to a baseline")
                 : SC_OK;
}

size_t sc_verdict_baseline(const sc_baseline_t *b, const sc_result_t *r, sc_checks_t *checks)
{
    sc_figures_t figures = {0};
    sc_err_t ignored;
    if (sc_result_figures(r, 0, &figures, &ignored) != SC_OK || figures.n == 0) {
        sc_list_free(&figures);
        return 0;
    }
    sc_baseline_hold_t h;
    sc_baseline_hold_begin(&h, b, NULL, 0);
    for (size_t i = 0; i < figures.n; i++)
        sc_baseline_hold_figure(&h, &figures.items[i], checks);
    size_t matched;
    sc_baseline_hold_end(&h, checks, &matched, &ignored);
    sc_list_free(&figures);
    return matched;
}
