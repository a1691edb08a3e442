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
    out->remapped_rows = -1;
    for (int g = 0; g < h->ngpus; g++) {
        const sc_gpu_health_t *gpu = &h->gpus[g];
        if (gpu->max_temp_c > out->max_gpu_temp_c) {
            out->max_gpu_temp_c = gpu->max_temp_c;
            out->hottest_gpu = (int)gpu->index;
        }
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
    out->max_cpu_temp_c = h->max_cpu_temp_c;
    out->edac_corrected_new = h->edac_corrected_new;
    out->edac_uncorrected_new = h->edac_uncorrected_new;
    out->ib_errors_new = h->ib_errors_new;
}

void sc_soak_cycle_init(sc_soak_cycle_t *c)
{
    memset(c, 0, sizeof(*c));
    c->step_ms = c->pair_min_GBps = SC_ABSENT;
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
#field, kind, offsetof(type, field), sizeof(((type *)0)->field), 0                         \
    }
#define H(field, kind) F(sc_soak_host_t, field, kind)
const sc_field_t sc_soak_host_fields[] = {
    H(host, SC_FIELD_TEXT),
    H(gpus_available, SC_FIELD_BOOL),
    H(gpu_reason, SC_FIELD_TEXT_OPT),
    H(ngpus, SC_FIELD_INT),
    H(max_gpu_temp_c, SC_FIELD_INT),
    H(hottest_gpu, SC_FIELD_INT),
    H(max_power_w, SC_FIELD_DOUBLE),
    H(throttle_fraction, SC_FIELD_DOUBLE),
    H(ecc_uncorrected_new, SC_FIELD_I64),
    H(ecc_corrected_new, SC_FIELD_I64),
    H(xids, SC_FIELD_I64),
    H(last_xid, SC_FIELD_I64),
    H(pcie_replays_new, SC_FIELD_I64),
    H(nvlink_errors_new, SC_FIELD_I64),
    H(retired_pages, SC_FIELD_I64),
    H(remapped_rows, SC_FIELD_I64),
    H(min_nvlinks_up, SC_FIELD_INT),
    H(max_cpu_temp_c, SC_FIELD_INT),
    H(edac_corrected_new, SC_FIELD_I64),
    H(edac_uncorrected_new, SC_FIELD_I64),
    H(ib_errors_new, SC_FIELD_I64),
    {NULL, 0, 0, 0, 0},
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
    C(pairs_measured, SC_FIELD_INT),
    C(suspects, SC_FIELD_INT),
    C(suspect_text, SC_FIELD_TEXT_OPT),
    {"verdict", SC_FIELD_LEVEL, offsetof(sc_soak_cycle_t, level), sizeof(sc_level_t), 0},
    C(breaches, SC_FIELD_TEXT_OPT),
    {NULL, 0, 0, 0, 0},
};
#undef C
#undef F
