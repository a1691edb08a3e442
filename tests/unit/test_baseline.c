/* test_baseline.c - baselines: a result's figures keyed by what ran and where; a baseline's
 * median, spread, count and runs from known-good results; a new result held to it - within
 * the spread PASS, beyond it WARN, beyond twice it FAIL, faster never a finding - and the
 * whole-run check, a WARN at most, when every figure sits off together. */
#include <stdlib.h>
#include <string.h>

#include "judge/sc_baseline.h"
#include "sc_test.h"

static const uint64_t sizes[] = {1024, 65536, 1048576};

/* A coll result on 4 ranks and 2 hosts whose case times are base[i] x factor. */
static void make_coll(sc_result_t *r, const double *base, double factor)
{
    sc_result_init(r, "coll");
    snprintf(r->state, sizeof(r->state), "complete");
    r->ranks = 4;
    r->nhosts = 2;
    for (int i = 0; i < 3; i++) {
        sc_case_row_t *row = SC_LIST_PUSH(&r->cases);
        snprintf(row->collective, sizeof(row->collective), "allreduce");
        snprintf(row->dtype, sizeof(row->dtype), "float");
        snprintf(row->op, sizeof(row->op), "sum");
        row->size_bytes = sizes[i];
        row->time_us = base[i] * factor;
    }
}

static const double times[] = {10, 50, 400};

static void test_figures(void)
{
    sc_result_t r;
    make_coll(&r, times, 1.0);
    sc_point_t *p = SC_LIST_PUSH(&r.points);
    sc_point_init(p);
    p->gpus = 4, p->nodes = 2, p->dp = 4, p->tp = 1, p->pp = 1, p->step_time_ms = 12.5;
    sc_pair_row_t *pair = SC_LIST_PUSH(&r.pairs);
    snprintf(pair->a, sizeof(pair->a), "n1");
    snprintf(pair->b, sizeof(pair->b), "n2");
    pair->bidir_GBps = 20;
    pair->latency_us = 0; /* not measured: no figure */
    sc_figures_t f = {0};
    sc_err_t err;
    SC_EXPECT(sc_result_figures(&r, 3, &f, &err) == SC_OK);
    SC_EXPECT_EQ_U64(f.n, 5);
    SC_EXPECT(strcmp(f.items[0].key, "allreduce float sum 1024 B, 4 ranks on 2 hosts") == 0);
    SC_EXPECT(strcmp(f.items[0].metric, "time_us") == 0 && !f.items[0].higher_is_better);
    SC_EXPECT(strcmp(f.items[3].key, "point 4 GPUs x 2 nodes (dp 4 tp 1 pp 1)") == 0);
    SC_EXPECT(strcmp(f.items[4].metric, "bidir_GBps") == 0 && f.items[4].higher_is_better);
    SC_EXPECT(f.items[4].run == 3);
    sc_list_free(&f);
    sc_result_free(&r);
}

/* Three known-good runs at 0.9, 1.0 and 1.1 of the times; the 1 MB case only in two. */
static void build(sc_baseline_t *b)
{
    sc_result_t docs[3];
    const double factors[] = {1.0, 0.9, 1.1};
    for (int i = 0; i < 3; i++)
        make_coll(&docs[i], times, factors[i]);
    docs[2].cases.n = 2;
    const char *dirs[] = {"a", "b", "c"};
    sc_err_t err;
    SC_EXPECT(sc_baseline_build(docs, dirs, 3, 0.05, b, &err) == SC_OK);
    for (int i = 0; i < 3; i++)
        sc_result_free(&docs[i]);
}

static void test_build(void)
{
    sc_baseline_t b;
    build(&b);
    SC_EXPECT_EQ_U64(b.runs.n, 3);
    SC_EXPECT_EQ_U64(b.points.n, 3);
    SC_EXPECT(strcmp(b.runs.items[1].dir, "b") == 0 && b.runs.items[1].ranks == 4);
    const sc_baseline_point_t *p =
        sc_baseline_find(&b, "allreduce float sum 65536 B, 4 ranks on 2 hosts", "time_us");
    SC_EXPECT(p != NULL);
    if (p != NULL) {
        SC_EXPECT_NEAR(p->median, 50, 1e-9);
        SC_EXPECT_NEAR(p->lo, 45, 1e-9);
        SC_EXPECT_NEAR(p->hi, 55, 1e-9);
        SC_EXPECT_NEAR(p->spread, 0.1, 1e-9);
        SC_EXPECT(p->count == 3 && strcmp(p->runs, "all") == 0);
    }
    p = sc_baseline_find(&b, "allreduce float sum 1048576 B, 4 ranks on 2 hosts", "time_us");
    SC_EXPECT(p != NULL && p->count == 2 && strcmp(p->runs, "0 1") == 0);
    if (p != NULL)
        SC_EXPECT_NEAR(p->median, 380, 1e-9); /* (400 + 360) / 2 */
    SC_EXPECT(sc_baseline_find(&b, "allreduce float sum 1024 B, 4 ranks on 1 host", "time_us") ==
              NULL);
    sc_baseline_free(&b);
}

