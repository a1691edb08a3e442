/* sc_soak.h - the stability run's records: what one cycle measured (a sweep, a training step,
 * the quick pair check) and what each host's health was while it ran, and the limits every
 * cycle is held to (the topology's expect.soak). The journal (report/sc_json_soak.h) is
 * these records, one JSON line a cycle. */
#ifndef SC_SOAK_H
#define SC_SOAK_H

#include <stdbool.h>
#include <stdint.h>

#include "record/sc_health.h"
#include "record/sc_record.h"

/* One host over one cycle: the worst of its GPUs, and its own counters. -1: not reported. */
typedef struct {
    char host[SC_HOST_MAX];
    bool gpus_available;
    char gpu_reason[160]; /* why not, when not */
    int ngpus;
    int max_gpu_temp_c, hottest_gpu;
    char hottest_bus[32];
    long long hottest_reasons; /* the throttle reasons the hottest GPU showed (NVML's bits) */
    double max_power_w;
    double power_over_w;      /* the most a GPU drew above its enforced limit (<= 0: none); -1 */
    double throttle_fraction; /* the most throttled GPU's share of samples */
    long long ecc_uncorrected_new, ecc_corrected_new;
    long long xids, last_xid;
    long long pcie_replays_new, nvlink_errors_new;
    long long retired_pages, remapped_rows;             /* at the cycle's end, summed over GPUs */
    long long retired_pages_start, remapped_rows_start; /* at its start: there before */
    int start_errors_gpu;     /* the first GPU with pages or rows at the start; -1 */
    int remap_bad, remap_gpu; /* GPUs with a remap pending or failed, the first; -1 */
    /* the GPU whose SM clock fell furthest below its peers' median (its mean over the cycle),
     * that ratio, its clock and its top one; -1 where fewer than two GPUs told */
    int slow_clock_gpu, slow_clock_mhz, max_sm_mhz;
    double clock_ratio;
    double memory_gb; /* the GPUs' memory, for the error rate (0: not reported) */
    int min_nvlinks_up;
    int max_cpu_temp_c;
    long long edac_corrected_new, edac_uncorrected_new, ib_errors_new;
} sc_soak_host_t;

/* A host's health record summarised as a soak keeps it. */
void sc_soak_host_from(const sc_health_t *h, sc_soak_host_t *out);

#define SC_SOAK_SIZES 16
typedef struct {
    int cycle;      /* from 1, across resumes */
    double start_s; /* soak time when it began (the cycles before it, every run) */
    double wall_s;  /* its length */
    char start_utc[32];
    int nsizes; /* the all-reduce sweep */
    uint64_t size_bytes[SC_SOAK_SIZES];
    double busbw_GBps[SC_SOAK_SIZES];
    double step_ms;       /* the workload's median step; NaN: not run */
    double pair_min_GBps; /* the slowest pair of the quick check; NaN: one host */
    double burn_tflops;   /* --load burn: the least any rank's burn reached; NaN: no burn */
    int pairs_measured, suspects;
    char suspect_text[256];
    sc_level_t level;   /* the cycle held to the limits */
    char breaches[512]; /* what broke them, "; "-separated ("" none) */
    sc_soak_host_t *hosts;
    int nhosts;
} sc_soak_cycle_t;

void sc_soak_cycle_init(sc_soak_cycle_t *c);
void sc_soak_cycle_free(sc_soak_cycle_t *c);
/* The busbw at the largest size (NaN: no sweep). */
double sc_soak_cycle_busbw(const sc_soak_cycle_t *c);

typedef SC_LIST(sc_soak_cycle_t) sc_soak_cycles_t;
void sc_soak_cycles_free(sc_soak_cycles_t *cycles);

/* The field tables (JSON keys) of the scalar parts. */
extern const sc_field_t sc_soak_host_fields[];
extern const sc_field_t sc_soak_cycle_fields[];

#endif
