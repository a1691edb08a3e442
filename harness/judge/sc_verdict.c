#include "sc_verdict.h"

#include <stdio.h>
#include <string.h>

#include "model/sc_model.h"

sc_band_t sc_band(double tolerance)
{
    return (sc_band_t){tolerance, 0, false};
}

sc_band_t sc_band_model(const sc_topology_t *t)
{
    return (sc_band_t){t->tolerance, t->fail_tolerance, true};
}

/* The level of a ratio in a band; *under: better than a two-sided band allows. */
static sc_level_t verdict__level(double ratio, const sc_band_t *band, bool *under)
{
    double pass = 1.0 - band->tolerance;
    double fail = band->fail_tolerance > 0 ? 1.0 - band->fail_tolerance : pass * pass;
    *under = band->two_sided && pass > 0 && ratio > 1.0 / pass;
    if (*under)
        return SC_LEVEL_WARN;
    return ratio >= pass ? SC_LEVEL_PASS : ratio >= fail ? SC_LEVEL_WARN : SC_LEVEL_FAIL;
}

bool sc_verdict_short(double ratio, const sc_band_t *band)
{
    bool under;
    return ratio > 0 && verdict__level(ratio, band, &under) != SC_LEVEL_PASS && !under;
}

void sc_verdict_note_looks(sc_check_t *c, int looks)
{
    if (c == NULL || looks <= 1)
        return;
    c->looks = looks;
    if (c->note[0] == '\0')
        snprintf(c->note, sizeof(c->note), "best of %d looks", looks);
}

sc_check_t *sc_verdict_band(sc_checks_t *checks, const char *name, const char *metric,
                            double measured, double expected, const sc_band_t *band,
                            bool higher_is_better, const char *source)
{
    double ratio = 0;
    if (expected > 0 && measured > 0)
        ratio = higher_is_better ? measured / expected : expected / measured;
    sc_check_t *c = SC_LIST_PUSH(checks);
    if (c == NULL)
        return NULL;
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", name);
    snprintf(c->metric, sizeof(c->metric), "%s", metric);
    snprintf(c->source, sizeof(c->source), "%s", source);
    c->measured = measured;
    c->expected = expected;
    c->ratio = ratio;
    c->tolerance = band->tolerance;
    c->fail_tolerance = band->fail_tolerance > 0
                            ? band->fail_tolerance
                            : 1.0 - (1.0 - band->tolerance) * (1.0 - band->tolerance);
    c->higher_is_better = higher_is_better;
    c->looks = 1;
    c->measure_s = SC_ABSENT; /* the measuring command says how long, where it knows */
    bool under;
    c->level = verdict__level(ratio, band, &under);
    if (under)
        snprintf(c->note, sizeof(c->note),
                 "better than the %s allows: it under-declares this system", source);
    return c;
}

sc_check_t *sc_verdict_add(sc_checks_t *checks, const char *name, const char *metric,
                           double measured, double expected, double tolerance,
                           bool higher_is_better, const char *source)
{
    sc_band_t band = sc_band(tolerance);
    return sc_verdict_band(checks, name, metric, measured, expected, &band, higher_is_better,
                           source);
}

/* The model's time for a case, with its expectation written into the row, and the band the
 * row is held to: the topology's where bytes decide the time, widening to
 * expect.latency_tolerance as latency does (a small message's time is launches, polling and
 * the host as much as the fabric: nccl-tests' 8-byte all-reduce on 8 NVSwitch GPUs reads from
 * ~12 to ~25 us on healthy systems, docs/REFERENCE.md §3.2). */
static double verdict__case_expect(const sc_topology_t *t, const sc_coll_t *coll, int gpus_per_node,
                                   int nodes, sc_case_row_t *row, sc_band_t *band)
{
    sc_prediction_t e;
    sc_model_collective(t, coll, (double)row->size_bytes, gpus_per_node, nodes, &e);
    row->expected_time_us = e.time_us;
    row->expected_busbw_GBps = e.busbw_GBps;
    snprintf(row->algorithm, sizeof(row->algorithm), "%s", e.algorithm);
    *band = sc_band_model(t);
    double share = e.time_us > 0 ? e.latency_us / e.time_us : 0.0;
    double lt = t->latency_tolerance > band->tolerance ? t->latency_tolerance : band->tolerance;
    double f = band->fail_tolerance > 0 ? band->fail_tolerance
                                        : 1.0 - (1.0 - band->tolerance) * (1.0 - band->tolerance);
    double lf = 1.0 - (1.0 - lt) * (1.0 - lt);
    band->tolerance += (lt - band->tolerance) * share;
    band->fail_tolerance = f + (lf > f ? lf - f : 0.0) * share;
    return e.time_us;
}

void sc_verdict_case(const sc_topology_t *t, const sc_coll_t *coll, int gpus_per_node, int nodes,
                     const char *name, sc_case_row_t *row, sc_checks_t *checks)
{
    sc_band_t band;
    double expected = verdict__case_expect(t, coll, gpus_per_node, nodes, row, &band);
    sc_verdict_note_looks(
        sc_verdict_band(checks, name, "time_us", row->time_us, expected, &band, false, "model"),
        row->looks);
}

bool sc_verdict_case_slow(const sc_topology_t *t, const sc_coll_t *coll, int gpus_per_node,
                          int nodes, const sc_case_row_t *row)
{
    sc_case_row_t copy = *row;
    sc_band_t band;
    double expected = verdict__case_expect(t, coll, gpus_per_node, nodes, &copy, &band);
    return row->time_us > 0 && sc_verdict_short(expected / row->time_us, &band);
}

