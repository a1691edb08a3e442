/* Figures to text without printf (util/sc_numtext.h): the same text as "%.15g" but for a rare
 * last digit, which still reads back within 10^-14; whole numbers, signs, the edges of the
 * range written without an exponent, and what falls outside it. */
#include <stdlib.h>
#include <string.h>

#include "sc_test.h"
#include "util/sc_numtext.h"

static void expect_g15(double x, const char *want)
{
    char got[32];
    int len = sc_numtext_g15(x, got);
    SC_EXPECT(strcmp(got, want) == 0 && len == (int)strlen(want));
    if (strcmp(got, want) != 0)
        fprintf(stderr, "  %.17g: got '%s', want '%s'\n", x, got, want);
}

/* A figure from 1e-26 to 1e14, either sign; *seed moved on. */
static double random_figure(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    double mant = (double)(*seed % 1000000007u) / 1000000007.0 + 0.1;
    *seed = *seed * 1103515245u + 12345u;
    return mant * pow(10.0, (double)((int)(*seed % 40u) - 26)) * ((*seed >> 20) & 1 ? -1 : 1);
}

/* Random figures over the whole range %g writes without an exponent, and beyond. */
static void random_figures(void)
{
    unsigned seed = 12345;
    int differ = 0, n = 200000;
    for (int i = 0; i < n; i++) {
        double x = random_figure(&seed);
        char got[32], want[32];
        sc_numtext_g15(x, got);
        snprintf(want, sizeof(want), "%.15g", x);
        if (strcmp(got, want) != 0) {
            differ++;
            double back = strtod(got, NULL);
            SC_EXPECT(fabs(back - x) <= fabs(x) * 1e-14);
            /* never the notation: an exponent exactly where printf writes one */
            SC_EXPECT((strchr(got, 'e') == NULL) == (strchr(want, 'e') == NULL));
        }
    }
    SC_EXPECT(differ * 1000 < n); /* under one in a thousand */
    printf("numtext: %d of %d figures differ from printf in the last digit\n", differ, n);
}

/* "%.6g" (the CSV's) and other precisions: exponent on both sides, whole numbers past the
 * precision, rounding that carries into a new digit. */
static void expect_g(double x, int precision, const char *want)
{
    char got[32];
    int len = sc_numtext_g(x, precision, got);
    SC_EXPECT(strcmp(got, want) == 0 && len == (int)strlen(want));
    if (strcmp(got, want) != 0)
        fprintf(stderr, "  %.17g (%%.%dg): got '%s', want '%s'\n", x, precision, got, want);
}

static void random_precisions(void)
{
    unsigned seed = 777;
    int differ = 0, n = 200000;
    for (int i = 0; i < n; i++) {
        double x = random_figure(&seed);
        int precision = 1 + (int)(seed >> 24) % 14; /* 1..14 */
        if (i % 7 == 0)
            x = floor(x * 1000.0); /* whole numbers, wider than some precisions */
        char got[32], want[32];
        sc_numtext_g(x, precision, got);
        snprintf(want, sizeof(want), "%.*g", precision, x);
        if (strcmp(got, want) != 0) {
            differ++;
            SC_EXPECT(fabs(strtod(got, NULL) - x) <= fabs(x) * 1e-14 * pow(10, 15 - precision));
            SC_EXPECT((strchr(got, 'e') == NULL) == (strchr(want, 'e') == NULL));
        }
    }
    SC_EXPECT(differ * 1000 < n);
    printf("numtext: %d of %d figures at precisions 1-14 differ from printf\n", differ, n);
}

/* Decimal text read back: the fast path gives strtod's double exactly, whole-string only. */
static void parse_figures(void)
{
    unsigned seed = 4242;
    int wrong = 0;
    for (int i = 0; i < 200000; i++) {
        seed = seed * 1103515245u + 12345u;
        char text[40];
        unsigned long long m = ((unsigned long long)seed << 20) % 1000000000000000ULL;
        int len = snprintf(text, sizeof(text), "%s%llu", seed & 1 ? "-" : "", m >> (seed % 40u));
        int point = (int)(seed >> 8) % (len + 1); /* a point anywhere, or none */
        if (point > 0 && point < len && text[point - 1] != '-') {
            memmove(text + point + 1, text + point, (size_t)(len - point + 1));
            text[point] = '.';
        }
        char *end1, *end2;
        double a = sc_numtext_parse(text, &end1), b = strtod(text, &end2);
        wrong += memcmp(&a, &b, sizeof(a)) != 0 || end1 - text != end2 - text;
    }
    SC_EXPECT(wrong == 0);
    const char *odd[] = {"1e3",   "+4", " 5", "0x10", ".5", "7.", "-0", "12345678901234567.5",
                         "1.2.3", "",   "-",  "inf"};
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        char *end1, *end2;
        double a = sc_numtext_parse(odd[i], &end1), b = strtod(odd[i], &end2);
        SC_EXPECT(memcmp(&a, &b, sizeof(a)) == 0 && end1 - odd[i] == end2 - odd[i]);
        if (end1 - odd[i] != end2 - odd[i])
            fprintf(stderr, "  parse '%s': ends at %td, strtod at %td\n", odd[i], end1 - odd[i],
                    end2 - odd[i]);
    }
}

int main(void)
{
    parse_figures();
    expect_g(1234567.0, 6, "1.23457e+06");
    expect_g(123456.0, 6, "123456");
    expect_g(999999.5, 6, "1e+06");
    expect_g(0.000123456789, 6, "0.000123457");
    expect_g(0.0000123456789, 6, "1.23457e-05");
    expect_g(-42.5, 6, "-42.5");
    expect_g(1.5e14, 6, "1.5e+14");
    expect_g(3.14159, 1, "3");
    expect_g(0.5, 6, "0.5");
    expect_g(2e-30, 6, "2e-30");
    random_precisions();
    expect_g15(0.0, "0");
    expect_g15(-0.0, "-0");
    expect_g15(12.0, "12");
    expect_g15(-7.0, "-7");
    expect_g15(12.5, "12.5");
    expect_g15(15.0019156214367, "15.0019156214367");
    expect_g15(0.1, "0.1");
    expect_g15(1.0 / 3.0, "0.333333333333333");
    expect_g15(2.0 / 3.0, "0.666666666666667");
    expect_g15(0.00012345, "0.00012345");
    expect_g15(0.0001, "0.0001");
    expect_g15(0.000099999, "9.9999e-05");
    expect_g15(-1.5e-7, "-1.5e-07");
    expect_g15(2e-20, "2e-20");
    expect_g15(1.234567890123456e-12, "1.23456789012346e-12");
    expect_g15(123456789012345.6, "123456789012346");
    expect_g15(999999999999999.9, "1e+15");
    expect_g15(1e15, "1e+15");
    expect_g15(1e300, "1e+300");
    expect_g15(5e-324, "4.94065645841247e-324");
    expect_g15(NAN, "nan");
    expect_g15(-INFINITY, "-inf");
    expect_g15(99.99999999999999, "100");
    expect_g15(0.30000000000000004, "0.3");
    char buf[32];
    sc_numtext_int(-9223372036854775807LL - 1, buf);
    SC_EXPECT(strcmp(buf, "-9223372036854775808") == 0);
    sc_numtext_int(0, buf);
    SC_EXPECT(strcmp(buf, "0") == 0);
    random_figures();
    return sc_test_done("numtext");
}
