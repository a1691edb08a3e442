/* sc_numtext.h - numbers as text, fast: a fleet's result is millions of rows of a dozen figures,
 * and printf's exact decimal conversion (multi-precision arithmetic per figure) was most of the
 * time `judge` took to write one. */
#ifndef SC_NUMTEXT_H
#define SC_NUMTEXT_H

#include <stddef.h>

/* src into dst (size bytes, cut short and always terminated): snprintf(dst, size, "%s", src)
 * without the format machinery, for the fields of a million rows read from a log. */
void sc_text_copy(char *dst, size_t size, const char *src);

/* strtod(s, end) for a whole string: a plain decimal of up to 15 digits ("-12.34", as logs
 * write figures) read exactly without strtod's multi-precision arithmetic, anything else by
 * strtod. */
double sc_numtext_parse(const char *s, char **end);

/* v in decimal into buf (at least 24 bytes); its length. */
int sc_numtext_int(long long v, char *buf);

/* x as printf's "%.15g" writes it, into buf (at least 32 bytes); its length. Figures from 1e-24
 * to 1e15 are converted in 64-bit-mantissa arithmetic: the 15th digit may differ from printf's
 * by one where x lies within a few 10^-4 of a half-unit of it (the text still reads back within
 * 10^-14 of x, in the same notation); others go to snprintf. */
int sc_numtext_g15(double x, char *buf);
/* x as printf's "%.*g" writes it with precision 1..15 (sc_numtext_g15's figures, fewer digits:
 * the CSV's "%.6g"). */
int sc_numtext_g(double x, int precision, char *buf);

#endif