/* A claim's check: at least min (or at most max), within the claim's band. */
void sc_verdict_claim(const sc_topology_t *t, const sc_claim_t *c, double measured,
                      sc_checks_t *checks)
{
    char name[192];
    snprintf(name, sizeof(name), "claim (%s line %d): %s", t->path, c->line,
             sc_claim_metric_name(c->metric));
    sc_band_t band = {c->tolerance, c->fail_tolerance, false};
    bool at_least = c->min > 0;
    sc_verdict_band(checks, name, sc_claim_metric_name(c->metric), measured,
                    at_least ? c->min : c->max, &band, at_least, "claim");
}

bool sc_verdict_claim_row(const sc_claim_t *c, const sc_case_row_t *r, int gpus_per_node, int nodes)
{
    return c->metric <= SC_CLAIM_LATENCY && c->gpus == gpus_per_node && c->nodes == nodes &&
           strcmp(r->collective, c->collective[0] ? c->collective : "allreduce") == 0 &&
           (double)r->size_bytes >= c->size * 0.999;
}

void sc_verdict_case_claims(const sc_topology_t *t, const sc_case_row_t *rows, size_t nrows,
                            int gpus_per_node, int nodes, sc_checks_t *checks)
{
    for (int k = 0; k < t->nclaims; k++) {
        const sc_claim_t *c = &t->claims[k];
        for (size_t i = 0; i < nrows; i++) {
            const sc_case_row_t *r = &rows[i];
            if (!sc_verdict_claim_row(c, r, gpus_per_node, nodes))
                continue;
            double measured = c->metric == SC_CLAIM_BUSBW   ? r->busbw_GBps
                              : c->metric == SC_CLAIM_ALGBW ? r->algbw_GBps
                                                            : r->time_us;
            sc_verdict_claim(t, c, measured, checks);
            break;
        }
    }
}

/* Within the spread the calibration itself saw between its looks, a probe agrees. */
static sc_band_t verdict__probe_band(const sc_topology_t *t)
{
    double seen = 1.0 - 1.0 / (1.0 + t->cal_probe_spread);
    return sc_band(seen > t->tolerance ? seen : t->tolerance);
}

bool sc_verdict_probe_off(const sc_topology_t *t, double us)
{
    if (t->cal_probe_us <= 0 || us <= 0)
        return false;
    sc_band_t band = verdict__probe_band(t);
    return sc_verdict_short(t->cal_probe_us / us, &band);
}

/* Half a core kept busy by other processes, on average over the run: more than the launcher's
 * daemons and a shell take, less than any job that computes. */
#define SC__QUIET_MAX_CORES 0.5

void sc_verdict_quiet(double foreign_cores, const char *host, bool probe_off, sc_checks_t *checks)
{
    if (foreign_cores < 0)
        return;
    sc_check_t *c = SC_LIST_PUSH(checks);
    if (c == NULL)
        return;
    bool busy = foreign_cores > SC__QUIET_MAX_CORES;
    *c = (sc_check_t){.measured = foreign_cores,
                      .expected = SC__QUIET_MAX_CORES,
                      .ratio = busy ? SC__QUIET_MAX_CORES / foreign_cores : 1.0,
                      .level = busy && probe_off ? SC_LEVEL_WARN : SC_LEVEL_PASS,
                      .looks = 1,
                      .disturbance = true};
    snprintf(c->name, sizeof(c->name), "the hosts were quiet (cores other processes kept busy%s%s)",
             host[0] ? ", most on " : "", host);
    snprintf(c->metric, sizeof(c->metric), "cores");
    snprintf(c->source, sizeof(c->source), "host CPU time");
    if (busy)
        snprintf(c->note, sizeof(c->note),
                 probe_off ? "other processes ran beside the run and the reference probe was off: "
                             "the machine was disturbed"
                           : "other processes ran beside the run; the reference probe saw no "
                             "difference");
}

void sc_verdict_sysfs(const char *host, sc_checks_t *checks)
{
    if (host == NULL || host[0] == '\0')
        return;
    sc_check_t *c = SC_LIST_PUSH(checks);
    if (c == NULL)
        return;
    *c = (sc_check_t){
        .measured = 0, .expected = 1, .ratio = 0, .level = SC_LEVEL_WARN, .disturbance = true};
    snprintf(c->name, sizeof(c->name),
             "every host shows its CPUs to MPI (/sys/devices/system/cpu)");
    snprintf(c->metric, sizeof(c->metric), "sysfs");
    snprintf(c->source, sizeof(c->source), "the hosts' /sys");
    snprintf(c->note, sizeof(c->note),
             "%.40s has no /sys: its ranks ran unbound, CPUs and PCIe unseen - mount sysfs "
             "(mount -t sysfs sysfs /sys)",
             host);
}

void sc_verdict_probe(const sc_topology_t *t, const char *when, double us, int looks,
                      sc_checks_t *checks)
{
    if (t->cal_probe_us <= 0 || us <= 0)
        return;
    char name[96];
    snprintf(name, sizeof(name), "reference probe %s (8 B all-reduce)", when);
    sc_band_t band = verdict__probe_band(t);
    sc_check_t *c =
        sc_verdict_band(checks, name, "time_us", us, t->cal_probe_us, &band, false, "calibration");
    if (c != NULL)
        c->looks = looks > 1 ? looks : 1;
    if (c != NULL && c->level != SC_LEVEL_PASS) {
        c->level = SC_LEVEL_WARN;
        snprintf(c->note, sizeof(c->note),
                 "slower than when calibrated%s: something else runs here, or the machine "
                 "changed",
                 c->looks > 1 ? " on every look" : "");
    }
}

int sc_verdict_exit(const sc_result_t *doc)
{
    return sc_verdict_row(sc_result_verdict(doc))->exit_code;
}
