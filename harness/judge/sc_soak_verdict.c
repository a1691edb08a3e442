/* sc_soak_verdict.c - a soak's cycles held to the limits, and the whole run: the worst cycle per
 * host and figure, and the drift from the first cycles to the last. */
#include "judge/sc_soak_verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/sc_verdict.h"
#include "util/sc_stats.h"

/* The figures a host is held to: the record's field, how it folds over the cycles, its limit
 * (an offset into sc_soak_limits_t; NO_LIMIT: any growth), FAIL or WARN past it, its unit. */
typedef struct {
    const char *what, *metric;
    size_t offset;
    int kind; /* 0 int, 1 long long, 2 double */
    bool sum;
    size_t limit;
    sc_level_t over;
    const char *unit;
    int who; /* which GPU to name: 0 none, SOAK__HOTTEST, SOAK__REMAP */
} soak_verdict__figure_t;

enum { SOAK__HOTTEST = 1, SOAK__REMAP = 2 };

#define NO_LIMIT ((size_t)-1)
#define FIG(what, metric, field, kind, sum, limit, over, unit, who)                                \
    {                                                                                              \
        what, metric, offsetof(sc_soak_host_t, field), kind, sum, limit, over, unit, who           \
    }
#define LIM(field) offsetof(sc_soak_limits_t, field)
static const soak_verdict__figure_t soak_verdict__figures[] = {
    FIG("hottest GPU", "gpu_temp_c", max_gpu_temp_c, 0, false, LIM(max_gpu_temp_c), SC_LEVEL_FAIL,
        " C", SOAK__HOTTEST),
    FIG("GPUs with a row remap pending or failed", "remap_pending", remap_bad, 0, false, NO_LIMIT,
        SC_LEVEL_FAIL, "", SOAK__REMAP),
    FIG("hottest CPU sensor", "cpu_temp_c", max_cpu_temp_c, 0, false, LIM(max_cpu_temp_c),
        SC_LEVEL_FAIL, " C", 0),
    FIG("GPU throttled share of a cycle", "throttle_fraction", throttle_fraction, 2, false,
        LIM(max_throttle_fraction), SC_LEVEL_FAIL, "", SOAK__HOTTEST),
    FIG("power above a GPU's enforced limit", "power_over_w", power_over_w, 2, false, NO_LIMIT,
        SC_LEVEL_WARN, " W", 0),
    FIG("uncorrected ECC errors", "ecc_uncorrected", ecc_uncorrected_new, 1, true,
        LIM(ecc_uncorrected), SC_LEVEL_FAIL, "", 0),
    FIG("XID errors", "xids", xids, 1, true, LIM(xid), SC_LEVEL_FAIL, "", 0),
    FIG("uncorrected memory errors (EDAC)", "edac_uncorrected", edac_uncorrected_new, 1, true,
        LIM(edac_uncorrected), SC_LEVEL_FAIL, "", 0),
    FIG("corrected ECC errors", "ecc_corrected", ecc_corrected_new, 1, true, NO_LIMIT,
        SC_LEVEL_WARN, "", 0),
    FIG("PCIe replays", "pcie_replays", pcie_replays_new, 1, true, NO_LIMIT, SC_LEVEL_WARN, "", 0),
    FIG("NVLink errors (replay, recovery, CRC)", "nvlink_errors", nvlink_errors_new, 1, true,
        NO_LIMIT, SC_LEVEL_WARN, "", 0),
    FIG("corrected memory errors (EDAC)", "edac_corrected", edac_corrected_new, 1, true, NO_LIMIT,
        SC_LEVEL_WARN, "", 0),
    FIG("InfiniBand port errors", "ib_errors", ib_errors_new, 1, true, NO_LIMIT, SC_LEVEL_WARN, "",
        0),
};
#define NFIGURES (sizeof(soak_verdict__figures) / sizeof(soak_verdict__figures[0]))
#undef LIM
#undef FIG

