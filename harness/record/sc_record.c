/* sc_record.c - the records' lists, tallies and field tables. */
#include "record/sc_record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/sc_result.h"

bool sc_present(double v)
{
    return !isnan(v);
}

static const char *const record__level_names[] = {"PASS", "WARN", "FAIL"};

const char *sc_level_name(sc_level_t level)
{
    return record__level_names[level];
}

int sc_level_parse(const char *name)
{
    for (int l = 0; name != NULL && l < 3; l++)
        if (strcmp(name, record__level_names[l]) == 0)
            return l;
    return -1;
}

/* Every SC_LIST has this layout. */
typedef SC_LIST(char) record__any_list_t;

void *sc_list_push(void *list, size_t elem_size)
{
    record__any_list_t *l = list;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char *items = realloc(l->items, cap * elem_size);
        if (items == NULL)
            return NULL;
        l->items = items;
        l->cap = cap;
    }
    char *slot = l->items + l->n++ * elem_size;
    memset(slot, 0, elem_size);
    return slot;
}

void sc_list_free(void *list)
{
    record__any_list_t *l = list;
    free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
}

/* level and inconclusive from the counts */
static sc_tally_t record__tally_settle(sc_tally_t t)
{
    t.level = t.fail ? SC_LEVEL_FAIL : t.warn ? SC_LEVEL_WARN : SC_LEVEL_PASS;
    t.inconclusive = t.fail > 0 && t.disturbed;
    return t;
}

void sc_tally_add(sc_tally_t *t, const sc_check_t *c)
{
    t->checks++;
    t->pass += c->level == SC_LEVEL_PASS;
    t->warn += c->level == SC_LEVEL_WARN;
    t->fail += c->level == SC_LEVEL_FAIL;
    t->disturbed |= c->disturbance && c->level != SC_LEVEL_PASS;
    *t = record__tally_settle(*t);
}

sc_tally_t sc_tally_sum(sc_tally_t a, sc_tally_t b)
{
    sc_tally_t t = {.checks = a.checks + b.checks,
                    .pass = a.pass + b.pass,
                    .warn = a.warn + b.warn,
                    .fail = a.fail + b.fail,
                    .disturbed = a.disturbed || b.disturbed};
    return record__tally_settle(t);
}

sc_tally_t sc_checks_tally(const sc_checks_t *checks)
{
    sc_tally_t t = record__tally_settle((sc_tally_t){0});
    for (size_t i = 0; i < checks->n; i++)
        sc_tally_add(&t, &checks->items[i]);
    return t;
}

static const sc_verdict_row_t record__verdicts[] = {
#define SC__VERDICT_ROW(name, code, junit, meaning) {#name, code, junit, meaning},
    SC_VERDICT_MAP(SC__VERDICT_ROW)
#undef SC__VERDICT_ROW
};

const sc_verdict_row_t *sc_verdict_row(sc_verdict_t v)
{
    return &record__verdicts[v >= 0 && v < SC_VERDICT_COUNT ? v : SC_VERDICT_FAIL];
}

