#include "sc_telemetry.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

#include "telemetry/sc_host_counters.h"
#include "telemetry/sc_nvml.h"
#include "util/sc_clock.h"

#define SC__TELEMETRY_MAX_GPUS    64
#define SC__TELEMETRY_MAX_SAMPLES 100000 /* per GPU; past it samples are counted, not kept */

struct sc_telemetry {
    sc_nvml_t *nvml;
    char reason[256];
    char host[64];
    double interval_s;
    unsigned ngpus;
    uint64_t start_ns;
    sc_gpu_health_t gpus[SC__TELEMETRY_MAX_GPUS]; /* samples kept, and the summary */
    size_t cap[SC__TELEMETRY_MAX_GPUS];
    sc_gpu_sample_t first[SC__TELEMETRY_MAX_GPUS], last[SC__TELEMETRY_MAX_GPUS];
    long dropped;
    long long xids[SC__TELEMETRY_MAX_GPUS], last_xid[SC__TELEMETRY_MAX_GPUS];
    sc_host_counters_t host_first; /* the host's counters when sampling started */
    int max_cpu_temp_c;
    pthread_t thread;
    bool thread_running;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
};

/* XID events since the last look, counted per GPU (under the lock). */
static void telemetry__xids(sc_telemetry_t *t)
{
    unsigned g = 0;
    long long xid = 0;
    for (int k = 0; k < 1000 && sc_nvml_xid_next(t->nvml, t->ngpus, &g, &xid); k++)
        if (g < t->ngpus) {
            t->xids[g]++;
            t->last_xid[g] = xid;
        }
}

static void telemetry__sample_all(sc_telemetry_t *t)
{
    double now = (double)(sc_clock_ns() - t->start_ns) * 1e-9;
    sc_host_counters_t host;
    sc_host_counters_read(&host);
    pthread_mutex_lock(&t->lock);
    t->max_cpu_temp_c = host.cpu_temp_c > t->max_cpu_temp_c ? host.cpu_temp_c : t->max_cpu_temp_c;
    if (t->nvml != NULL)
        telemetry__xids(t);
    pthread_mutex_unlock(&t->lock);
    for (unsigned g = 0; t->nvml != NULL && g < t->ngpus; g++) {
        sc_gpu_sample_t s;
        sc_nvml_sample(t->nvml, g, &s);
        s.t_s = now;
        pthread_mutex_lock(&t->lock);
        sc_gpu_health_t *gpu = &t->gpus[g];
        if (gpu->nsamples == 0)
            t->first[g] = s;
        t->last[g] = s;
        if (gpu->nsamples == t->cap[g] && gpu->nsamples < SC__TELEMETRY_MAX_SAMPLES) {
            size_t cap = t->cap[g] ? 2 * t->cap[g] : 64;
            sc_gpu_sample_t *grown = realloc(gpu->samples, cap * sizeof(*grown));
            if (grown != NULL) {
                gpu->samples = grown;
                t->cap[g] = cap;
            }
        }
        if (gpu->nsamples < t->cap[g])
            gpu->samples[gpu->nsamples++] = s;
        else
            t->dropped++;
        pthread_mutex_unlock(&t->lock);
    }
}

static void *telemetry__telemetry_main(void *arg)
{
    sc_telemetry_t *t = arg;
    pthread_mutex_lock(&t->lock);
    while (!t->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)(t->interval_s * 1e9);
        until.tv_sec += (time_t)(ns / 1000000000ull);
        until.tv_nsec = (long)(ns % 1000000000ull);
        pthread_cond_timedwait(&t->wake, &t->lock, &until);
        if (t->stop)
            break;
        pthread_mutex_unlock(&t->lock);
        telemetry__sample_all(t);
        pthread_mutex_lock(&t->lock);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

sc_telemetry_t *sc_telemetry_start(double interval_s, const char *host)
{
    sc_telemetry_t *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    snprintf(t->host, sizeof(t->host), "%s", host);
    t->interval_s = interval_s > 0.001 ? interval_s : 0.001;
    t->start_ns = sc_clock_ns();
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->wake, NULL);
    t->max_cpu_temp_c = -1;
    sc_host_counters_read(&t->host_first);
    t->nvml = sc_nvml_open(t->reason, sizeof(t->reason));
    if (t->nvml != NULL) {
        t->ngpus = sc_nvml_count(t->nvml);
        t->ngpus = t->ngpus > SC__TELEMETRY_MAX_GPUS ? SC__TELEMETRY_MAX_GPUS : t->ngpus;
        sc_nvml_xid_watch(t->nvml, t->ngpus);
    }
    telemetry__sample_all(t); /* the host's sensors are sampled without NVML too */
    t->thread_running = pthread_create(&t->thread, NULL, telemetry__telemetry_main, t) == 0;
    if (!t->thread_running)
        snprintf(t->reason, sizeof(t->reason), "cannot start the sampling thread");
    return t;
}

/* How much a counter grew (-1: not reported at either end). */
static long long telemetry__grown(long long first, long long last)
{
    return first >= 0 && last >= 0 ? last - first : -1;
}