/* Whether a figure is a GPU's (a host without GPUs has none to report: nothing to check). */
static bool soak_verdict__gpu_figure(const soak_verdict__figure_t *fig)
{
    static const char *const host_metrics[] = {"cpu_temp_c", "edac_uncorrected", "edac_corrected",
                                               "ib_errors"};
    for (size_t i = 0; i < sizeof(host_metrics) / sizeof(host_metrics[0]); i++)
        if (!strcmp(fig->metric, host_metrics[i]))
            return false;
    return true;
}

/* Appends "; text" to a list of what was not checked (cut with "..." where it does not fit). */
static void soak_verdict__not_checked(char *list, size_t len, const char *text)
{
    size_t used = strlen(list);
    if (used + 4 >= len)
        return;
    int w = snprintf(list + used, len - used, "%s%s", used ? "; " : "", text);
    if (w < 0 || (size_t)w >= len - used)
        snprintf(list + len - 4, 4, "...");
}

/* A figure's limit (0 where any growth counts). */
static double soak_verdict__limit_of(const sc_soak_limits_t *l, const soak_verdict__figure_t *fig)
{
    double v = 0;
    if (fig->limit != NO_LIMIT)
        memcpy(&v, (const char *)l + fig->limit, sizeof(v));
    return v;
}

/* A host's value of a figure (-1: not reported). */
static double soak_verdict__value(const sc_soak_host_t *h, const soak_verdict__figure_t *fig)
{
    const char *at = (const char *)h + fig->offset;
    int i = 0;
    long long ll = 0;
    double d = 0;
    if (fig->kind == 0)
        memcpy(&i, at, sizeof(i));
    else if (fig->kind == 1)
        memcpy(&ll, at, sizeof(ll));
    else
        memcpy(&d, at, sizeof(d));
    return fig->kind == 0 ? i : fig->kind == 1 ? (double)ll : d;
}

/* The GPU a figure names, in words (" (GPU 1, 0000:1c:00.0; throttled: sw thermal slowdown)"),
 * "" where it names none. */
static const char *soak_verdict__who(const sc_soak_host_t *h, const soak_verdict__figure_t *fig,
                                     char *buf, size_t len)
{
    buf[0] = '\0';
    if (fig->who == SOAK__HOTTEST && h->hottest_gpu >= 0) {
        char reasons[160];
        snprintf(buf, len, " (GPU %d%s%s; throttled: %s)", h->hottest_gpu,
                 h->hottest_bus[0] ? ", " : "", h->hottest_bus,
                 sc_throttle_text(h->hottest_reasons, reasons, sizeof(reasons)));
    } else if (fig->who == SOAK__REMAP && h->remap_gpu >= 0)
        snprintf(buf, len, " (GPU %d first)", h->remap_gpu);
    return buf;
}

/* Appends "; text" to the cycle's breaches (cut where it does not fit), and fails it. */
static void soak_verdict__breach(sc_soak_cycle_t *c, const char *text)
{
    size_t used = strlen(c->breaches);
    snprintf(c->breaches + used, sizeof(c->breaches) - used, "%s%s", used ? "; " : "", text);
    c->level = SC_LEVEL_FAIL;
}

void sc_soak_judge_cycle(sc_soak_cycle_t *c, const sc_soak_limits_t *l)
{
    c->level = SC_LEVEL_PASS;
    c->breaches[0] = '\0';
    char text[384], who[224];
    for (int k = 0; k < c->nhosts; k++)
        for (size_t f = 0; f < NFIGURES; f++) {
            const soak_verdict__figure_t *fig = &soak_verdict__figures[f];
            double v = soak_verdict__value(&c->hosts[k], fig),
                   limit = soak_verdict__limit_of(l, fig);
            if (fig->over != SC_LEVEL_FAIL || v < 0 || v <= limit)
                continue;
            snprintf(text, sizeof(text), "%s: %s at %.3g%s, above %.3g%s%s", c->hosts[k].host,
                     fig->what, v, fig->unit, limit, fig->unit,
                     soak_verdict__who(&c->hosts[k], fig, who, sizeof(who)));
            soak_verdict__breach(c, text);
        }
    if (c->suspects > 0) {
        snprintf(text, sizeof(text), "the pair check: %s", c->suspect_text);
        soak_verdict__breach(c, text);
    }
}