const char *sc_verdict_values_line(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int v = 0; v < SC_VERDICT_COUNT && used < len; v++) {
        int w =
            snprintf(buf + used, len - used, "%s%d %s", v ? ", " : "", v, record__verdicts[v].name);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

sc_verdict_t sc_tally_kind(sc_tally_t t)
{
    if (t.inconclusive)
        return SC_VERDICT_INCONCLUSIVE;
    return t.level == SC_LEVEL_FAIL   ? SC_VERDICT_FAIL
           : t.level == SC_LEVEL_WARN ? SC_VERDICT_WARN
                                      : SC_VERDICT_PASS;
}

const char *sc_tally_verdict(sc_tally_t t)
{
    return sc_verdict_row(sc_tally_kind(t))->name;
}

void sc_kvs_text(sc_kvs_t *kvs, const char *key, const char *text)
{
    sc_kv_t *kv = SC_LIST_PUSH(kvs);
    if (kv == NULL)
        return;
    snprintf(kv->key, sizeof(kv->key), "%s", key);
    snprintf(kv->text, sizeof(kv->text), "%s", text ? text : "");
}

const sc_kv_t *sc_kvs_find(const sc_kvs_t *kvs, const char *key)
{
    for (size_t i = 0; kvs != NULL && i < kvs->n; i++)
        if (strcmp(kvs->items[i].key, key) == 0)
            return &kvs->items[i];
    return NULL;
}

void sc_kvs_number(sc_kvs_t *kvs, const char *key, double number)
{
    sc_kv_t *kv = SC_LIST_PUSH(kvs);
    if (kv == NULL)
        return;
    snprintf(kv->key, sizeof(kv->key), "%s", key);
    kv->number = number;
    kv->is_number = true;
}

void sc_point_init(sc_point_t *p)
{
    memset(p, 0, sizeof(*p));
    p->looks = 1;
    p->measure_s = SC_ABSENT;
    p->expected_step_time_ms = p->expected_speedup = p->expected_efficiency = SC_ABSENT;
    p->expected_step_time_ms_detected = p->expected_speedup_detected =
        p->expected_efficiency_detected = SC_ABSENT;
    p->compute_tflops = p->compute_tflops_min = SC_ABSENT;
    p->compute_alone_ms = p->comm_alone_ms = p->overlap_efficiency = SC_ABSENT;
    p->slowest_compute_rank = -1;
    p->slowest_lag_ms = p->step_without_slowest_ms = SC_ABSENT;
}

void sc_scaling(sc_scale_base_t *base, double throughput, double work_per_sample, int gpus,
                double *speedup, double *efficiency)
{
    double rate = throughput * (work_per_sample > 0 ? work_per_sample : 1.0);
    if (base->gpus == 0)
        *base = (sc_scale_base_t){rate, gpus};
    double ratio = rate / base->work_rate, growth = (double)gpus / base->gpus;
    *speedup = ratio;
    *efficiency = ratio / growth;
}

void sc_localization_free(sc_localization_t *l)
{
    free(l->slow_pairs);
    free(l->suspects);
    l->slow_pairs = NULL;
    l->suspects = NULL;
    l->nslow = l->nsuspects = 0;
}

bool sc_result_incomplete(const sc_result_t *r)
{
    return strcmp(r->state, "complete") != 0;
}

bool sc_result_final(const sc_result_t *r)
{
    return strcmp(r->state, "complete") == 0 || strcmp(r->state, "failed") == 0 ||
           strcmp(r->state, "interrupted") == 0;
}

sc_case_row_t sc_case_row_foreign(bool in_place)
{
    return (sc_case_row_t){.root = -1,
                           .in_place = in_place,
                           .time_us_min = SC_ABSENT,
                           .time_us_max = SC_ABSENT,
                           .time_us_p99 = SC_ABSENT,
                           .time_us_mean = SC_ABSENT,
                           .cv = SC_ABSENT,
                           .ci95_lo_us = SC_ABSENT,
                           .ci95_hi_us = SC_ABSENT,
                           .ci95_rel = SC_ABSENT,
                           .host_time_us = SC_ABSENT,
                           .host_time_us_p99 = SC_ABSENT,
                           .expected_time_us = SC_ABSENT,
                           .expected_busbw_GBps = SC_ABSENT,
                           .slowest_look_us = SC_ABSENT};
}

void sc_result_init(sc_result_t *r, const char *command)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->command, sizeof(r->command), "%s", command);
    r->avg_busbw_GBps = SC_ABSENT;
    r->elapsed_s = SC_ABSENT;
}

sc_tally_t sc_result_tally(const sc_result_t *r)
{
    return sc_tally_sum(sc_checks_tally(&r->checks), r->unlisted);
}

sc_verdict_t sc_result_verdict(const sc_result_t *r)
{
    if (r->wrong_total > 0 || r->localization.nsuspects > 0)
        return SC_VERDICT_FAIL;
    return r->judged ? sc_tally_kind(sc_result_tally(r)) : SC_VERDICT_PASS;
}