/* GPU g's summary over its samples, into t->gpus[g]. */
static void telemetry__gpu_summary(sc_telemetry_t *t, unsigned g)
{
    const sc_gpu_sample_t *first = &t->first[g], *last = &t->last[g];
    sc_gpu_health_t *gpu = &t->gpus[g];
    gpu->index = g;
    snprintf(gpu->name, sizeof(gpu->name), "%s", first->name);
    snprintf(gpu->bus_id, sizeof(gpu->bus_id), "%s", first->bus_id);
    gpu->max_temp_c = -1;
    gpu->max_power_w = -1;
    gpu->min_nvlinks_up = INT_MAX;
    gpu->throttle_seen = gpu->remap_pending = gpu->remap_failure = -1;
    gpu->max_sm_mhz = first->max_sm_mhz;
    gpu->power_limit_w = first->power_limit_w;
    double clock_sum = 0;
    int clocks = 0;
    for (size_t i = 0; i < gpu->nsamples; i++) {
        const sc_gpu_sample_t *s = &gpu->samples[i];
        gpu->max_temp_c = s->temp_c > gpu->max_temp_c ? s->temp_c : gpu->max_temp_c;
        gpu->max_power_w = s->power_w > gpu->max_power_w ? s->power_w : gpu->max_power_w;
        /* bit 0 is "GPU idle": not a throttle */
        gpu->throttled_samples += s->throttle_reasons > 0 && (s->throttle_reasons & ~1LL);
        if (s->throttle_reasons >= 0)
            gpu->throttle_seen =
                (gpu->throttle_seen < 0 ? 0 : gpu->throttle_seen) | (s->throttle_reasons & ~1LL);
        gpu->remap_pending =
            s->remap_pending > gpu->remap_pending ? s->remap_pending : gpu->remap_pending;
        gpu->remap_failure =
            s->remap_failure > gpu->remap_failure ? s->remap_failure : gpu->remap_failure;
        if (s->sm_mhz >= 0) {
            clock_sum += s->sm_mhz;
            clocks++;
        }
        if (s->nvlinks_reported > 0 && s->nvlinks_up < gpu->min_nvlinks_up)
            gpu->min_nvlinks_up = s->nvlinks_up;
    }
    if (gpu->min_nvlinks_up == INT_MAX)
        gpu->min_nvlinks_up = -1;
    gpu->mean_sm_mhz = clocks > 0 ? (int)(clock_sum / clocks + 0.5) : -1;
    gpu->retired_pages_start = first->retired_pages;
    gpu->remapped_rows_start = first->remapped_rows;
    sc_gpu_config_t config;
    sc_nvml_config(t->nvml, g, &config);
    gpu->memory_gb = config.mem_total_gb;
    gpu->ecc_uncorrected_new = telemetry__grown(first->ecc_uncorrected, last->ecc_uncorrected);
    gpu->ecc_corrected_new = telemetry__grown(first->ecc_corrected, last->ecc_corrected);
    gpu->pcie_replays_new = telemetry__grown(first->pcie_replays, last->pcie_replays);
    gpu->nvlink_errors_new = telemetry__grown(first->nvlink_errors, last->nvlink_errors);
    gpu->retired_pages = last->retired_pages;
    gpu->remapped_rows = last->remapped_rows;
    gpu->xids = t->xids[g];
    gpu->last_xid = t->last_xid[g];
}

/* The host's counters at the end against the start. */
static void telemetry__host_summary(const sc_telemetry_t *t, sc_health_t *out)
{
    sc_host_counters_t last;
    sc_host_counters_read(&last);
    out->max_cpu_temp_c = last.cpu_temp_c > t->max_cpu_temp_c ? last.cpu_temp_c : t->max_cpu_temp_c;
    out->edac_corrected_new = telemetry__grown(t->host_first.edac_corrected, last.edac_corrected);
    out->edac_uncorrected_new =
        telemetry__grown(t->host_first.edac_uncorrected, last.edac_uncorrected);
    out->ib_errors_new = telemetry__grown(t->host_first.ib_errors, last.ib_errors);
}

void sc_telemetry_finish(sc_telemetry_t *t, sc_health_t *out)
{
    memset(out, 0, sizeof(*out));
    if (t == NULL) {
        snprintf(out->reason, sizeof(out->reason), "no memory for telemetry");
        return;
    }
    if (t->thread_running) {
        pthread_mutex_lock(&t->lock);
        t->stop = true;
        pthread_cond_signal(&t->wake);
        pthread_mutex_unlock(&t->lock);
        pthread_join(t->thread, NULL);
    }
    snprintf(out->host, sizeof(out->host), "%s", t->host);
    out->available = t->nvml != NULL;
    out->interval_s = t->interval_s;
    telemetry__host_summary(t, out);
    if (t->nvml != NULL) {
        telemetry__sample_all(t);
        out->gpus = calloc((size_t)t->ngpus + 1, sizeof(sc_gpu_health_t));
        for (unsigned g = 0; g < t->ngpus; g++) {
            telemetry__gpu_summary(t, g);
            if (out->gpus != NULL)
                out->gpus[out->ngpus++] = t->gpus[g]; /* the samples move to out */
            else
                free(t->gpus[g].samples);
        }
        out->samples_dropped = t->dropped;
        sc_nvml_close(t->nvml);
    }
    snprintf(out->reason, sizeof(out->reason), "%s", t->reason);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
