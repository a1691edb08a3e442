/* Steadiness (judge/sc_steady.c): a check a collective on its heaviest tail against the median,
 * and one on the spread between its looks; PASS up to 3 x, WARN to 10 x, FAIL beyond (the
 * defaults); rows too fast or too few to have a tail, or measured once, are not judged, and a
 * collective with none gets no check. */
#include <stdlib.h>
#include <string.h>

#include "judge/sc_digest.h"
#include "judge/sc_steady.h"
#include "util/sc_defaults.h"
#include "sc_test.h"

static sc_case_row_t row(const char *coll, uint64_t size, double median, double p99,
                         uint64_t iterations)
{
    sc_case_row_t r;
    memset(&r, 0, sizeof(r));
    strcpy(r.collective, coll);
    r.size_bytes = size;
    r.time_us = median;
    r.time_us_p99 = p99;
    r.iterations = iterations;
    return r;
}

static sc_level_t level_of(double tail)
{
    sc_topology_t t;
    memset(&t, 0, sizeof(t));
    t.steadiness_tolerance = SC_DEFAULT_STEADINESS_TOLERANCE;
    t.steadiness_fail_tolerance = SC_DEFAULT_STEADINESS_FAIL_TOLERANCE;
    sc_case_row_t rows[] = {row("allreduce", 1 << 20, 500, 500 * 1.1, 50),
                            row("allreduce", 1 << 24, 2000, 2000 * tail, 50)};
    sc_checks_t checks = {0};
    sc_verdict_steadiness(&t, rows, 2, &checks);
    SC_EXPECT(checks.n == 1);
    sc_level_t level = checks.n ? checks.items[0].level : SC_LEVEL_PASS;
    SC_EXPECT(checks.n == 0 || strstr(checks.items[0].name, "16M B") != NULL || tail < 1.1);
    free(checks.items);
    return level;
}

/* The spread between looks: a case looked at again keeps its best look; its slowest one is
 * held to the same band (a link slow now and then passes best-of-N, not this). */
static sc_level_t looks_level(double spread, int looks, double median, size_t *nchecks)
{
    sc_topology_t t;
    memset(&t, 0, sizeof(t));
    t.steadiness_tolerance = SC_DEFAULT_STEADINESS_TOLERANCE;
    t.steadiness_fail_tolerance = SC_DEFAULT_STEADINESS_FAIL_TOLERANCE;
    sc_case_row_t r = row("reducescatter", 1 << 24, median, 0, 5); /* no tail to judge */
    r.looks = looks;
    r.slowest_look_us = median * spread;
    sc_checks_t checks = {0};
    sc_verdict_steadiness(&t, &r, 1, &checks);
    *nchecks = checks.n;
    sc_level_t level = checks.n ? checks.items[0].level : SC_LEVEL_PASS;
    SC_EXPECT(checks.n == 0 || (strstr(checks.items[0].name, "looks against each other") &&
                                strstr(checks.items[0].name, "16M B")));
    SC_EXPECT(checks.n == 0 || level == SC_LEVEL_PASS ||
              strstr(checks.items[0].note, "x the kept"));
    free(checks.items);
    return level;
}

static void test_looks(void)
{
    size_t n;
    SC_EXPECT(looks_level(1.4, 2, 2000, &n) == SC_LEVEL_PASS && n == 1);
    SC_EXPECT(looks_level(5.0, 3, 2000, &n) == SC_LEVEL_WARN && n == 1);
    SC_EXPECT(looks_level(15.0, 3, 2000, &n) == SC_LEVEL_FAIL && n == 1);
    /* measured once, or in the microseconds the host decides: no check */
    looks_level(15.0, 1, 2000, &n);
    SC_EXPECT(n == 0);
    looks_level(15.0, 3, 50, &n);
    SC_EXPECT(n == 0);
}

/* A stream's digest gives the claims and steadiness checks the whole rows give: random rows of
 * two collectives (tails, looks, sizes that pass the claims' sizes more than once), held both
 * ways; the digest keeps a handful of rows however long the stream. */
