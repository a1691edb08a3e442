/* sc_soak.c - a soak's records: a host's health summarised for a cycle, a cycle's lifetime,
 * the limits' defaults, and the field tables the journal writes and reads them by. */
#include "record/sc_soak.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A sum where -1 is "not reported": the sum of what was. */
static long long soak__add(long long sum, long long v)
{
    return v < 0 ? sum : (sum < 0 ? 0 : sum) + v;
}

/* The GPU whose mean SM clock fell furthest below the median of the host's (two at least). */
static void soak__clocks(const sc_health_t *h, sc_soak_host_t *out)
{
    double clocks[64], sorted[64];
    int n = 0;
    for (int g = 0; g < h->ngpus && n < 64; g++)
        if (h->gpus[g].mean_sm_mhz > 0)
            clocks[n++] = h->gpus[g].mean_sm_mhz;
    out->slow_clock_gpu = out->slow_clock_mhz = out->max_sm_mhz = -1;
    out->clock_ratio = -1;
    if (n < 2)
        return;
    memcpy(sorted, clocks, sizeof(double) * (size_t)n);
    for (int i = 1; i < n; i++) /* a handful: insertion sort */
        for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    for (int g = 0; g < h->ngpus; g++) {
        const sc_gpu_health_t *gpu = &h->gpus[g];
        double ratio = gpu->mean_sm_mhz > 0 ? gpu->mean_sm_mhz / median : -1;
        if (ratio > 0 && (out->clock_ratio < 0 || ratio < out->clock_ratio)) {
            out->clock_ratio = ratio;
            out->slow_clock_gpu = (int)gpu->index;
            out->slow_clock_mhz = gpu->mean_sm_mhz;
            out->max_sm_mhz = gpu->max_sm_mhz;
        }
    }
}

/* What a GPU adds to its host's record beyond the worst-of figures: what was there before the
 * cycle, remaps waiting or failed, power past its limit, its memory. */
static void soak__gpu_state(const sc_gpu_health_t *gpu, sc_soak_host_t *out)
{
    out->retired_pages_start = soak__add(out->retired_pages_start, gpu->retired_pages_start);
    out->remapped_rows_start = soak__add(out->remapped_rows_start, gpu->remapped_rows_start);
    if (out->start_errors_gpu < 0 && (gpu->retired_pages_start > 0 || gpu->remapped_rows_start > 0))
        out->start_errors_gpu = (int)gpu->index;
    if (gpu->remap_pending >= 0 || gpu->remap_failure >= 0) {
        bool bad = gpu->remap_pending > 0 || gpu->remap_failure > 0;
        out->remap_bad = (out->remap_bad < 0 ? 0 : out->remap_bad) + bad;
        if (bad && out->remap_gpu < 0)
            out->remap_gpu = (int)gpu->index;
    }
    if (gpu->max_power_w >= 0 && gpu->power_limit_w > 0) {
        double over = gpu->max_power_w - gpu->power_limit_w;
        out->power_over_w = over > out->power_over_w ? over : out->power_over_w;
    }
    out->memory_gb += gpu->memory_gb;
}

void sc_soak_host_from(const sc_health_t *h, sc_soak_host_t *out)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->host, sizeof(out->host), "%s", h->host);
    out->gpus_available = h->available;
    snprintf(out->gpu_reason, sizeof(out->gpu_reason), "%s", h->available ? "" : h->reason);
    out->ngpus = h->ngpus;
    out->max_gpu_temp_c = out->hottest_gpu = out->min_nvlinks_up = -1;
    out->max_power_w = out->throttle_fraction = -1;
    out->ecc_uncorrected_new = out->ecc_corrected_new = out->xids = out->last_xid = -1;
    out->pcie_replays_new = out->nvlink_errors_new = out->retired_pages = -1;
    out->remapped_rows = out->retired_pages_start = out->remapped_rows_start = -1;
    out->start_errors_gpu = out->remap_bad = out->remap_gpu = -1;
    out->power_over_w = -1;
    out->hottest_reasons = -1;
    for (int g = 0; g < h->ngpus; g++) {
        const sc_gpu_health_t *gpu = &h->gpus[g];
        if (gpu->max_temp_c > out->max_gpu_temp_c) {
            out->max_gpu_temp_c = gpu->max_temp_c;
            out->hottest_gpu = (int)gpu->index;
            snprintf(out->hottest_bus, sizeof(out->hottest_bus), "%s", gpu->bus_id);
            out->hottest_reasons = gpu->throttle_seen;
        }
        soak__gpu_state(gpu, out);
        out->max_power_w =
            gpu->max_power_w > out->max_power_w ? gpu->max_power_w : out->max_power_w;
        double throttled = gpu->nsamples ? (double)gpu->throttled_samples / gpu->nsamples : -1;
        out->throttle_fraction =
            throttled > out->throttle_fraction ? throttled : out->throttle_fraction;
        out->ecc_uncorrected_new = soak__add(out->ecc_uncorrected_new, gpu->ecc_uncorrected_new);
        out->ecc_corrected_new = soak__add(out->ecc_corrected_new, gpu->ecc_corrected_new);
        out->xids = soak__add(out->xids, gpu->xids);
        out->last_xid = gpu->xids > 0 ? gpu->last_xid : out->last_xid;
        out->pcie_replays_new = soak__add(out->pcie_replays_new, gpu->pcie_replays_new);
        out->nvlink_errors_new = soak__add(out->nvlink_errors_new, gpu->nvlink_errors_new);
        out->retired_pages = soak__add(out->retired_pages, gpu->retired_pages);
        out->remapped_rows = soak__add(out->remapped_rows, gpu->remapped_rows);
        if (gpu->min_nvlinks_up >= 0 &&
            (out->min_nvlinks_up < 0 || gpu->min_nvlinks_up < out->min_nvlinks_up))
            out->min_nvlinks_up = gpu->min_nvlinks_up;
    }
    soak__clocks(h, out);
    out->max_cpu_temp_c = h->max_cpu_temp_c;
    out->edac_corrected_new = h->edac_corrected_new;
    out->edac_uncorrected_new = h->edac_uncorrected_new;
    out->ib_errors_new = h->ib_errors_new;
}

