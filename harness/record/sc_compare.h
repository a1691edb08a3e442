/* sc_compare.h - systems side by side (`scalecheck compare`): one row per system, measured (a
 * run directory) or predicted (a topology and the model), its figures normalised per GPU, per
 * dollar-hour and per kW, whether the workload fits its GPUs' memory, and its scores on the
 * dimensions a buyer weighs (record/sc_weights.h). */
#ifndef SC_COMPARE_H
#define SC_COMPARE_H

#include <stdbool.h>

#include "record/sc_record.h"
#include "record/sc_weights.h"

typedef struct {
    char system[64];  /* the topology's name (measured: the one the run was held to) */
    char source[16];  /* "measured" or "predicted" */
    char origin[256]; /* the run directory or the topology file */
    char description[256];
    char gpu[64], library[16], workload[64];
    int gpus, nodes, gpus_per_node; /* the scale compared at */
    double throughput;              /* samples/s there */
    double throughput_per_gpu;
    double throughput_per_node;
    double efficiency;          /* speedup / GPUs against the curve's first point */
    double expected_efficiency; /* the model's for this system (SC_ABSENT: none) */
    double cost_hour_usd;       /* the nodes used, per hour (SC_ABSENT: not declared) */
    double samples_per_usd;     /* throughput x 3600 / cost_hour_usd */
    double power_kw;            /* the nodes used (SC_ABSENT: neither measured nor declared) */
    char power_from[16];        /* "measured", "declared" or "" */
    double samples_per_kwh;     /* throughput x 3600 / power_kw */
    double memory_need_gb, gpu_memory_gb;
    double memory_headroom; /* 1 - need / memory: below 0, it does not fit */
    bool memory_fits;
    char memory_note[96];       /* why not, or what the estimate leaves out */
    char input_note[128];       /* the input pipeline the model assumed (predicted rows) */
    char compute_note[224];     /* the share of peak it assumed, and its source */
    char note[160];             /* what makes a figure not comparable ("" none) */
    char verdict[8];            /* the run's (PASS/WARN/FAIL), "" predicted */
    char claims[48];            /* the run's claims (the topology's expect.claims): "1 of 2 held" */
    int differences;            /* declared vs detected, and hosts set up unlike (its findings) */
    char versions[192];         /* what the run ran with (backend, MPI) */
    double score[SC_DIM_COUNT]; /* 0-10, SC_ABSENT where the figure is missing */
    double total;               /* weighted over the scored dimensions */
    int rank;                   /* 1 = best */
    /* a run shrunk to fit (bytes or compute scaled): its samples/s are not the workload's, so
     * it is scored on neither throughput nor what a sample costs */
    bool shrunk;
} sc_compare_row_t;

typedef struct {
    sc_compare_row_t row;
    sc_points_t curve;    /* efficiency by GPUs (and the model's, when expected) */
    sc_case_rows_t busbw; /* all-reduce busbw by size (measured: the run's sweep or cases) */
} sc_compare_system_t;
typedef SC_LIST(sc_compare_system_t) sc_compare_systems_t;

/* The row's fields, for CSV and JSON (scores as score_<dimension>). */
extern const sc_field_t sc_compare_row_fields[];
void sc_compare_systems_free(sc_compare_systems_t *s);

#endif
