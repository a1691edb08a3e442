#include "sc_telemetry.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
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
    json_t *samples[SC__TELEMETRY_MAX_GPUS]; /* JSON arrays, one per GPU */
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
        pthread_mutex_lock(&t->lock);
        if (json_array_size(t->samples[g]) == 0)
            t->first[g] = s;
        t->last[g] = s;
        if (json_array_size(t->samples[g]) < SC__TELEMETRY_MAX_SAMPLES)
            json_array_append_new(t->samples[g], sc_nvml_sample_json(&s, now));
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
    for (unsigned g = 0; g < t->ngpus; g++)
        t->samples[g] = json_array();
    sc__sample_all(t);
    t->thread_running = pthread_create(&t->thread, NULL, sc__telemetry_main, t) == 0;
    if (!t->thread_running)
        snprintf(t->reason, sizeof(t->reason), "cannot start the sampling thread");
    return t;
}

static json_t *sc__gpu_summary(sc_telemetry_t *t, unsigned g)
{
    const sc_gpu_sample_t *first = &t->first[g], *last = &t->last[g];
    int max_temp = -1, min_links = INT_MAX;
    double max_power = -1;
    long throttled = 0;
    size_t i;
    json_t *s;
    json_array_foreach(t->samples[g], i, s)
    {
        json_t *v;
        if ((v = json_object_get(s, "temp_c")) && json_integer_value(v) > max_temp)
            max_temp = (int)json_integer_value(v);
        if ((v = json_object_get(s, "power_w")) && json_real_value(v) > max_power)
            max_power = json_real_value(v);
        /* bit 0 is "GPU idle": not a throttle */
        if ((v = json_object_get(s, "throttle_reasons")) && (json_integer_value(v) & ~1LL))
            throttled++;
        if ((v = json_object_get(s, "nvlinks_up")) && json_integer_value(v) < min_links)
            min_links = (int)json_integer_value(v);
    }
    json_t *gpu = json_pack("{s:i, s:s, s:s, s:O, s:I}", "index", (int)g, "name", first->name,
                            "bus_id", first->bus_id, "samples", t->samples[g], "throttled_samples",
                            (json_int_t)throttled);
    if (max_temp >= 0)
        json_object_set_new(gpu, "max_temp_c", json_integer(max_temp));
    if (max_power >= 0)
        json_object_set_new(gpu, "max_power_w", json_real(max_power));
    if (first->ecc_uncorrected >= 0 && last->ecc_uncorrected >= 0)
        json_object_set_new(gpu, "ecc_uncorrected_new",
                            json_integer(last->ecc_uncorrected - first->ecc_uncorrected));
    if (first->ecc_corrected >= 0 && last->ecc_corrected >= 0)
        json_object_set_new(gpu, "ecc_corrected_new",
                            json_integer(last->ecc_corrected - first->ecc_corrected));
    if (min_links != INT_MAX)
        json_object_set_new(gpu, "min_nvlinks_up", json_integer(min_links));
    return gpu;
}

json_t *sc_telemetry_finish(sc_telemetry_t *t)
{
    if (t == NULL)
        return json_pack("{s:b, s:s}", "available", 0, "reason", "no memory for telemetry");
    if (t->thread_running) {
        pthread_mutex_lock(&t->lock);
        t->stop = true;
        pthread_cond_signal(&t->wake);
        pthread_mutex_unlock(&t->lock);
        pthread_join(t->thread, NULL);
    }
    json_t *out = json_pack("{s:s, s:b, s:f}", "host", t->host, "available", t->nvml != NULL,
                            "interval_s", t->interval_s);
    if (t->nvml != NULL) {
        sc__sample_all(t);
        json_t *gpus = json_array();
        for (unsigned g = 0; g < t->ngpus; g++)
            json_array_append_new(gpus, sc__gpu_summary(t, g));
        json_object_set_new(out, "gpus", gpus);
        json_object_set_new(out, "samples_dropped", json_integer(t->dropped));
        sc_nvml_close(t->nvml);
    }
    if (t->reason[0] != '\0')
        json_object_set_new(out, "reason", json_string(t->reason));
    for (unsigned g = 0; g < t->ngpus; g++)
        json_decref(t->samples[g]);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t);
    return out;
}