int sc_soak_drift_span(int ncycles)
{
    int span = ncycles / 3;
    return span < 2 ? 2 : span > 3 ? 3 : span;
}

/* A check at most limit: PASS within it, else over (FAIL or WARN), with a note. */
static void soak_verdict__limit(sc_checks_t *checks, const char *name, const char *metric,
                                double measured, double limit, sc_level_t over, const char *note)
{
    sc_check_t *c = SC_LIST_PUSH(checks);
    if (c == NULL)
        return;
    snprintf(c->name, sizeof(c->name), "%s", name);
    snprintf(c->metric, sizeof(c->metric), "%s", metric);
    snprintf(c->source, sizeof(c->source), "expect.soak");
    snprintf(c->note, sizeof(c->note), "%s", note);
    c->measured = measured;
    c->expected = limit;
    c->ratio = measured <= limit ? 1.0 : limit > 0 ? limit / measured : 0.0;
    c->level = measured <= limit ? SC_LEVEL_PASS : over;
    c->looks = 1;
}

/* One host's figure over the cycles: the worst (max) or the total (sum), and the first cycle
 * past limit; value -1 when no cycle reported it. */
typedef struct {
    double value;
    int first_over, reported;
    const sc_soak_host_t *worst; /* the record it came from (the last, for a sum) */
} soak_verdict__fold_t;

static soak_verdict__fold_t soak_verdict__fold(const sc_soak_cycles_t *cycles, const char *host,
                                               const soak_verdict__figure_t *fig, double limit)
{
    soak_verdict__fold_t f = {-1, 0, 0, NULL};
    for (size_t i = 0; i < cycles->n; i++)
        for (int k = 0; k < cycles->items[i].nhosts; k++) {
            const sc_soak_host_t *h = &cycles->items[i].hosts[k];
            double v = soak_verdict__value(h, fig);
            if (strcmp(h->host, host) != 0 || v < 0)
                continue;
            f.reported++;
            if (fig->sum || v > f.value || f.worst == NULL)
                f.worst = h;
            f.value = fig->sum ? (f.value < 0 ? 0 : f.value) + v : (v > f.value ? v : f.value);
            if (v > limit && f.first_over == 0)
                f.first_over = cycles->items[i].cycle;
        }
    return f;
}

/* Pages retired and rows remapped during the soak: the last cycle's count against the first. */
static void soak_verdict__growth(const sc_soak_cycles_t *cycles, const char *host, const char *what,
                                 size_t offset, double limit, sc_checks_t *checks)
{
    long long first = -1, last = -1;
    for (size_t i = 0; i < cycles->n; i++)
        for (int k = 0; k < cycles->items[i].nhosts; k++) {
            const sc_soak_host_t *h = &cycles->items[i].hosts[k];
            long long v = 0;
            memcpy(&v, (const char *)h + offset, sizeof(v));
            if (strcmp(h->host, host) != 0 || v < 0)
                continue;
            first = first < 0 ? v : first;
            last = v;
        }
    if (first < 0)
        return;
    char name[192], note[128];
    snprintf(name, sizeof(name), "%s: %s during the soak", host, what);
    snprintf(note, sizeof(note), "%lld at the first cycle, %lld at the last", first, last);
    soak_verdict__limit(checks, name, what, (double)(last - first), limit, SC_LEVEL_FAIL, note);
}

/* Per host and figure the worst cycle; a limited figure no cycle reported (no sensor: a CPU
 * temperature on a VM) is said in not_checked, never counted a PASS. */