static void record__points_free(sc_points_t *points)
{
    for (size_t i = 0; i < points->n; i++) {
        sc_point_t *p = &points->items[i];
        for (int g = 0; g < p->ngrid; g++)
            free(p->grid[g].tp_group); /* one allocation holds the three groups */
        free(p->grid);
    }
    sc_list_free(points);
}

void sc_result_free_matrix(sc_result_t *r)
{
    free(r->pair_names);
    free(r->uni);
    free(r->uni_first);
    free(r->bidir);
    free(r->latency);
    r->pair_names = NULL;
    r->uni = r->uni_first = r->bidir = r->latency = NULL;
    r->npairs_nodes = 0;
}

void sc_result_free(sc_result_t *r)
{
    for (char **a = r->argv; a && *a; a++)
        free(*a);
    free(r->argv);
    free(r->hosts);
    free(r->rank_hosts);
    sc_list_free(&r->libraries);
    sc_list_free(&r->options);
    for (int i = 0; r->rank_info && i < r->ranks; i++)
        sc_list_free(&r->rank_info[i]);
    free(r->rank_info);
    record__points_free(&r->points);
    sc_list_free(&r->sweep);
    sc_list_free(&r->cases);
    sc_result_free_matrix(r);
    sc_list_free(&r->pairs);
    sc_list_free(&r->groups);
    sc_list_free(&r->traffic);
    sc_list_free(&r->node);
    sc_soak_cycles_free(&r->soak);
    sc_localization_free(&r->localization);
    sc_list_free(&r->checks);
    sc_list_free(&r->findings);
    sc_list_free(&r->preflight);
    sc_health_free(r->health, r->nhealth);
    memset(r, 0, sizeof(*r));
}

const char *sc_case_row_implausible(const sc_case_row_t *row, bool with_size, char *why, size_t len)
{
    double t = row->time_us, alg = row->algbw_GBps, bus = row->busbw_GBps;
    if (!(t > 0 && t <= 1e13))
        snprintf(why, len, "time %.6g us: not a time a collective takes", t);
    else if (!(alg >= 0 && alg <= SC_GBPS_MAX) || !(bus >= 0 && bus <= SC_GBPS_MAX))
        snprintf(why, len, "algbw %.6g, busbw %.6g GB/s: outside [0, %g]", alg, bus, SC_GBPS_MAX);
    else if (bus > 2 * alg + 0.01)
        snprintf(why, len,
                 "busbw %.6g GB/s is more than twice algbw %.6g (no collective's "
                 "factor is)",
                 bus, alg);
    else if (with_size && row->size_bytes > 0 &&
             fabs(alg - (double)row->size_bytes / t / 1e3) >
                 0.01 + 0.02 * (double)row->size_bytes / t / 1e3)
        snprintf(why, len, "algbw %.6g GB/s is not size / time (%llu B in %.6g us: %.6g GB/s)", alg,
                 (unsigned long long)row->size_bytes, t, (double)row->size_bytes / t / 1e3);
    else
        return NULL;
    return why;
}

/* ---- field tables ---- */
#define SC__F(type, field, kind, show)                                                             \
    {                                                                                              \
#field, kind, offsetof(type, field), sizeof(((type *)0)->field), show, NULL                \
    }
#define SC__END                                                                                    \
    {                                                                                              \
        NULL, SC_FIELD_INT, 0, 0, 0, NULL                                                          \
    }
enum { CSV = SC_SHOW_CSV, HTML = SC_SHOW_HTML, BOTH = SC_SHOW_CSV | SC_SHOW_HTML };

