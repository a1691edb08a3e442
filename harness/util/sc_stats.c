#include "sc_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int stats__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sc_stats_median_ci_index(size_t n, size_t *lo, size_t *hi)
{
    if (n == 0) {
        *lo = *hi = 0;
        return;
    }
    double half = 1.96 * sqrt((double)n) / 2.0;
    double lo_rank = floor((double)n / 2.0 - half); /* 1-based ranks */
    double hi_rank = ceil((double)n / 2.0 + half) + 1.0;
    if (lo_rank < 1.0)
        lo_rank = 1.0;
    if (hi_rank > (double)n)
        hi_rank = (double)n;
    *lo = (size_t)lo_rank - 1;
    *hi = (size_t)hi_rank - 1;
}

static double stats__median_sorted(const double *s, size_t n)
{
    return (n % 2) ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

void sc_stats_compute(double *samples, size_t n, sc_stats_t *out)
{
    memset(out, 0, sizeof(*out));
    if (n == 0)
        return;
    qsort(samples, n, sizeof(double), stats__cmp_double);
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += samples[i];
    double mean = sum / (double)n;
    double sq = 0.0;
    for (size_t i = 0; i < n; i++)
        sq += (samples[i] - mean) * (samples[i] - mean);

    out->n = n;
    out->min = samples[0];
    out->max = samples[n - 1];
    out->mean = mean;
    out->median = stats__median_sorted(samples, n);
    size_t p99_rank = (size_t)ceil(0.99 * (double)n); /* nearest rank, 1-based */
    out->p99 = samples[(p99_rank ? p99_rank : 1) - 1];
    out->cv = (n > 1 && mean > 0.0) ? sqrt(sq / (double)(n - 1)) / mean : 0.0;
    size_t lo, hi;
    sc_stats_median_ci_index(n, &lo, &hi);
    out->ci_lo = samples[lo];
    out->ci_hi = samples[hi];
    out->ci_rel = out->median > 0.0 ? (out->ci_hi - out->ci_lo) / 2.0 / out->median : 0.0;
}

double sc_stats_matrix_quantile(const double *m, const int *measured, int n, double q)
{
    if (n < 2)
        return 0.0;
    size_t count = 0;
    double *v = malloc((size_t)n * (size_t)n * sizeof(double));
    if (v == NULL)
        return 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && (measured == NULL || measured[i * n + j] > 0))
                v[count++] = m[i * n + j];
    if (count == 0) {
        free(v);
        return 0.0;
    }
    qsort(v, count, sizeof(double), stats__cmp_double);
    double at = q == 0.5 ? (count % 2 ? v[count / 2] : (v[count / 2 - 1] + v[count / 2]) / 2)
                         : v[(size_t)ceil(q * (double)(count - 1))];
    free(v);
    return at;
}

double sc_stats_matrix_median(const double *m, const int *measured, int n)
{
    return sc_stats_matrix_quantile(m, measured, n, 0.5);
}

void sc_straggler_find(const double *own, int n, sc_straggler_t *out)
{
    *out = (sc_straggler_t){.index = -1};
    double *sorted = n >= 2 ? malloc((size_t)n * sizeof(*sorted)) : NULL;
    if (sorted == NULL)
        return;
    int slowest = 0;
    for (int i = 0; i < n; i++) {
        if (!(own[i] >= 0)) { /* NaN: a rank that could not tell */
            free(sorted);
            return;
        }
        sorted[i] = own[i];
        slowest = own[i] > own[slowest] ? i : slowest;
    }
    qsort(sorted, (size_t)n, sizeof(*sorted), stats__cmp_double);
    double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    *out = (sc_straggler_t){.index = slowest,
                            .own = own[slowest],
                            .lag = own[slowest] - median,
                            .cost = own[slowest] - sorted[n - 2]};
    free(sorted);
}