static void soak_verdict__host_checks(const sc_soak_cycles_t *cycles, const sc_soak_host_t *last,
                                      const sc_soak_limits_t *l, sc_checks_t *checks,
                                      char *not_checked, size_t len)
{
    const char *host = last->host;
    bool gpus = last->gpus_available || last->ngpus > 0;
    for (size_t f = 0; f < NFIGURES; f++) {
        const soak_verdict__figure_t *fig = &soak_verdict__figures[f];
        double limit = soak_verdict__limit_of(l, fig);
        soak_verdict__fold_t v = soak_verdict__fold(cycles, host, fig, limit);
        if (v.reported == 0 && fig->limit != NO_LIMIT && (gpus || !soak_verdict__gpu_figure(fig))) {
            char text[SC_HOST_MAX + 96];
            snprintf(text, sizeof(text), "%s: %s (no sensor reported it)", host, fig->what);
            soak_verdict__not_checked(not_checked, len, text);
        }
        if (v.reported == 0)
            continue;
        char name[192], note[128] = "", who[224] = "";
        if (v.worst != NULL)
            soak_verdict__who(v.worst, fig, who, sizeof(who));
        snprintf(name, sizeof(name), "%s: %s%.*s", host, fig->what, (int)(sizeof(name) / 2),
                 who[0] && v.value > limit ? who : "");
        if (v.first_over > 0)
            snprintf(note, sizeof(note), "first past %.3g in cycle %d", limit, v.first_over);
        soak_verdict__limit(checks, name, fig->metric, v.value, limit, fig->over, note);
    }
    soak_verdict__growth(cycles, host, "retired_pages", offsetof(sc_soak_host_t, retired_pages),
                         l->retired_pages, checks);
    soak_verdict__growth(cycles, host, "remapped_rows", offsetof(sc_soak_host_t, remapped_rows),
                         l->remapped_rows, checks);
}

/* The median of a figure over cycles [from, to) that have it (NaN: none). */
static double soak_verdict__median(const sc_soak_cycles_t *cycles, size_t from, size_t to,
                                   double (*figure)(const sc_soak_cycle_t *))
{
    double v[3];
    size_t n = 0;
    for (size_t i = from; i < to && n < 3; i++)
        if (sc_present(figure(&cycles->items[i])))
            v[n++] = figure(&cycles->items[i]);
    if (n == 0)
        return SC_ABSENT;
    sc_stats_t st;
    sc_stats_compute(v, n, &st);
    return st.median;
}

static double soak_verdict__step(const sc_soak_cycle_t *c)
{
    return c->step_ms;
}

static double soak_verdict__pair(const sc_soak_cycle_t *c)
{
    return c->pair_min_GBps;
}

/* A figure's first cycles against its last: FAIL past max_drift. */
static void soak_verdict__drift(const sc_soak_cycles_t *cycles, const sc_soak_limits_t *l,
                                const char *name, const char *metric,
                                double (*figure)(const sc_soak_cycle_t *), bool higher_is_better,
                                sc_checks_t *checks)
{
    size_t n = cycles->n, span = (size_t)sc_soak_drift_span((int)n);
    if (n < SC_SOAK_DRIFT_CYCLES) /* said once, by sc_soak_judge */
        return;
    double first = soak_verdict__median(cycles, 0, span, figure);
    double last = soak_verdict__median(cycles, n - span, n, figure);
    if (!sc_present(first) || !sc_present(last) || first <= 0 || last <= 0)
        return;
    sc_band_t band = {.tolerance = l->max_drift, .fail_tolerance = l->max_drift};
    sc_check_t *c =
        sc_verdict_band(checks, name, metric, last, first, &band, higher_is_better, "first cycles");
    if (c != NULL)
        snprintf(c->note, sizeof(c->note), "median of the last %zu cycles against the first %zu",
                 span, span);
}