#define C(field, kind, show) SC__F(sc_case_row_t, field, kind, show)
const sc_field_t sc_case_row_fields[] = {
    C(collective, SC_FIELD_TEXT, BOTH),
    C(size_bytes, SC_FIELD_U64, BOTH),
    C(count, SC_FIELD_U64, CSV),
    C(count_per_rank, SC_FIELD_U64, CSV),
    C(dtype, SC_FIELD_TEXT, CSV),
    C(op, SC_FIELD_TEXT, CSV),
    C(root, SC_FIELD_INT, CSV),
    C(in_place, SC_FIELD_BOOL, CSV),
    C(time_us, SC_FIELD_DOUBLE, BOTH),
    C(time_us_min, SC_FIELD_OPTIONAL, CSV),
    C(time_us_max, SC_FIELD_OPTIONAL, CSV),
    C(time_us_p99, SC_FIELD_OPTIONAL, CSV),
    C(time_us_mean, SC_FIELD_OPTIONAL, CSV),
    C(cv, SC_FIELD_OPTIONAL, CSV),
    C(ci95_lo_us, SC_FIELD_OPTIONAL, 0),
    C(ci95_hi_us, SC_FIELD_OPTIONAL, 0),
    C(ci95_rel, SC_FIELD_OPTIONAL, CSV),
    C(algbw_GBps, SC_FIELD_DOUBLE, CSV),
    C(busbw_GBps, SC_FIELD_DOUBLE, BOTH),
    C(busbw_factor, SC_FIELD_DOUBLE, CSV),
    C(checked, SC_FIELD_BOOL, CSV),
    C(wrong, SC_FIELD_U64, CSV),
    C(iterations, SC_FIELD_U64, CSV),
    {"timer", SC_FIELD_TEXT, offsetof(sc_case_row_t, timer), sizeof(((sc_case_row_t *)0)->timer), 0,
     (const char *const[]){"device", "host", "", NULL}},
    C(host_time_us, SC_FIELD_OPTIONAL, 0),
    C(host_time_us_p99, SC_FIELD_OPTIONAL, 0),
    C(expected_time_us, SC_FIELD_OPTIONAL, 0),
    C(expected_busbw_GBps, SC_FIELD_OPTIONAL, HTML),
    C(algorithm, SC_FIELD_TEXT_OPT, 0),
    C(looks, SC_FIELD_INT, CSV),
    C(slowest_look_us, SC_FIELD_OPTIONAL, 0),
    C(cycle, SC_FIELD_INT, CSV),
    C(nccl_algo, SC_FIELD_TEXT_OPT, BOTH),
    C(nccl_proto, SC_FIELD_TEXT_OPT, BOTH),
    C(nccl_channels, SC_FIELD_INT, CSV),
    C(nccl_asked, SC_FIELD_TEXT_OPT, BOTH),
    C(slowest, SC_FIELD_TEXT_OPT, BOTH),
    C(slowest_lag_us, SC_FIELD_OPTIONAL, CSV),
    C(time_without_slowest_us, SC_FIELD_OPTIONAL, CSV),
    SC__END,
};
#undef C

