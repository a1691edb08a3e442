/* sc_baseline.h - baselines built from known-good results and results held to them. Every
 * result names its figures the same way (a collective case and a sweep size by time, a point
 * of the scaling curve by step time, a pair by bandwidth and latency), keyed by what ran and on
 * how many ranks and hosts; a baseline keeps per figure the median of the known-good runs, its
 * spread and where it came from. A figure that drops beyond the baseline's own spread (or its
 * tolerance, whichever is larger) is a WARN, beyond twice that a FAIL; and when the run's
 * figures sit off their baseline all together, a whole-run WARN says so - the machine was slow
 * for the whole run, which no in-run interval can see. */
#ifndef SC_BASELINE_H
#define SC_BASELINE_H

#include <pthread.h>

#include "judge/sc_baseline_store.h"
#include "record/sc_result.h"
#include "util/sc_status.h"

typedef struct {
    char key[SC_FIGURE_KEY_MAX];
    char metric[24];
    double value;
    bool higher_is_better;
    int run; /* index of the result it came from */
} sc_figure_t;
typedef SC_LIST(sc_figure_t) sc_figures_t;

/* Appends r's figures to out, each tagged with run. SC_ERR_NOMEM when memory is short. */
sc_status_t sc_result_figures(const sc_result_t *r, int run, sc_figures_t *out, sc_err_t *err);

/* The baseline of n known-good results (dirs[i]: where result i was read from), with a least
 * tolerance. SC_ERR_INPUT when there are too many results or no figure in them. */
sc_status_t sc_baseline_build(const sc_result_t *docs, const char *const *dirs, size_t n,
                              double tolerance, sc_baseline_t *out, sc_err_t *err);

/* What makes two runs' figures comparable: the same command, backend, ranks, hosts, workload
 * and scales (a run shrunk 100x is not a regression of a full-size one). */
typedef struct {
    char command[16], backend[16], workload[64];
    int ranks, nhosts;
    double bytes_scale, compute_scale;
} sc_run_kind_t;
void sc_run_kind_of(const sc_result_t *r, sc_run_kind_t *kind);
/* Where a and b differ, in words into why ("bytes_scale 0.01 against 1"); false when alike. */
bool sc_run_kind_differs(const sc_run_kind_t *a, const sc_run_kind_t *b, char *why, size_t len);
/* SC_ERR_INPUT naming both directories when r (read from dir) is not like first (first_dir). */
sc_status_t sc_run_kind_check(const sc_result_t *r, const char *dir, const sc_run_kind_t *first,
                              const char *first_dir, sc_err_t *err);

/* The same, a result at a time: a result can be freed once added, so that a baseline of many
 * large runs holds their figures, never all the runs at once. */
typedef struct {
    sc_baseline_t *out;
    sc_store_t store;     /* every run's figures, compact (judge/sc_baseline_store.h) */
    pthread_mutex_t lock; /* the store's, for readers of runs on threads of their own */
    size_t nruns;
    char first_dir[PATH_MAX];
    sc_run_kind_t first; /* every run added is held to be like the first */
} sc_baseline_builder_t;
void sc_baseline_begin(sc_baseline_builder_t *bb, sc_baseline_t *out, double tolerance);
/* SC_ERR_USAGE past SC_BASELINE_MAX_RUNS results, SC_ERR_INPUT for a run unlike the first,
 * SC_ERR_NOMEM. */
sc_status_t sc_baseline_add(sc_baseline_builder_t *bb, const sc_result_t *r, const char *dir,
                            sc_err_t *err);
/* Case rows of one run, gathered by its reader and added to the builder's store together (the
 * store is locked once a batch, not once a row): readers of several runs on threads of their
 * own each fill a batch. */
#define SC_BASELINE_BATCH 4096
typedef struct {
    sc_baseline_builder_t *bb;
    int run; /* the index the run will have: its place among the runs */
    size_t n;
    size_t hint; /* where the run's last key is in the store, plus one (sc_store_add) */
    double values[SC_BASELINE_BATCH];
    char keys[SC_BASELINE_BATCH][SC_FIGURE_KEY_MAX];
} sc_baseline_batch_t;
void sc_baseline_batch_begin(sc_baseline_batch_t *batch, sc_baseline_builder_t *bb, int run);
/* One case row of batch's run (r: its header; sweep: a row of its all-reduce sweep), streamed
 * past rather than held in r; SC_ERR_NOMEM when the store cannot take them. */
sc_status_t sc_baseline_batch_case(sc_baseline_batch_t *batch, const sc_result_t *r, bool sweep,
                                   const sc_case_row_t *row, sc_err_t *err);
/* What batch holds into the store (at the end of its run). */
sc_status_t sc_baseline_batch_flush(sc_baseline_batch_t *batch, sc_err_t *err);
/* The points from the figures added: into out->points, or - keep - left in the builder's store,
 * grouped, for sc_store_points to give one key's at a time (a million points written as they
 * are made; free it with sc_baseline_builder_free). SC_ERR_INPUT when there is no figure (out
 * freed on failure, and the store). */
sc_status_t sc_baseline_end(sc_baseline_builder_t *bb, sc_status_t status, bool keep,
                            sc_err_t *err);
void sc_baseline_builder_free(sc_baseline_builder_t *bb);

/* b's point for a key and metric, or NULL (b's points sorted, as built and as loaded). */
const sc_baseline_point_t *sc_baseline_find(const sc_baseline_t *b, const char *key,
                                            const char *metric);

/* Sorts b's points by key and metric (for sc_baseline_find). */
void sc_baseline_sort(sc_baseline_t *b);

/* r held to b: a check per figure of r that b has (source "baseline"), and the whole-run check
 * when two or more matched. Returns how many matched. */
size_t sc_verdict_baseline(const sc_baseline_t *b, const sc_result_t *r, sc_checks_t *checks);

/* A run held to a baseline a figure at a time (a fleet's rows streamed past, never held): its
 * points from b's sorted list, or - store not NULL - made from a builder's store as each key is
 * met (a million points are never made at once). Each matched figure's ratio and band are kept
 * for the whole-run check (16 bytes a figure). */
typedef struct {
    const sc_baseline_t *b; /* its tolerance, and its points unless store is given */
    const sc_store_t *store;
    size_t nruns;                /* the runs the store holds */
    double *ratios, *tolerances; /* a matched figure's each */
    size_t matched, cap;
    bool nomem;
} sc_baseline_hold_t;
void sc_baseline_hold_begin(sc_baseline_hold_t *h, const sc_baseline_t *b, const sc_store_t *store,
                            size_t nruns);
/* One figure: its check into checks when the baseline has its point. */
void sc_baseline_hold_figure(sc_baseline_hold_t *h, const sc_figure_t *f, sc_checks_t *checks);
/* One case row of run r (its header; sweep: a row of its sweep), as sc_result_figures keys it. */
void sc_baseline_hold_case(sc_baseline_hold_t *h, const sc_result_t *r, bool sweep,
                           const sc_case_row_t *row, sc_checks_t *checks);
/* The whole-run check (two or more matched), h freed; how many matched. SC_ERR_NOMEM: a figure
 * could not be kept. */
sc_status_t sc_baseline_hold_end(sc_baseline_hold_t *h, sc_checks_t *checks, size_t *matched,
                                 sc_err_t *err);

#endif