void sc_soak_cycle_init(sc_soak_cycle_t *c)
{
    memset(c, 0, sizeof(*c));
    c->step_ms = c->pair_min_GBps = c->burn_tflops = SC_ABSENT;
}

void sc_soak_cycle_free(sc_soak_cycle_t *c)
{
    free(c->hosts);
    c->hosts = NULL;
    c->nhosts = 0;
}

double sc_soak_cycle_busbw(const sc_soak_cycle_t *c)
{
    return c->nsizes > 0 ? c->busbw_GBps[c->nsizes - 1] : SC_ABSENT;
}

void sc_soak_cycles_free(sc_soak_cycles_t *cycles)
{
    for (size_t i = 0; i < cycles->n; i++)
        sc_soak_cycle_free(&cycles->items[i]);
    sc_list_free(cycles);
}

#define F(type, field, kind)                                                                       \
    {                                                                                              \
#field, kind, offsetof(type, field), sizeof(((type *)0)->field), 0, NULL                   \
    }
#define H(field, kind) F(sc_soak_host_t, field, kind)
const sc_field_t sc_soak_host_fields[] = {
    H(host, SC_FIELD_TEXT),
    H(gpus_available, SC_FIELD_BOOL),
    H(gpu_reason, SC_FIELD_TEXT_OPT),
    H(ngpus, SC_FIELD_INT),
    H(max_gpu_temp_c, SC_FIELD_INT),
    H(hottest_gpu, SC_FIELD_INT),
    H(hottest_bus, SC_FIELD_TEXT_OPT),
    H(hottest_reasons, SC_FIELD_I64),
    H(max_power_w, SC_FIELD_DOUBLE),
    H(power_over_w, SC_FIELD_DOUBLE),
    H(throttle_fraction, SC_FIELD_DOUBLE),
    H(ecc_uncorrected_new, SC_FIELD_I64),
    H(ecc_corrected_new, SC_FIELD_I64),
    H(xids, SC_FIELD_I64),
    H(last_xid, SC_FIELD_I64),
    H(pcie_replays_new, SC_FIELD_I64),
    H(nvlink_errors_new, SC_FIELD_I64),
    H(retired_pages, SC_FIELD_I64),
    H(remapped_rows, SC_FIELD_I64),
    H(retired_pages_start, SC_FIELD_I64),
    H(remapped_rows_start, SC_FIELD_I64),
    H(start_errors_gpu, SC_FIELD_INT),
    H(remap_bad, SC_FIELD_INT),
    H(remap_gpu, SC_FIELD_INT),
    H(slow_clock_gpu, SC_FIELD_INT),
    H(slow_clock_mhz, SC_FIELD_INT),
    H(max_sm_mhz, SC_FIELD_INT),
    H(clock_ratio, SC_FIELD_DOUBLE),
    H(memory_gb, SC_FIELD_DOUBLE),
    H(min_nvlinks_up, SC_FIELD_INT),
    H(max_cpu_temp_c, SC_FIELD_INT),
    H(edac_corrected_new, SC_FIELD_I64),
    H(edac_uncorrected_new, SC_FIELD_I64),
    H(ib_errors_new, SC_FIELD_I64),
    {NULL, 0, 0, 0, 0, NULL},
};
#undef H

#define C(field, kind) F(sc_soak_cycle_t, field, kind)
const sc_field_t sc_soak_cycle_fields[] = {
    C(cycle, SC_FIELD_INT),
    C(start_s, SC_FIELD_DOUBLE),
    C(wall_s, SC_FIELD_DOUBLE),
    C(start_utc, SC_FIELD_TEXT),
    C(step_ms, SC_FIELD_OPTIONAL),
    C(pair_min_GBps, SC_FIELD_OPTIONAL),
    C(burn_tflops, SC_FIELD_OPTIONAL),
    C(pairs_measured, SC_FIELD_INT),
    C(suspects, SC_FIELD_INT),
    C(suspect_text, SC_FIELD_TEXT_OPT),
    {"verdict", SC_FIELD_LEVEL, offsetof(sc_soak_cycle_t, level), sizeof(sc_level_t), 0, NULL},
    C(breaches, SC_FIELD_TEXT_OPT),
    {NULL, 0, 0, 0, 0, NULL},
};
#undef C
#undef F