#define P(field, kind, show) SC__F(sc_point_t, field, kind, show)
const sc_field_t sc_point_fields[] = {
    P(gpus, SC_FIELD_INT, BOTH),
    P(nodes, SC_FIELD_INT, BOTH),
    P(dp, SC_FIELD_INT, BOTH),
    P(tp, SC_FIELD_INT, BOTH),
    P(pp, SC_FIELD_INT, BOTH),
    P(micro_batches, SC_FIELD_INT, 0),
    P(steps, SC_FIELD_INT, 0),
    P(step_time_ms, SC_FIELD_DOUBLE, BOTH),
    P(step_time_p99_ms, SC_FIELD_DOUBLE, BOTH),
    P(step_time_cv, SC_FIELD_DOUBLE, 0),
    P(throughput, SC_FIELD_DOUBLE, BOTH),
    P(speedup, SC_FIELD_DOUBLE, BOTH),
    P(expected_speedup, SC_FIELD_OPTIONAL, HTML),
    P(efficiency, SC_FIELD_DOUBLE, BOTH),
    P(expected_efficiency, SC_FIELD_OPTIONAL, HTML),
    P(comm_fraction, SC_FIELD_DOUBLE, BOTH),
    P(slowest_rank, SC_FIELD_INT, CSV),
    P(slowest_host, SC_FIELD_TEXT, BOTH),
    P(slowest_rank_mean_ms, SC_FIELD_DOUBLE, 0),
    P(slowest_lag_ms, SC_FIELD_OPTIONAL, CSV),
    P(step_without_slowest_ms, SC_FIELD_OPTIONAL, CSV),
    P(looks, SC_FIELD_INT, 0),
    P(measure_s, SC_FIELD_OPTIONAL, 0),
    P(expected_step_time_ms, SC_FIELD_OPTIONAL, 0),
    P(expected_step_time_ms_detected, SC_FIELD_OPTIONAL, 0),
    P(expected_speedup_detected, SC_FIELD_OPTIONAL, 0),
    P(expected_efficiency_detected, SC_FIELD_OPTIONAL, 0),
    P(compute_tflops, SC_FIELD_OPTIONAL, 0),
    P(compute_tflops_min, SC_FIELD_OPTIONAL, 0),
    P(slowest_compute_rank, SC_FIELD_INT, 0),
    P(slowest_compute_device, SC_FIELD_TEXT_OPT, 0),
    P(compute_alone_ms, SC_FIELD_OPTIONAL, 0),
    P(comm_alone_ms, SC_FIELD_OPTIONAL, 0),
    P(overlap_efficiency, SC_FIELD_OPTIONAL, 0),
    SC__END,
};
#undef P

#define K(field, kind, show) SC__F(sc_check_t, field, kind, show)
const sc_field_t sc_check_fields[] = {
    K(name, SC_FIELD_TEXT, HTML),
    K(metric, SC_FIELD_TEXT, HTML),
    K(measured, SC_FIELD_DOUBLE, HTML),
    K(expected, SC_FIELD_DOUBLE, HTML),
    K(ratio, SC_FIELD_DOUBLE, HTML),
    K(tolerance, SC_FIELD_DOUBLE, 0),
    K(fail_tolerance, SC_FIELD_DOUBLE, 0),
    {"verdict", SC_FIELD_LEVEL, offsetof(sc_check_t, level), sizeof(sc_level_t), HTML, NULL},
    K(source, SC_FIELD_TEXT, 0),
    K(higher_is_better, SC_FIELD_BOOL, 0),
    K(looks, SC_FIELD_INT, 0),
    K(note, SC_FIELD_TEXT_OPT, HTML),
    K(disturbance, SC_FIELD_BOOL, 0),
    K(measure_s, SC_FIELD_OPTIONAL, 0),
    SC__END,
};
#undef K

#define F(field, kind, show) SC__F(sc_finding_t, field, kind, show)
const sc_field_t sc_finding_fields[] = {
    F(severity, SC_FIELD_TEXT, HTML),   F(what, SC_FIELD_TEXT, HTML),
    F(declared, SC_FIELD_DOUBLE, HTML), F(detected, SC_FIELD_DOUBLE, HTML),
    F(host, SC_FIELD_TEXT, 0),          SC__END,
};
#undef F

#define R(field, kind, show) SC__F(sc_pair_row_t, field, kind, show)
const sc_field_t sc_pair_row_fields[] = {
    R(a, SC_FIELD_TEXT, CSV),
    R(b, SC_FIELD_TEXT, CSV),
    R(uni_ab_GBps, SC_FIELD_DOUBLE, CSV),
    R(uni_ba_GBps, SC_FIELD_DOUBLE, CSV),
    R(bidir_GBps, SC_FIELD_DOUBLE, CSV),
    R(latency_us, SC_FIELD_DOUBLE, CSV),
    R(looks, SC_FIELD_INT, CSV),
    {"verdict", SC_FIELD_LEVEL, offsetof(sc_pair_row_t, level), sizeof(sc_level_t), CSV, NULL},
    SC__END,
};
#undef R

