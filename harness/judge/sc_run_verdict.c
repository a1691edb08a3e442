/* sc_run_verdict.c - what `run` adds when it has a topology: each point's expected step time,
 * speedup and efficiency from the model, the all-reduce sweep's expected busbw, the checks
 * (model and explicit claims) and the verdict. */
#include "judge/sc_run_verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/sc_model.h"
#include "judge/sc_verdict.h"

/* Sets the model's expected step time, speedup and efficiency on every point, under the keys
 * expected_* + suffix ("" for the declared topology, "_detected" for what is really there). */
static void sc__expect_curve(const sc_topology_t *t, const sc_workload_t *w, double bytes_scale,
                             double compute_scale, json_t *points, const char *suffix)
{
    double base = 0;
    int base_gpus = 0;
    size_t i;
    json_t *p;
    json_array_foreach(points, i, p)
    {
        int gpus = (int)json_integer_value(json_object_get(p, "gpus"));
        int nodes = (int)json_integer_value(json_object_get(p, "nodes"));
        sc_step_prediction_t e;
        sc_err_t ignored;
        if (sc_model_step(t, w, gpus / nodes, nodes, bytes_scale, compute_scale, &e, &ignored) !=
            SC_OK)
            continue;
        if (base_gpus == 0) {
            base = e.throughput;
            base_gpus = gpus;
        }
        double speedup = e.throughput / base;
        char key[64];
        snprintf(key, sizeof(key), "expected_step_time_ms%s", suffix);
        json_object_set_new(p, key, json_real(e.step_ms));
        snprintf(key, sizeof(key), "expected_speedup%s", suffix);
        json_object_set_new(p, key, json_real(speedup));
        snprintf(key, sizeof(key), "expected_efficiency%s", suffix);
        json_object_set_new(p, key, json_real(speedup / ((double)gpus / base_gpus)));
    }
}

/* A check per point past the first (the base is 1 against 1 by definition). */
static void sc__curve_checks(const sc_topology_t *t, const json_t *points, json_t *checks)
{
    size_t i;
    json_t *p;
    json_array_foreach(points, i, p)
    {
        json_t *expected = json_object_get(p, "expected_efficiency");
        if (i == 0 || expected == NULL)
            continue;
        long long gpus = json_integer_value(json_object_get(p, "gpus"));
        long long nodes = json_integer_value(json_object_get(p, "nodes"));
        char name[96];
        snprintf(name, sizeof(name), "scaling efficiency at %lld GPUs x %lld node%s", gpus, nodes,
                 nodes == 1 ? "" : "s");
        sc_verdict_add(checks, name, "efficiency",
                       json_real_value(json_object_get(p, "efficiency")), json_real_value(expected),
                       t->tolerance, true, "model");
    }
}

static void sc__sweep_checks(const sc_topology_t *t, int gpus_per_node, int nodes, json_t *sweep,
                             json_t *checks)
{
    size_t i;
    json_t *r;
    json_array_foreach(sweep, i, r)
    {
        sc_prediction_t e;
        double size = json_number_value(json_object_get(r, "size_bytes"));
        sc_model_collective(t, &sc_coll_allreduce, size, gpus_per_node, nodes, &e);
        json_object_set_new(r, "expected_busbw_GBps", json_real(e.busbw_GBps));
        json_object_set_new(r, "expected_time_us", json_real(e.time_us));
        json_object_set_new(r, "algorithm", json_string(e.algorithm));
        char name[96];
        snprintf(name, sizeof(name), "allreduce time at %.0f B on %d GPUs", size,
                 gpus_per_node * nodes);
        sc_verdict_add(checks, name, "time_us", json_real_value(json_object_get(r, "time_us")),
                       e.time_us, t->tolerance, false, "model");
    }
}

/* The topology's explicit claims that this run measured. */
static void sc__claim_checks(const sc_topology_t *t, const json_t *points, const json_t *sweep,
                             int sweep_ranks, json_t *checks)
{
    for (int k = 0; k < t->nclaims; k++) {
        const sc_claim_t *c = &t->claims[k];
        double measured = -1;
        size_t i;
        json_t *r;
        if (c->metric == SC_CLAIM_EFFICIENCY || c->metric == SC_CLAIM_SPEEDUP) {
            json_array_foreach(points, i, r)
            {
                long long g = json_integer_value(json_object_get(r, "gpus"));
                long long n = json_integer_value(json_object_get(r, "nodes"));
                if (g == c->gpus * c->nodes && n == c->nodes)
                    measured = json_real_value(json_object_get(
                        r, c->metric == SC_CLAIM_SPEEDUP ? "speedup" : "efficiency"));
            }
        } else if (c->metric == SC_CLAIM_BUSBW && strcmp(c->collective, "allreduce") == 0 &&
                   c->gpus * c->nodes == sweep_ranks) {
            /* the first sweep size at or above the claim's */
            for (i = 0; i < json_array_size(sweep) && measured < 0; i++) {
                r = json_array_get(sweep, i);
                if (json_number_value(json_object_get(r, "size_bytes")) >= c->size * 0.999)
                    measured = json_real_value(json_object_get(r, "busbw_GBps"));
            }
        }
        if (measured < 0)
            continue; /* this run did not measure it */
        char name[128];
        snprintf(name, sizeof(name), "claim (%s line %d): %s", t->path, c->line,
                 c->metric == SC_CLAIM_BUSBW     ? "busbw"
                 : c->metric == SC_CLAIM_SPEEDUP ? "speedup"
                                                 : "efficiency");
        bool at_least = c->min > 0;
        sc_verdict_add(checks, name, "claim", measured, at_least ? c->min : c->max, c->tolerance,
                       at_least, "claim");
    }
}

json_t *sc_run_verdict(const sc_topology_t *t, const sc_workload_t *w, double bytes_scale,
                       double compute_scale, int gpus_per_node, int nodes, json_t *points,
                       json_t *sweep)
{
    json_t *checks = json_array();
    sc__expect_curve(t, w, bytes_scale, compute_scale, points, "");
    sc__curve_checks(t, points, checks);
    if (sweep != NULL)
        sc__sweep_checks(t, gpus_per_node, nodes, sweep, checks);
    sc__claim_checks(t, points, sweep, gpus_per_node * nodes, checks);
    return checks;
}

void sc_run_expect_detected(const sc_topology_t *actual, const sc_workload_t *w, double bytes_scale,
                            double compute_scale, json_t *points)
{
    sc__expect_curve(actual, w, bytes_scale, compute_scale, points, "_detected");
}
