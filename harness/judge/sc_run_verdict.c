/* sc_run_verdict.c - what `run` adds when it has a topology: each point's expected step time,
 * speedup and efficiency from the model, the all-reduce sweep's expected busbw, the checks
 * (model and explicit claims) and the verdict. */
#include "judge/sc_run_verdict.h"

#include <stdio.h>
#include <string.h>

#include "judge/sc_verdict.h"
#include "model/sc_model.h"

typedef struct {
    double *step_ms, *speedup, *efficiency;
} run_verdict__expected_t;

/* The model's expected step time, speedup and efficiency of every point, into the fields
 * that pick(p) names (the declared topology's, or the detected one's). */
static void run_verdict__expect_curve(const sc_topology_t *t, const sc_run_shape_t *s,
                                      sc_points_t *points,
                                      run_verdict__expected_t (*pick)(sc_point_t *))
{
    sc_scale_base_t base = {0, 0};
    for (size_t i = 0; i < points->n; i++) {
        sc_point_t *p = &points->items[i];
        sc_step_prediction_t e;
        sc_err_t ignored;
        if (sc_model_step_as_run(t, s->w, p->gpus / p->nodes, p->nodes, s->bytes_scale,
                                 s->compute_scale, s->products, &e, &ignored) != SC_OK)
            continue;
        run_verdict__expected_t out = pick(p);
        *out.step_ms = e.step_ms;
        sc_scaling(&base, e.throughput, e.flops_per_sample, p->gpus, out.speedup, out.efficiency);
    }
}

static run_verdict__expected_t run_verdict__declared(sc_point_t *p)
{
    return (run_verdict__expected_t){&p->expected_step_time_ms, &p->expected_speedup,
                                     &p->expected_efficiency};
}

static run_verdict__expected_t run_verdict__detected(sc_point_t *p)
{
    return (run_verdict__expected_t){&p->expected_step_time_ms_detected,
                                     &p->expected_speedup_detected,
                                     &p->expected_efficiency_detected};
}

/* A check per point past the first (the base is 1 against 1 by definition). */
static void run_verdict__curve_checks(const sc_topology_t *t, const sc_points_t *points,
                                      sc_checks_t *checks)
{
    sc_band_t band = sc_band_model(t);
    for (size_t i = 1; i < points->n; i++) {
        const sc_point_t *p = &points->items[i];
        if (!sc_present(p->expected_efficiency))
            continue;
        char name[96];
        snprintf(name, sizeof(name), "scaling efficiency at %d GPUs x %d node%s", p->gpus, p->nodes,
                 p->nodes == 1 ? "" : "s");
        sc_check_t *c = sc_verdict_band(checks, name, "efficiency", p->efficiency,
                                        p->expected_efficiency, &band, true, "model");
        sc_verdict_note_looks(c, p->looks);
        if (c != NULL)
            c->measure_s = p->measure_s;
    }
}

void sc_run_points_slow(const sc_topology_t *t, const sc_run_shape_t *shape, sc_points_t *points,
                        unsigned char *again)
{
    run_verdict__expect_curve(t, shape, points, run_verdict__declared);
    sc_band_t band = sc_band_model(t);
    for (size_t i = 0; i < points->n; i++) {
        const sc_point_t *p = &points->items[i];
        again[i] = i > 0 && sc_present(p->expected_efficiency) &&
                   sc_verdict_short(p->efficiency / p->expected_efficiency, &band);
    }
}

static void run_verdict__sweep_checks(const sc_topology_t *t, const sc_run_shape_t *s,
                                      sc_case_rows_t *sweep, sc_checks_t *checks)
{
    for (size_t i = 0; i < sweep->n; i++) {
        sc_case_row_t *r = &sweep->items[i];
        char name[96];
        snprintf(name, sizeof(name), "allreduce time at %llu B on %d GPUs",
                 (unsigned long long)r->size_bytes, s->gpus_per_node * s->nodes);
        sc_verdict_case(t, &sc_coll_allreduce, s->gpus_per_node, s->nodes, name, r, checks);
    }
}

/* The claims on the scaling curve (efficiency, speedup) that this run measured. */
static void run_verdict__curve_claims(const sc_topology_t *t, const sc_points_t *points,
                                      sc_checks_t *checks)
{
    for (int k = 0; k < t->nclaims; k++) {
        const sc_claim_t *c = &t->claims[k];
        if (c->metric != SC_CLAIM_EFFICIENCY && c->metric != SC_CLAIM_SPEEDUP)
            continue;
        for (size_t i = 0; i < points->n; i++) {
            const sc_point_t *p = &points->items[i];
            if (p->gpus == c->gpus * c->nodes && p->nodes == c->nodes)
                sc_verdict_claim(t, c, c->metric == SC_CLAIM_SPEEDUP ? p->speedup : p->efficiency,
                                 checks);
        }
    }
}

void sc_run_verdict(const sc_topology_t *t, const sc_run_shape_t *shape, sc_points_t *points,
                    sc_case_rows_t *sweep, sc_checks_t *checks)
{
    run_verdict__expect_curve(t, shape, points, run_verdict__declared);
    run_verdict__curve_checks(t, points, checks);
    run_verdict__sweep_checks(t, shape, sweep, checks);
    run_verdict__curve_claims(t, points, checks);
    sc_verdict_case_claims(t, sweep->items, sweep->n, shape->gpus_per_node, shape->nodes, checks);
}

void sc_run_expect_detected(const sc_topology_t *actual, const sc_run_shape_t *shape,
                            sc_points_t *points)
{
    run_verdict__expect_curve(actual, shape, points, run_verdict__detected);
}