static void test_digest(void)
{
    static sc_topology_t t;
    memset(&t, 0, sizeof(t));
    t.steadiness_tolerance = SC_DEFAULT_STEADINESS_TOLERANCE;
    t.steadiness_fail_tolerance = SC_DEFAULT_STEADINESS_FAIL_TOLERANCE;
    snprintf(t.path, sizeof(t.path), "claims.yaml");
    t.claims[0] = (sc_claim_t){.metric = SC_CLAIM_BUSBW,
                               .size = 1 << 20,
                               .gpus = 8,
                               .nodes = 1,
                               .min = 100,
                               .tolerance = 0.1,
                               .fail_tolerance = 0.2,
                               .line = 3};
    t.claims[1] = (sc_claim_t){.metric = SC_CLAIM_LATENCY,
                               .collective = "allgather",
                               .size = 64,
                               .gpus = 8,
                               .nodes = 1,
                               .max = 20,
                               .tolerance = 0.1,
                               .fail_tolerance = 0.2,
                               .line = 4};
    t.claims[2] = (sc_claim_t){.metric = SC_CLAIM_BUSBW,
                               .size = 1 << 20,
                               .gpus = 4,
                               .nodes = 2,
                               .min = 1,
                               .tolerance = 0.1,
                               .fail_tolerance = 0.2,
                               .line = 5};
    t.nclaims = 3;
    size_t n = 20000;
    sc_case_row_t *rows = calloc(n, sizeof(*rows));
    unsigned seed = 7;
    sc_digest_t d;
    SC_EXPECT(sc_digest_init(&d, &t, 8, 1));
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        double median = 50.0 + (double)(seed % 5000);
        rows[i] = row(seed & 1 ? "allreduce" : "allgather", (uint64_t)8 << (i % 24), median,
                      median * (1.0 + (double)((seed >> 8) % 1000) / 100.0), 50);
        rows[i].busbw_GBps = (double)((seed >> 4) % 300);
        rows[i].looks = (int)(1 + (seed >> 12) % 3);
        rows[i].slowest_look_us = median * (1.0 + (double)((seed >> 16) % 100) / 10.0);
        SC_EXPECT(sc_digest_row(&d, &rows[i]));
    }
    SC_EXPECT(d.rows.n <= 16);
    sc_checks_t whole = {0}, digested = {0};
    sc_verdict_case_claims(&t, rows, n, 8, 1, &whole);
    sc_verdict_steadiness(&t, rows, n, &whole);
    sc_digest_finish(&d, &digested);
    SC_EXPECT(whole.n == digested.n && whole.n == 6); /* 2 claims, 2 x (tail, looks) */
    for (size_t i = 0; i < whole.n && i < digested.n; i++) {
        SC_EXPECT(strcmp(whole.items[i].name, digested.items[i].name) == 0);
        SC_EXPECT(whole.items[i].measured == digested.items[i].measured &&
                  whole.items[i].level == digested.items[i].level);
    }
    free(whole.items);
    free(digested.items);
    free(rows);
}

int main(void)
{
    SC_EXPECT(level_of(1.5) == SC_LEVEL_PASS);
    SC_EXPECT(level_of(2.9) == SC_LEVEL_PASS);
    SC_EXPECT(level_of(5.0) == SC_LEVEL_WARN);
    SC_EXPECT(level_of(12.0) == SC_LEVEL_FAIL);

    /* not judged: under 100 us (the host's jitter), fewer than 20 iterations, no p99 */
    sc_topology_t t;
    memset(&t, 0, sizeof(t));
    t.steadiness_tolerance = SC_DEFAULT_STEADINESS_TOLERANCE;
    t.steadiness_fail_tolerance = SC_DEFAULT_STEADINESS_FAIL_TOLERANCE;
    sc_case_row_t rows[] = {
        row("allreduce", 8, 20, 2000, 1000), row("allgather", 1 << 24, 900, 9000, 5),
        row("alltoall", 1 << 24, 900, 0, 100), row("broadcast", 1 << 24, 900, 4500, 0)};
    sc_checks_t checks = {0};
    sc_verdict_steadiness(&t, rows, 4, &checks);
    /* only broadcast: a foreign log (0 iterations: not said) with a p99 */
    SC_EXPECT(checks.n == 1 && strstr(checks.items[0].name, "broadcast") != NULL &&
              checks.items[0].level == SC_LEVEL_WARN);
    free(checks.items);
    test_looks();
    test_digest();
    return sc_test_done("test_steady");
}
