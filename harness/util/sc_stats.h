/* sc_stats.h - summary statistics of per-iteration times. */
#ifndef SC_STATS_H
#define SC_STATS_H

#include <stddef.h>

typedef struct {
    size_t n;      /* samples summarised */
    double median; /* same unit as the samples */
    double min;
    double max;
    double mean;
    double p99;   /* nearest-rank 99th percentile */
    double cv;    /* coefficient of variation: stddev / mean (0 when n < 2 or mean == 0) */
    double ci_lo; /* 95 % confidence interval of the median (order-statistic method) */
    double ci_hi;
    double ci_rel; /* (ci_hi - ci_lo) / 2 / median: relative half-width; 0 when median == 0 */
} sc_stats_t;

/* Summarises samples[0..n). The array is sorted in place. n == 0 gives all zeros. */
void sc_stats_compute(double *samples, size_t n, sc_stats_t *out);

/* Indices (0-based, into a sorted array of n samples) bounding the 95 % confidence interval of
 * the median: the binomial order statistics n/2 -+ 1.96 sqrt(n)/2, clamped to [0, n-1]. */
void sc_stats_median_ci_index(size_t n, size_t *lo, size_t *hi);

/* Median of the off-diagonal entries of an n x n matrix that were measured (measured[i * n + j]
 * > 0; NULL: all of them); 0 when there is none. */
double sc_stats_matrix_median(const double *m, const int *measured, int n);
/* The q-quantile (0..1, nearest rank above) of the same entries; q 0.5 is the median. */
double sc_stats_matrix_quantile(const double *m, const int *measured, int n, double q);

/* The rank that holds the others up, from each rank's time in its own work per operation
 * (own[i], on its own clock: a duration, so no clocks need aligning). In lock step an operation
 * ends for everyone once the last rank has come to it, so each operation takes about the largest
 * own time plus the communication itself: the slowest rank makes it longer by its own time less
 * the next slowest's (cost), and comes later than the ranks' median by lag. index: into own;
 * -1 with fewer than two ranks or an unknown (NaN) time. */
typedef struct {
    int index;
    double own, lag, cost; /* in own's unit */
} sc_straggler_t;
void sc_straggler_find(const double *own, int n, sc_straggler_t *out);

#endif
