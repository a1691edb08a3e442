#include "sc_telemetry.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

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
    pthread_t thread;
    bool thread_running;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
};

static void sc__sample_all(sc_telemetry_t *t)
{
    double now = (double)(sc_clock_ns() - t->start_ns) * 1e-9;
    for (unsigned g = 0; g < t->ngpus; g++) {
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

static void *sc__telemetry_main(void *arg)
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
        sc__sample_all(t);
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
    t->nvml = sc_nvml_open(t->reason, sizeof(t->reason));
    if (t->nvml == NULL)
        return t;
    t->ngpus = sc_nvml_count(t->nvml);
    if (t->ngpus > SC__TELEMETRY_MAX_GPUS)
        t->ngpus = SC__TELEMETRY_MAX_GPUS;
    sc__sample_all(t);
    t->thread_running = pthread_create(&t->thread, NULL, sc__telemetry_main, t) == 0;
    if (!t->thread_running)
        snprintf(t->reason, sizeof(t->reason), "cannot start the sampling thread");
    return t;
}

/* GPU g's summary over its samples, into t->gpus[g]. */
static void sc__gpu_summary(sc_telemetry_t *t, unsigned g)
{
    const sc_gpu_sample_t *first = &t->first[g], *last = &t->last[g];
    sc_gpu_health_t *gpu = &t->gpus[g];
    gpu->index = g;
    snprintf(gpu->name, sizeof(gpu->name), "%s", first->name);
    snprintf(gpu->bus_id, sizeof(gpu->bus_id), "%s", first->bus_id);
    gpu->max_temp_c = -1;
    gpu->max_power_w = -1;
    gpu->min_nvlinks_up = INT_MAX;
    for (size_t i = 0; i < gpu->nsamples; i++) {
        const sc_gpu_sample_t *s = &gpu->samples[i];
        gpu->max_temp_c = s->temp_c > gpu->max_temp_c ? s->temp_c : gpu->max_temp_c;
        gpu->max_power_w = s->power_w > gpu->max_power_w ? s->power_w : gpu->max_power_w;
        /* bit 0 is "GPU idle": not a throttle */
        gpu->throttled_samples += s->throttle_reasons > 0 && (s->throttle_reasons & ~1LL);
        if (s->nvlinks_reported > 0 && s->nvlinks_up < gpu->min_nvlinks_up)
            gpu->min_nvlinks_up = s->nvlinks_up;
    }
    if (gpu->min_nvlinks_up == INT_MAX)
        gpu->min_nvlinks_up = -1;
    gpu->ecc_uncorrected_new = first->ecc_uncorrected >= 0 && last->ecc_uncorrected >= 0
                                   ? last->ecc_uncorrected - first->ecc_uncorrected
                                   : -1;
    gpu->ecc_corrected_new = first->ecc_corrected >= 0 && last->ecc_corrected >= 0
                                 ? last->ecc_corrected - first->ecc_corrected
                                 : -1;
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
    if (t->nvml != NULL) {
        sc__sample_all(t);
        out->gpus = calloc((size_t)t->ngpus + 1, sizeof(sc_gpu_health_t));
        for (unsigned g = 0; g < t->ngpus; g++) {
            sc__gpu_summary(t, g);
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