/* The level of each figure's check for a run at times x factor. */
static void levels(const sc_baseline_t *b, double factor, sc_level_t *out, sc_checks_t *checks)
{
    sc_result_t r;
    make_coll(&r, times, factor);
    checks->n = 0;
    SC_EXPECT_EQ_U64(sc_verdict_baseline(b, &r, checks), 3);
    SC_EXPECT_EQ_U64(checks->n, 4); /* three figures and the whole run */
    for (size_t i = 0; i < checks->n && i < 4; i++)
        out[i] = checks->items[i].level;
    sc_result_free(&r);
}

static void test_verdict(void)
{
    sc_baseline_t b;
    build(&b);
    sc_checks_t checks = {0};
    sc_level_t lv[4];
    /* spread 10 %: 1.08x slower passes, 1.15x slower WARNs, 1.3x slower FAILs (beyond 2 x 10 %) */
    levels(&b, 1.08, lv, &checks);
    SC_EXPECT(lv[0] == SC_LEVEL_PASS && lv[3] == SC_LEVEL_PASS);
    levels(&b, 1.15, lv, &checks);
    SC_EXPECT(lv[1] == SC_LEVEL_WARN);
    SC_EXPECT(strstr(checks.items[1].note, "spread") != NULL);
    SC_EXPECT(strcmp(checks.items[1].source, "baseline") == 0);
    levels(&b, 1.3, lv, &checks);
    SC_EXPECT(lv[1] == SC_LEVEL_FAIL);
    /* the whole run 3x slower: WARN at most, saying so */
    levels(&b, 3.0, lv, &checks);
    SC_EXPECT(lv[0] == SC_LEVEL_FAIL && lv[3] == SC_LEVEL_WARN);
    SC_EXPECT(strstr(checks.items[3].note, "whole run") != NULL);
    SC_EXPECT_NEAR(checks.items[3].measured, 1.0 / 3.0, 0.02);
    /* twice as fast: never a finding against a baseline */
    levels(&b, 0.5, lv, &checks);
    SC_EXPECT(lv[0] == SC_LEVEL_PASS && lv[1] == SC_LEVEL_PASS && lv[3] == SC_LEVEL_PASS);
    /* a run on other ranks matches nothing */
    sc_result_t other;
    make_coll(&other, times, 1.0);
    other.ranks = 8;
    checks.n = 0;
    SC_EXPECT_EQ_U64(sc_verdict_baseline(&b, &other, &checks), 0);
    SC_EXPECT_EQ_U64(checks.n, 0);
    sc_result_free(&other);
    sc_list_free(&checks);
    sc_baseline_free(&b);
}

/* One run: no spread, so the least tolerance is the band. */
static void test_single_run_tolerance(void)
{
    sc_result_t doc;
    make_coll(&doc, times, 1.0);
    const char *dirs[] = {"only"};
    sc_baseline_t b;
    sc_err_t err;
    SC_EXPECT(sc_baseline_build(&doc, dirs, 1, 0.05, &b, &err) == SC_OK);
    SC_EXPECT_NEAR(b.points.items[0].spread, 0, 1e-12);
    sc_checks_t checks = {0};
    sc_level_t lv[4];
    levels(&b, 1.04, lv, &checks);
    SC_EXPECT(lv[0] == SC_LEVEL_PASS);
    levels(&b, 1.07, lv, &checks);
    SC_EXPECT(lv[0] == SC_LEVEL_WARN);
    levels(&b, 1.2, lv, &checks);
    SC_EXPECT(lv[0] == SC_LEVEL_FAIL);
    sc_list_free(&checks);
    sc_baseline_free(&b);
    /* nothing measured: an input error */
    doc.cases.n = 0;
    SC_EXPECT(sc_baseline_build(&doc, dirs, 1, 0.05, &b, &err) == SC_ERR_INPUT);
    SC_EXPECT(strstr(err.msg, "no measured figure") != NULL);
    sc_result_free(&doc);
}

int main(void)
{
    test_figures();
    test_build();
    test_verdict();
    test_single_run_tolerance();
    return sc_test_done("test_baseline");
}