#define R(field, kind, show) SC__F(sc_group_row_t, field, kind, show)
const sc_field_t sc_group_row_fields[] = {
    R(members, SC_FIELD_TEXT, CSV),
    R(size, SC_FIELD_INT, CSV),
    R(round, SC_FIELD_INT, CSV),
    R(busbw_GBps, SC_FIELD_DOUBLE, CSV),
    R(looks, SC_FIELD_INT, CSV),
    {"verdict", SC_FIELD_LEVEL, offsetof(sc_group_row_t, level), sizeof(sc_level_t), CSV, NULL},
    SC__END,
};
#undef R

#define R(field, kind, show) SC__F(sc_traffic_row_t, field, kind, show)
const sc_field_t sc_traffic_row_fields[] = {
    R(kind, SC_FIELD_TEXT, BOTH),
    R(group, SC_FIELD_TEXT, BOTH),
    R(coll, SC_FIELD_TEXT, BOTH),
    R(size_bytes, SC_FIELD_U64, BOTH),
    R(ranks, SC_FIELD_INT, BOTH),
    R(alone_us, SC_FIELD_OPTIONAL, BOTH),
    R(loaded_us, SC_FIELD_OPTIONAL, BOTH),
    R(alone_GBps, SC_FIELD_DOUBLE, BOTH),
    R(loaded_GBps, SC_FIELD_DOUBLE, BOTH),
    R(slowdown, SC_FIELD_DOUBLE, BOTH),
    R(vs_peers, SC_FIELD_OPTIONAL, BOTH),
    {"verdict", SC_FIELD_LEVEL, offsetof(sc_traffic_row_t, level), sizeof(sc_level_t), BOTH, NULL},
    SC__END,
};
#undef R

#define R(field, kind, show) SC__F(sc_node_row_t, field, kind, show)
const sc_field_t sc_node_row_fields[] = {
    R(host, SC_FIELD_TEXT, BOTH),
    R(kind, SC_FIELD_TEXT, BOTH),
    R(what, SC_FIELD_TEXT, BOTH),
    R(detail, SC_FIELD_TEXT, BOTH),
    R(numa, SC_FIELD_INT, BOTH),
    R(measured_GBps, SC_FIELD_OPTIONAL, BOTH),
    R(expected_GBps, SC_FIELD_OPTIONAL, BOTH),
    {"verdict", SC_FIELD_LEVEL, offsetof(sc_node_row_t, level), sizeof(sc_level_t), BOTH, NULL},
    SC__END,
};
#undef R

#define G(field, kind) SC__F(sc_compute_row_t, field, kind, 0)
const sc_field_t sc_gemm_row_fields[] = {
    G(dtype, SC_FIELD_TEXT),      G(size, SC_FIELD_INT),           G(iters, SC_FIELD_INT),
    G(seconds, SC_FIELD_DOUBLE),  G(tflops, SC_FIELD_DOUBLE),      G(device, SC_FIELD_TEXT_OPT),
    G(digest, SC_FIELD_U64),      G(check_size, SC_FIELD_INT),     G(check_sampled, SC_FIELD_INT),
    G(check_wrong, SC_FIELD_INT), G(check_worst, SC_FIELD_DOUBLE), SC__END,
};
const sc_field_t sc_spin_row_fields[] = {
    G(requested_us, SC_FIELD_DOUBLE),
    G(mean_us, SC_FIELD_DOUBLE),
    G(median_error_us, SC_FIELD_DOUBLE),
    G(worst_error_us, SC_FIELD_DOUBLE),
    G(repeats, SC_FIELD_INT),
    SC__END,
};
#undef G

#define M(field, kind) SC__F(sc_prediction_row_t, field, kind, 0)
const sc_field_t sc_prediction_row_fields[] = {
    M(collective, SC_FIELD_TEXT),   M(size_bytes, SC_FIELD_U64),
    M(gpus, SC_FIELD_INT),          M(nodes, SC_FIELD_INT),
    M(algorithm, SC_FIELD_TEXT),    M(protocol, SC_FIELD_TEXT),
    M(time_us, SC_FIELD_DOUBLE),    M(algbw_GBps, SC_FIELD_DOUBLE),
    M(busbw_GBps, SC_FIELD_DOUBLE), SC__END,
};
#undef M

