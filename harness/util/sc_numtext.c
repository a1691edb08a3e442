/* sc_numtext.c - integers and "%.15g" figures to text without printf (sc_numtext.h). */
#include "util/sc_numtext.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_text_copy(char *dst, size_t size, const char *src)
{
    if (size == 0)
        return;
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* "-12.345": up to 15 digits and a point, as a log's figures are written, read without strtod's
 * multi-precision arithmetic: both the digits and 10^k (k <= 22) are exact in a double, so one
 * division rounds the quotient as strtod does (Clinger's fast path). False: anything else. */
static bool numtext__plain_decimal(const char *s, double *v)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    bool negative = *s == '-';
    s += negative;
    unsigned long long m = 0;
    int digits = 0, fraction = -1; /* digits after the point; -1: no point yet */
    for (; *s != '\0'; s++) {
        if (*s == '.' && fraction < 0) {
            fraction = 0;
            continue;
        }
        if (*s < '0' || *s > '9' || ++digits > 15)
            return false;
        m = m * 10 + (unsigned long long)(*s - '0');
        fraction += fraction >= 0;
    }
    if (digits == 0)
        return false;
    double x = (double)m / pow10[fraction > 0 ? fraction : 0];
    *v = negative ? -x : x;
    return true;
}

double sc_numtext_parse(const char *s, char **end)
{
    double v;
    if (numtext__plain_decimal(s, &v)) {
        *end = (char *)s + strlen(s);
        return v;
    }
    return strtod(s, end);
}

int sc_numtext_int(long long v, char *buf)
{
    char digits[24];
    int n = 0, len = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (v < 0)
        buf[len++] = '-';
    while (n > 0)
        buf[len++] = digits[--n];
    buf[len] = '\0';
    return len;
}

/* 10^k, k = 0..19: exact in a long double (5^19 < 2^64). */
static long double numtext__pow10(int k)
{
    static const long double p[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                    1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                    1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L};
    return p[k];
}

/* x * 10^k for k = -14..38 (two exact factors: one rounding more past 10^19). */
static long double numtext__scale(double x, int k)
{
    long double v = (long double)x;
    if (k < 0)
        return v / numtext__pow10(-k);
    if (k > 19) {
        v *= numtext__pow10(19);
        k -= 19;
    }
    return v * numtext__pow10(k);
}

/* floor(log10(x)) for x in [1e-24, 1e15), from its binary exponent and one comparison (the
 * digits below correct a step either way): no log10, for a million rows of a dozen figures. */
static int numtext__exponent(double x)
{
    static const double pow10[] = {1e-24, 1e-23, 1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17,
                                   1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9,
                                   1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,
                                   1e0,   1e1,   1e2,   1e3,   1e4,   1e5,   1e6,   1e7,
                                   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,  1e14,  1e15};
    int e2;
    frexp(x, &e2); /* x in [2^(e2-1), 2^e2) */
    int e = (int)floor((e2 - 1) * 0.30102999566398120);
    if (e < -24 || e > 14)
        return e;
    return x >= pow10[e + 1 + 24] ? e + 1 : e;
}

/* v >= 0 rounded to the nearest whole number (half up). */
static unsigned long long numtext__round(long double v)
{
    return (unsigned long long)(v + 0.5L);
}

/* x's `precision` significant digits as an integer in [10^(p-1), 10^p), and its decimal
 * exponent; false when the exponent (after rounding) leaves [-24, 14]. */
static bool numtext__digits(double x, int precision, unsigned long long *m, int *e)
{
    unsigned long long least = (unsigned long long)numtext__pow10(precision - 1);
    *e = numtext__exponent(x);
    if (*e < -24 || *e > 14)
        return false;
    *m = numtext__round(numtext__scale(x, precision - 1 - *e));
    if (*m >= least * 10) { /* the exponent a hair low, or rounding carried into one more digit */
        *m = (*m + 5) / 10;
        ++*e;
    } else if (*m < least) { /* the exponent a hair high */
        --*e;
        if (*e < -24)
            return false;
        *m = numtext__round(numtext__scale(x, precision - 1 - *e));
    }
    return *e >= -24 && *e <= 14 && *m >= least && *m < least * 10;
}

/* digits[0..last] with the point after digits[point] (point < 0: "0." and -point-1 zeros first). */
static int numtext__fixed(const char *digits, int last, int point, char *buf)
{
    int len = 0;
    if (point < 0) {
        buf[len++] = '0';
        buf[len++] = '.';
        for (int z = -1; z > point; z--)
            buf[len++] = '0';
    }
    for (int i = 0; i <= last; i++) {
        buf[len++] = digits[i];
        if (i == point && i < last)
            buf[len++] = '.';
    }
    return len;
}

/* "e-05", "e+07": printf's exponent, two digits at least (|e| <= 24 here). */
static int numtext__exp(int e, char *buf)
{
    buf[0] = 'e';
    buf[1] = e < 0 ? '-' : '+';
    e = e < 0 ? -e : e;
    buf[2] = (char)('0' + e / 10);
    buf[3] = (char)('0' + e % 10);
    return 4;
}

int sc_numtext_g(double x, int precision, char *buf)
{
    precision = precision < 1 ? 1 : precision > 15 ? 15 : precision;
    double a = fabs(x);
    if (x == 0) {
        int len = 0;
        if (signbit(x))
            buf[len++] = '-';
        buf[len++] = '0';
        buf[len] = '\0';
        return len;
    }
    if (!isfinite(x) || a < 1e-24 || a >= 1e15)
        return snprintf(buf, 32, "%.*g", precision, x);
    if (a == floor(a) && a < (double)numtext__pow10(precision)) /* whole, %g writes it whole */
        return sc_numtext_int((long long)x, buf);
    unsigned long long m;
    int e;
    if (!numtext__digits(a, precision, &m, &e))
        return snprintf(buf, 32, "%.*g", precision, x);
    char digits[16] = {0};
    for (int i = precision - 1; i >= 0; i--, m /= 10)
        digits[i] = (char)('0' + m % 10);
    bool fixed = e >= -4 && e < precision; /* %g's choice of notation */
    int last = precision - 1; /* %g drops trailing zeros, and a point with nothing after it */
    while (last > 0 && digits[last] == '0' && (!fixed || last > e))
        last--;
    int len = 0;
    if (x < 0)
        buf[len++] = '-';
    if (fixed)
        len += numtext__fixed(digits, last, e, buf + len);
    else {
        len += numtext__fixed(digits, last, 0, buf + len);
        len += numtext__exp(e, buf + len);
    }
    buf[len] = '\0';
    return len;
}

int sc_numtext_g15(double x, char *buf)
{
    return sc_numtext_g(x, 15, buf);
}
