/* sc_health.h - a GPU's state as NVML reports it (one sample), and what a host's telemetry
 * made of a run: per GPU its samples and the summary the stability checks need (the hottest
 * temperature, ECC errors that appeared, throttling, NVLinks down, error counters and XIDs),
 * and the host's own counters (CPU temperature, EDAC, InfiniBand port errors). */
#ifndef SC_HEALTH_H
#define SC_HEALTH_H

#include <stdbool.h>
#include <stddef.h>

#include "rte/sc_rte.h"

#define SC_NVML_MAX_LINKS 18

typedef struct {
    double t_s; /* seconds since sampling started */
    unsigned index;
    char name[96];
    char bus_id[32];
    int temp_c;                 /* -1: not reported */
    double power_w;             /* -1: not reported */
    double power_limit_w;       /* the enforced limit; -1: not reported */
    int sm_mhz, mem_mhz;        /* -1: not reported */
    int max_sm_mhz;             /* the GPU's top SM clock; -1: not reported */
    long long throttle_reasons; /* bit mask as NVML reports it; -1: not reported */
    long long ecc_corrected;    /* volatile (since boot) counts; -1: not reported */
    long long ecc_uncorrected;
    long long pcie_replays;  /* PCIe replay counter; -1: not reported */
    long long nvlink_errors; /* NVLink replays, recoveries and CRC errors, all links; -1 */
    long long retired_pages; /* pages retired, both causes; -1 */
    long long remapped_rows; /* rows remapped, corrected and uncorrected; -1 */
    int remap_pending;       /* 1: a remap waits for the next reset; -1: not reported */
    int remap_failure;       /* 1: a remap found no spare row; -1 */
    int nvlinks_reported;    /* links that answered the state query */
    int nvlinks_up;
    int nvlink_version[SC_NVML_MAX_LINKS]; /* 0: link not reported */
    int nvlink_active[SC_NVML_MAX_LINKS];  /* -1: not reported */
} sc_gpu_sample_t;

typedef struct {
    unsigned index;
    char name[96], bus_id[32];
    sc_gpu_sample_t *samples;
    size_t nsamples;
    long throttled_samples;
    int max_temp_c;                                     /* -1: never reported */
    double max_power_w;                                 /* -1: never reported */
    long long ecc_uncorrected_new, ecc_corrected_new;   /* -1: not reported */
    int min_nvlinks_up;                                 /* -1: not reported */
    long long pcie_replays_new, nvlink_errors_new;      /* grown while sampled; -1 */
    long long retired_pages, remapped_rows;             /* at the last sample; -1 */
    long long retired_pages_start, remapped_rows_start; /* at the first: there before */
    int remap_pending, remap_failure;                   /* in any sample (1), none (0); -1 */
    long long xids, last_xid;                           /* XID events seen, the last one's XID */
    long long throttle_seen; /* every throttle reason sampled, OR-ed (idle left out); -1 */
    int mean_sm_mhz;         /* the SM clock over the samples; -1 */
    int max_sm_mhz;          /* its top clock; -1 */
    double power_limit_w;    /* -1: not reported */
    double memory_gb;        /* its memory, for the error rate; 0: not reported */
} sc_gpu_health_t;

typedef struct sc_health {
    char host[SC_HOST_MAX];
    bool available;
    char reason[256]; /* why not (or why partly) */
    double interval_s;
    sc_gpu_health_t *gpus;
    int ngpus;
    long samples_dropped;
    /* the host's own, from sysfs (-1 where the kernel gives none): the hottest CPU sensor, and
     * what grew while sampled - EDAC memory errors, InfiniBand port errors */
    int max_cpu_temp_c;
    long long edac_corrected_new, edac_uncorrected_new, ib_errors_new;
} sc_health_t;

/* NVML's throttle reasons in words ("sw thermal slowdown, hw slowdown"; "none"), into buf. */
const char *sc_throttle_text(long long reasons, char *buf, size_t len);

/* Frees one host's GPUs and their samples. */
void sc_health_clear(sc_health_t *h);
/* Frees the GPUs and their samples of n hosts, then the array. */
void sc_health_free(sc_health_t *hosts, int n);

/* A host's record as one block of bytes (to gather it): malloc'd, its length in *len. */
char *sc_health_pack(const sc_health_t *h, size_t *len);
/* The block back into out (its own copies of the GPUs and samples); false when the block is
 * not one (then out holds nothing to free). */
bool sc_health_unpack(const char *block, size_t len, sc_health_t *out);

#endif
