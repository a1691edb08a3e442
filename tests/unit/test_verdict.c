/* The verdict rules (judge/sc_verdict.c): a ratio against its band gives PASS, WARN or FAIL,
 * times are inverted, a two-sided band makes "better than the model allows" a WARN of its own,
 * a wide tolerance keeps a FAIL band; and the one exit code every command takes from its
 * document (sc_verdict_exit): a failed check, wrong data or a named suspect is 1, FAILs measured
 * on a disturbed machine are 5, an unjudged document's checks do not count. */
#include <stdlib.h>
#include <string.h>

#include "judge/sc_verdict.h"
#include "sc_test.h"

static sc_level_t level(double measured, double expected, const sc_band_t *band, bool higher)
{
    sc_checks_t checks = {0};
    const sc_check_t *c =
        sc_verdict_band(&checks, "figure", "x", measured, expected, band, higher, "model");
    sc_level_t l = c != NULL ? c->level : SC_LEVEL_FAIL;
    SC_EXPECT(c != NULL && checks.n == 1);
    free(checks.items);
    return l;
}

static void bands(void)
{
    sc_band_t b = sc_band(0.2); /* PASS from 0.8, FAIL below 0.8 x 0.8 (one tolerance further) */
    SC_EXPECT(b.fail_tolerance == 0 && !b.two_sided);
    SC_EXPECT(level(85, 100, &b, true) == SC_LEVEL_PASS);
    SC_EXPECT(level(70, 100, &b, true) == SC_LEVEL_WARN);
    SC_EXPECT(level(65, 100, &b, true) == SC_LEVEL_WARN);
    SC_EXPECT(level(63, 100, &b, true) == SC_LEVEL_FAIL);
    /* times: lower is better, the ratio is expected / measured */
    SC_EXPECT(level(110, 100, &b, false) == SC_LEVEL_PASS);
    SC_EXPECT(level(160, 100, &b, false) == SC_LEVEL_FAIL);
    /* one-sided: far better than expected is still a PASS */
    SC_EXPECT(level(300, 100, &b, true) == SC_LEVEL_PASS);
    /* two-sided: above 1 / (1 - t) the reference is too low - a WARN, not a PASS */
    b.two_sided = true;
    SC_EXPECT(level(120, 100, &b, true) == SC_LEVEL_PASS);
    SC_EXPECT(level(130, 100, &b, true) == SC_LEVEL_WARN);
    SC_EXPECT(!sc_verdict_short(1.3, &b) && sc_verdict_short(0.7, &b));
    /* a wide tolerance keeps a FAIL band */
    sc_band_t wide = sc_band(0.9);
    SC_EXPECT(level(11, 100, &wide, true) == SC_LEVEL_PASS);
    SC_EXPECT(level(5, 100, &wide, true) == SC_LEVEL_WARN);
    SC_EXPECT(level(0.5, 100, &wide, true) == SC_LEVEL_FAIL);
}

static sc_check_t check(sc_level_t l, bool disturbance)
{
    sc_check_t c;
    memset(&c, 0, sizeof(c));
    strcpy(c.name, "c");
    c.level = l;
    c.disturbance = disturbance;
    return c;
}

static int exit_of(sc_check_t *items, size_t n, bool judged, uint64_t wrong, int suspects)
{
    sc_result_t doc;
    sc_result_init(&doc, "run");
    doc.checks = (sc_checks_t){items, n, n};
    doc.judged = judged;
    doc.wrong_total = wrong;
    doc.localization.nsuspects = suspects;
    int code = sc_verdict_exit(&doc);
    doc.checks = (sc_checks_t){0};
    doc.localization.nsuspects = 0;
    sc_result_free(&doc);
    return code;
}

static void exits(void)
{
    sc_check_t pass[] = {check(SC_LEVEL_PASS, false), check(SC_LEVEL_WARN, false)};
    sc_check_t fail[] = {check(SC_LEVEL_PASS, false), check(SC_LEVEL_FAIL, false)};
    sc_check_t disturbed[] = {check(SC_LEVEL_FAIL, false), check(SC_LEVEL_FAIL, true)};
    sc_check_t quiet[] = {check(SC_LEVEL_FAIL, false), check(SC_LEVEL_PASS, true)};
    SC_EXPECT(exit_of(pass, 2, true, 0, 0) == 0);
    SC_EXPECT(exit_of(fail, 2, true, 0, 0) == 1);
    SC_EXPECT(exit_of(fail, 2, false, 0, 0) == 0); /* not judged: its checks say nothing */
    SC_EXPECT(exit_of(pass, 2, true, 3, 0) == 1);  /* wrong data fail whatever the checks */
    SC_EXPECT(exit_of(pass, 2, false, 3, 0) == 1);
    SC_EXPECT(exit_of(pass, 2, true, 0, 1) == 1); /* a suspect named (pairs) */
    SC_EXPECT(exit_of(disturbed, 2, true, 0, 0) == SC_EXIT_INCONCLUSIVE);
    SC_EXPECT(exit_of(disturbed, 2, true, 1, 0) == 1); /* wrong data are no disturbance */
    SC_EXPECT(exit_of(quiet, 2, true, 0, 0) == 1);     /* the machine was quiet */
    SC_EXPECT(exit_of(NULL, 0, true, 0, 0) == 0);
}

int main(void)
{
    bands();
    exits();
    return sc_test_done("test_verdict");
}
