#include "report/sc_prometheus.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/sc_files.h"

/* A label's value, escaped as the format wants: backslash, double quote, newline. */
static void prom__value(FILE *out, const char *v)
{
    for (; v != NULL && *v; v++) {
        if (*v == '\\' || *v == '"')
            fputc('\\', out);
        if (*v == '\n')
            fputs("\\n", out);
        else
            fputc(*v, out);
    }
}

static void prom__family(FILE *out, const char *name, const char *type, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{command="...",k1="v1",...} value; labels: NULL-terminated key, value pairs. */
static void prom__sample(FILE *out, const sc_result_t *r, const char *name,
                         const char *const *labels, double value)
{
    fprintf(out, "%s{command=\"", name);
    prom__value(out, r->command);
    fputc('"', out);
    for (int i = 0; labels != NULL && labels[i] != NULL; i += 2) {
        fprintf(out, ",%s=\"", labels[i]);
        prom__value(out, labels[i + 1]);
        fputc('"', out);
    }
    fprintf(out, "} %.15g\n", value);
}

static void prom__run(FILE *out, const sc_result_t *r)
{
    /* labels that repeat from run to run only: a start time or a run directory in a label
     * would make a new series every run (Prometheus keeps each one) */
    prom__family(out, "scalecheck_run_info", "gauge",
                 "The last run: always 1, what it was in the labels.");
    prom__sample(
        out, r, "scalecheck_run_info",
        (const char *[]){"version", r->version, "state", r->state, "backend", r->backend, NULL}, 1);
    prom__family(out, "scalecheck_run_complete", "gauge",
                 "1 when the last run completed, 0 when it failed or was interrupted.");
    prom__sample(out, r, "scalecheck_run_complete", NULL, strcmp(r->state, "complete") == 0);
    prom__family(out, "scalecheck_run_timestamp_seconds", "gauge",
                 "When these metrics were written (Unix time; the run's start and directory are "
                 "in its result.json, not in labels).");
    prom__sample(out, r, "scalecheck_run_timestamp_seconds", NULL, (double)time(NULL));
    prom__family(out, "scalecheck_run_ranks", "gauge", "Ranks and hosts of the last run.");
    char hosts[16];
    snprintf(hosts, sizeof(hosts), "%d", r->nhosts);
    prom__sample(out, r, "scalecheck_run_ranks", (const char *[]){"hosts", hosts, NULL}, r->ranks);
}

/* Whether a check is a series of its own: every one, unless the run has more than a report lists
 * (a fleet's million): then those that did not pass, so that no series comes and goes with the
 * spread of PASSes a report happens to show. */
static bool prom__series(const sc_result_t *r, const sc_check_t *c)
{
    return r->unlisted.checks == 0 || c->level != SC_LEVEL_PASS;
}

static void prom__checks(FILE *out, const sc_result_t *r)
{
    if (!r->judged)
        return;
    sc_tally_t t = sc_result_tally(r);
    char values[96], help[160];
    snprintf(help, sizeof(help), "The last run's verdict: %s.",
             sc_verdict_values_line(values, sizeof(values)));
    prom__family(out, "scalecheck_verdict", "gauge", help);
    prom__sample(out, r, "scalecheck_verdict", NULL, sc_result_verdict(r));
    prom__family(out, "scalecheck_checks", "gauge", "The last run's checks at each verdict.");
    const int counts[] = {t.pass, t.warn, t.fail};
    for (int l = SC_LEVEL_PASS; l <= SC_LEVEL_FAIL; l++)
        prom__sample(out, r, "scalecheck_checks",
                     (const char *[]){"verdict", sc_level_name((sc_level_t)l), NULL}, counts[l]);
    prom__family(out, "scalecheck_check_verdict", "gauge",
                 "Each check of the last run: 0 PASS, 1 WARN, 2 FAIL.");
    for (size_t i = 0; i < r->checks.n; i++) {
        const sc_check_t *c = &r->checks.items[i];
        if (prom__series(r, c))
            prom__sample(out, r, "scalecheck_check_verdict",
                         (const char *[]){"check", c->name, "source", c->source, NULL}, c->level);
    }
    prom__family(out, "scalecheck_check_ratio", "gauge",
                 "Each check's measured figure against its expected one (1 is as expected).");
    for (size_t i = 0; i < r->checks.n; i++) {
        const sc_check_t *c = &r->checks.items[i];
        if (sc_present(c->ratio) && prom__series(r, c))
            prom__sample(out, r, "scalecheck_check_ratio",
                         (const char *[]){"check", c->name, "source", c->source, NULL}, c->ratio);
    }
}

/* Whether two rows are the same case but for the size. */
static bool prom__same_case(const sc_case_row_t *a, const sc_case_row_t *b)
{
    return strcmp(a->collective, b->collective) == 0 && strcmp(a->dtype, b->dtype) == 0 &&
           strcmp(a->op, b->op) == 0 && a->in_place == b->in_place;
}

/* The largest size of each collective, type, reduction and place (coll's cases, run's sweep). */
static void prom__cases(FILE *out, const sc_result_t *r, const sc_case_rows_t *rows)
{
    if (rows->n == 0)
        return;
    prom__family(out, "scalecheck_busbw_bytes_per_second", "gauge",
                 "Bus bandwidth at the largest size measured, per collective, type, reduction "
                 "and place.");
    /* one pass, each row against the cases seen so far (a few hundred at most), not against
     * every row: coll -d all -o all writes tens of thousands */
    size_t *largest = malloc(rows->n * sizeof(*largest)), nkeys = 0;
    for (size_t i = 0; largest != NULL && i < rows->n; i++) {
        size_t k = 0;
        while (k < nkeys && !prom__same_case(&rows->items[largest[k]], &rows->items[i]))
            k++;
        if (k == nkeys)
            largest[nkeys++] = i;
        else if (rows->items[i].size_bytes > rows->items[largest[k]].size_bytes)
            largest[k] = i;
    }
    for (size_t k = 0; k < nkeys; k++) {
        const sc_case_row_t *c = &rows->items[largest[k]];
        char size[32];
        snprintf(size, sizeof(size), "%llu", (unsigned long long)c->size_bytes);
        prom__sample(out, r, "scalecheck_busbw_bytes_per_second",
                     (const char *[]){"collective", c->collective, "dtype", c->dtype, "op", c->op,
                                      "in_place", c->in_place ? "true" : "false", "size_bytes",
                                      size, NULL},
                     c->busbw_GBps * 1e9);
    }
    free(largest);
}

static void prom__points(FILE *out, const sc_result_t *r)
{
    if (r->points.n == 0)
        return;
    static const struct {
        const char *name, *help;
        size_t offset;
        double unit; /* to Prometheus' base units: seconds */
    } figures[] = {
        {"scalecheck_scaling_efficiency", "Scaling efficiency of each point (1 is linear).",
         offsetof(sc_point_t, efficiency), 1},
        {"scalecheck_speedup", "Speedup of each point against the first.",
         offsetof(sc_point_t, speedup), 1},
        {"scalecheck_step_time_seconds", "Median training-step time of each point.",
         offsetof(sc_point_t, step_time_ms), 1e-3},
    };
    for (size_t f = 0; f < sizeof(figures) / sizeof(figures[0]); f++) {
        prom__family(out, figures[f].name, "gauge", figures[f].help);
        for (size_t i = 0; i < r->points.n; i++) {
            const sc_point_t *p = &r->points.items[i];
            char gpus[16], nodes[16];
            snprintf(gpus, sizeof(gpus), "%d", p->gpus);
            snprintf(nodes, sizeof(nodes), "%d", p->nodes);
            double value;
            memcpy(&value, (const char *)p + figures[f].offset, sizeof(value));
            prom__sample(
                out, r, figures[f].name,
                (const char *[]){"workload", r->workload, "gpus", gpus, "nodes", nodes, NULL},
                value * figures[f].unit);
        }
    }
}

static void prom__pairs(FILE *out, const sc_result_t *r)
{
    if (!r->has_localization)
        return;
    prom__family(out, "scalecheck_pair_bandwidth_bytes_per_second", "gauge",
                 "Each measured pair's slower direction.");
    for (size_t i = 0; i < r->pairs.n; i++) {
        const sc_pair_row_t *p = &r->pairs.items[i];
        double slower = p->uni_ab_GBps < p->uni_ba_GBps ? p->uni_ab_GBps : p->uni_ba_GBps;
        prom__sample(out, r, "scalecheck_pair_bandwidth_bytes_per_second",
                     (const char *[]){"a", p->a, "b", p->b, NULL}, slower * 1e9);
    }
    prom__family(out, "scalecheck_pair_latency_seconds", "gauge",
                 "Each measured pair's one-way latency.");
    for (size_t i = 0; i < r->pairs.n; i++)
        prom__sample(out, r, "scalecheck_pair_latency_seconds",
                     (const char *[]){"a", r->pairs.items[i].a, "b", r->pairs.items[i].b, NULL},
                     r->pairs.items[i].latency_us * 1e-6);
    prom__family(out, "scalecheck_suspect", "gauge",
                 "Each node or link the pairs point at: always 1, what and where in the labels.");
    for (int i = 0; i < r->localization.nsuspects; i++) {
        const sc_suspect_t *s = &r->localization.suspects[i];
        prom__sample(out, r, "scalecheck_suspect",
                     (const char *[]){"kind", s->kind, "where", s->where, NULL}, 1);
    }
}

static void prom__health(FILE *out, const sc_result_t *r)
{
    static const struct {
        const char *name, *help;
    } figures[] = {
        {"scalecheck_gpu_max_temperature_celsius", "The hottest a GPU was during the run."},
        {"scalecheck_gpu_ecc_uncorrected_new", "Uncorrected ECC errors that appeared."},
        {"scalecheck_gpu_throttled_samples", "Samples with a throttle reason set."},
        {"scalecheck_gpu_min_nvlinks_up", "The fewest NVLinks up at any sample."},
    };
    bool any = false;
    for (int h = 0; r->health != NULL && h < r->nhealth; h++)
        any |= r->health[h].available && r->health[h].ngpus > 0;
    for (size_t f = 0; any && f < sizeof(figures) / sizeof(figures[0]); f++) {
        prom__family(out, figures[f].name, "gauge", figures[f].help);
        for (int h = 0; h < r->nhealth; h++)
            for (int g = 0; r->health[h].available && g < r->health[h].ngpus; g++) {
                const sc_gpu_health_t *gh = &r->health[h].gpus[g];
                double v[] = {gh->max_temp_c, (double)gh->ecc_uncorrected_new,
                              (double)gh->throttled_samples, gh->min_nvlinks_up};
                char gpu[16];
                snprintf(gpu, sizeof(gpu), "%u", gh->index);
                if (v[f] >= 0) /* -1: not reported */
                    prom__sample(out, r, figures[f].name,
                                 (const char *[]){"host", r->health[h].host, "gpu", gpu, NULL},
                                 v[f]);
            }
    }
}

/* A soak: its progress, and the last cycle's figures per host (what monitoring watches while it
 * runs: result.json and these are saved every cycle). */
static void prom__soak(FILE *out, const sc_result_t *r)
{
    if (r->soak.n == 0)
        return;
    const sc_soak_cycle_t *c = &r->soak.items[r->soak.n - 1];
    prom__family(out, "scalecheck_soak_cycles", "gauge", "Cycles the soak has finished.");
    prom__sample(out, r, "scalecheck_soak_cycles", NULL, (double)r->soak.n);
    prom__family(out, "scalecheck_soak_seconds", "gauge", "Soak time done, and asked for.");
    prom__sample(out, r, "scalecheck_soak_seconds", (const char *[]){"of", "done", NULL},
                 r->soak_s);
    prom__sample(out, r, "scalecheck_soak_seconds", (const char *[]){"of", "duration", NULL},
                 r->soak_duration_s);
    prom__family(out, "scalecheck_soak_cycle_verdict", "gauge",
                 "The last cycle held to the limits (0 PASS, 1 WARN, 2 FAIL).");
    prom__sample(out, r, "scalecheck_soak_cycle_verdict", NULL, c->level);
    static const struct {
        const char *name, *help;
    } figures[] = {
        {"scalecheck_soak_gpu_max_temperature_celsius", "The last cycle's hottest GPU."},
        {"scalecheck_soak_cpu_max_temperature_celsius", "The last cycle's hottest CPU sensor."},
        {"scalecheck_soak_xid_errors", "XID errors in the last cycle."},
        {"scalecheck_soak_ecc_uncorrected_new", "Uncorrected ECC errors in the last cycle."},
    };
    for (size_t f = 0; f < sizeof(figures) / sizeof(figures[0]); f++) {
        bool family = false;
        for (int k = 0; k < c->nhosts; k++) {
            const sc_soak_host_t *h = &c->hosts[k];
            double v[] = {h->max_gpu_temp_c, h->max_cpu_temp_c, (double)h->xids,
                          (double)h->ecc_uncorrected_new};
            if (v[f] < 0) /* not reported */
                continue;
            if (!family)
                prom__family(out, figures[f].name, "gauge", figures[f].help);
            family = true;
            prom__sample(out, r, figures[f].name, (const char *[]){"host", h->host, NULL}, v[f]);
        }
    }
}

static void prom__preflight(FILE *out, const sc_result_t *r)
{
    for (size_t i = 0; i < r->checks.n; i++)
        if (strcmp(r->checks.items[i].source, "preflight") == 0) {
            prom__family(out, "scalecheck_hosts_differing", "gauge",
                         "Hosts preflight found set up differently from the others.");
            prom__sample(out, r, "scalecheck_hosts_differing", NULL, r->checks.items[i].measured);
        }
}

static int prom__writer(FILE *out, void *arg)
{
    const sc_result_t *r = arg;
    prom__run(out, r);
    prom__checks(out, r);
    prom__cases(out, r, &r->cases);
    prom__cases(out, r, &r->sweep);
    prom__points(out, r);
    prom__pairs(out, r);
    prom__health(out, r);
    prom__soak(out, r);
    prom__preflight(out, r);
    return ferror(out);
}

sc_status_t sc_prometheus_write(const char *path, const sc_result_t *r, sc_err_t *err)
{
    return sc_files_write_text(path, prom__writer, (void *)r, err);
}