#define M(field, kind) SC__F(sc_model_point_t, field, kind, 0)
const sc_field_t sc_model_point_fields[] = {
    M(gpus, SC_FIELD_INT),
    M(nodes, SC_FIELD_INT),
    M(dp, SC_FIELD_INT),
    M(tp, SC_FIELD_INT),
    M(pp, SC_FIELD_INT),
    M(compute_ms, SC_FIELD_DOUBLE),
    M(comm_ms, SC_FIELD_DOUBLE),
    M(step_time_ms, SC_FIELD_DOUBLE),
    M(throughput, SC_FIELD_DOUBLE),
    M(speedup, SC_FIELD_DOUBLE),
    M(efficiency, SC_FIELD_DOUBLE),
    SC__END,
};
#undef M

double sc_field_number(const sc_field_t *f, const void *record)
{
    const void *at = (const char *)record + f->offset;
    switch (f->kind) {
    case SC_FIELD_INT:
        return *(const int *)at;
    case SC_FIELD_U64:
        return (double)*(const uint64_t *)at;
    case SC_FIELD_I64:
        return (double)*(const long long *)at;
    case SC_FIELD_DOUBLE:
    case SC_FIELD_OPTIONAL:
        return *(const double *)at;
    case SC_FIELD_BOOL:
        return *(const bool *)at;
    case SC_FIELD_LEVEL:
        return *(const sc_level_t *)at;
    default:
        return SC_ABSENT;
    }
}

const char *sc_field_text(const sc_field_t *f, const void *record)
{
    const void *at = (const char *)record + f->offset;
    if (f->kind == SC_FIELD_LEVEL)
        return sc_level_name(*(const sc_level_t *)at);
    return f->kind == SC_FIELD_TEXT || f->kind == SC_FIELD_TEXT_OPT ? at : NULL;
}

bool sc_field_present(const sc_field_t *f, const void *record)
{
    const void *at = (const char *)record + f->offset;
    if (f->kind == SC_FIELD_OPTIONAL)
        return sc_present(*(const double *)at);
    if (f->kind == SC_FIELD_TEXT_OPT)
        return *(const char *)at != '\0';
    return true;
}

#define B(field, kind) SC__F(sc_baseline_point_t, field, kind, 0)
const sc_field_t sc_baseline_point_fields[] = {
    B(key, SC_FIELD_TEXT),
    B(metric, SC_FIELD_TEXT),
    B(higher_is_better, SC_FIELD_BOOL),
    B(median, SC_FIELD_DOUBLE),
    B(lo, SC_FIELD_DOUBLE),
    B(hi, SC_FIELD_DOUBLE),
    B(spread, SC_FIELD_DOUBLE),
    B(count, SC_FIELD_INT),
    B(runs, SC_FIELD_TEXT),
    SC__END,
};
#undef B

#define U(field, kind) SC__F(sc_baseline_run_t, field, kind, 0)
const sc_field_t sc_baseline_run_fields[] = {
    U(dir, SC_FIELD_TEXT),
    U(command, SC_FIELD_TEXT),
    U(start_utc, SC_FIELD_TEXT),
    U(version, SC_FIELD_TEXT),
    U(backend, SC_FIELD_TEXT),
    U(topology, SC_FIELD_TEXT_OPT),
    U(ranks, SC_FIELD_INT),
    U(nhosts, SC_FIELD_INT),
    U(hosts, SC_FIELD_TEXT),
    U(libraries, SC_FIELD_TEXT),
    SC__END,
};
#undef U

void sc_baseline_free(sc_baseline_t *b)
{
    sc_list_free(&b->runs);
    sc_list_free(&b->points);
    memset(b, 0, sizeof(*b));
}
