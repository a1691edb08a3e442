/* Steadiness (judge/sc_steady.c): a check a collective on its heaviest tail against the median,
 * and one on the spread between its looks; PASS up to 3 x, WARN to 10 x, FAIL beyond (the
 * defaults); rows too fast or too few to have a tail, or measured once, are not judged, and a
 * collective with none gets no check. */
#include <stdlib.h>
#include <string.h>

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
    return sc_test_done("test_steady");
}
