/* Statistics of per-iteration times: median, percentiles, CV and the median's 95 % CI. */
#include "sc_test.h"
#include "util/sc_stats.h"

int main(void)
{
    double a[] = {5, 1, 4, 2, 3};
    sc_stats_t st;
    sc_stats_compute(a, 5, &st);
    SC_EXPECT_NEAR(st.median, 3, 0);
    SC_EXPECT_NEAR(st.min, 1, 0);
    SC_EXPECT_NEAR(st.max, 5, 0);
    SC_EXPECT_NEAR(st.mean, 3, 1e-12);
    SC_EXPECT_NEAR(st.p99, 5, 0);
    SC_EXPECT_NEAR(st.cv, 1.5811388300841898 / 3.0, 1e-12); /* sample stddev / mean */

    double even[] = {4, 1, 3, 2};
    sc_stats_compute(even, 4, &st);
    SC_EXPECT_NEAR(st.median, 2.5, 0);

    /* 1..1000: p99 is the 990th value; the CI brackets the median and is narrow. */
    double big[1000];
    for (int i = 0; i < 1000; i++)
        big[i] = 1000 - i;
    sc_stats_compute(big, 1000, &st);
    SC_EXPECT_NEAR(st.p99, 990, 0);
    SC_EXPECT_NEAR(st.median, 500.5, 0);
    SC_EXPECT(st.ci_lo <= st.median && st.median <= st.ci_hi);
    SC_EXPECT_NEAR(st.ci_lo, 469, 1); /* n/2 - 1.96 sqrt(n)/2 = 469.0 */
    SC_EXPECT_NEAR(st.ci_hi, 532, 1);
    SC_EXPECT(st.ci_rel > 0.05 && st.ci_rel < 0.07);

    /* Identical samples: zero spread, CI of zero width. */
    double flat[50];
    for (int i = 0; i < 50; i++)
        flat[i] = 7.0;
    sc_stats_compute(flat, 50, &st);
    SC_EXPECT_NEAR(st.cv, 0, 0);
    SC_EXPECT_NEAR(st.ci_rel, 0, 0);

    /* One sample and none. */
    double one[] = {9};
    sc_stats_compute(one, 1, &st);
    SC_EXPECT_NEAR(st.median, 9, 0);
    SC_EXPECT_NEAR(st.cv, 0, 0);
    sc_stats_compute(NULL, 0, &st);
    SC_EXPECT(st.n == 0 && st.median == 0);
    return sc_test_done("test_stats");
}