/* The largest sweep size's busbw in its worst cycle against the run's median, as soon as there
 * are two cycles: a swing of SC_SOAK_SWING_MAX or more FAILs a soak too short for the drift. */
static void soak_verdict__swing(const sc_soak_cycles_t *cycles, const sc_soak_limits_t *l,
                                const char *name, sc_checks_t *checks)
{
    size_t n = cycles->n, have = 0;
    double *v = calloc(n ? n : 1, sizeof(double)), worst = SC_ABSENT;
    int worst_cycle = 0;
    for (size_t i = 0; v != NULL && i < n; i++) {
        double b = sc_soak_cycle_busbw(&cycles->items[i]);
        if (!sc_present(b) || b <= 0)
            continue;
        v[have++] = b;
        if (!sc_present(worst) || b < worst) {
            worst = b;
            worst_cycle = cycles->items[i].cycle;
        }
    }
    if (have >= 2) {
        sc_stats_t st;
        sc_stats_compute(v, have, &st);
        /* the wider of a fifth and the drift the soak allows (--max-drift 1: not judged) */
        double tol = fmax(1.0 - 1.0 / SC_SOAK_SWING_MAX, l->max_drift);
        sc_band_t band = {.tolerance = tol, .fail_tolerance = tol};
        sc_check_t *c = sc_verdict_band(checks, name, "busbw_GBps", worst, st.median, &band, true,
                                        "median cycle");
        if (c != NULL)
            snprintf(c->note, sizeof(c->note), "the slowest cycle (%d) against the median of %zu",
                     worst_cycle, have);
    }
    free(v);
}

void sc_soak_judge(const sc_soak_cycles_t *cycles, const sc_soak_limits_t *l, sc_checks_t *checks,
                   char *not_checked, size_t len)
{
    if (len > 0)
        not_checked[0] = '\0';
    if (cycles->n == 0)
        return;
    const sc_soak_cycle_t *last = &cycles->items[cycles->n - 1];
    for (int k = 0; k < last->nhosts; k++)
        soak_verdict__host_checks(cycles, &last->hosts[k], l, checks, not_checked, len);
    if (cycles->n < SC_SOAK_DRIFT_CYCLES) {
        char text[128];
        snprintf(text, sizeof(text),
                 "drift (%zu cycle%s: it needs %d; a longer --duration or a "
                 "shorter --cycle)",
                 cycles->n, cycles->n == 1 ? "" : "s", SC_SOAK_DRIFT_CYCLES);
        soak_verdict__not_checked(not_checked, len, text);
    }
    char swing[192];
    snprintf(swing, sizeof(swing), "swing: all-reduce busbw at %llu B",
             last->nsizes ? (unsigned long long)last->size_bytes[last->nsizes - 1] : 0ull);
    soak_verdict__swing(cycles, l, swing, checks);
    sc_soak_judge_gpus(cycles, checks);
    char name[192];
    snprintf(name, sizeof(name), "drift: all-reduce busbw at %llu B",
             last->nsizes ? (unsigned long long)last->size_bytes[last->nsizes - 1] : 0ull);
    soak_verdict__drift(cycles, l, name, "busbw_GBps", sc_soak_cycle_busbw, true, checks);
    soak_verdict__drift(cycles, l, "drift: training step time", "step_time_ms", soak_verdict__step,
                        false, checks);
    soak_verdict__drift(cycles, l, "drift: slowest pair", "GBps", soak_verdict__pair, true, checks);
    int failed = 0;
    for (size_t i = 0; i < cycles->n; i++)
        failed += cycles->items[i].level == SC_LEVEL_FAIL;
    char note[128];
    snprintf(note, sizeof(note), "%d of %zu cycles broke a limit (the journal says what)", failed,
             cycles->n);
    soak_verdict__limit(checks, "cycles within the limits", "failed_cycles", failed, 0,
                        SC_LEVEL_FAIL, failed ? note : "");
}
