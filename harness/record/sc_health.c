/* sc_health.c - a host's telemetry record freed, and packed into bytes and back (the gather to
 * rank 0 sends records as bytes: the same build runs on every rank). */
#include "record/sc_health.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_health_clear(sc_health_t *h)
{
    for (int g = 0; h->gpus != NULL && g < h->ngpus; g++)
        free(h->gpus[g].samples);
    free(h->gpus);
    h->gpus = NULL;
    h->ngpus = 0;
}

void sc_health_free(sc_health_t *hosts, int n)
{
    for (int h = 0; hosts != NULL && h < n; h++)
        sc_health_clear(&hosts[h]);
    free(hosts);
}

char *sc_health_pack(const sc_health_t *h, size_t *len)
{
    size_t n = sizeof(*h) + (size_t)h->ngpus * sizeof(sc_gpu_health_t);
    for (int g = 0; g < h->ngpus; g++)
        n += h->gpus[g].nsamples * sizeof(sc_gpu_sample_t);
    char *block = malloc(n), *at = block;
    if (block == NULL)
        return NULL;
    memcpy(at, h, sizeof(*h));
    at += sizeof(*h);
    if (h->ngpus > 0)
        memcpy(at, h->gpus, (size_t)h->ngpus * sizeof(sc_gpu_health_t));
    at += (size_t)h->ngpus * sizeof(sc_gpu_health_t);
    for (int g = 0; g < h->ngpus; g++) {
        size_t bytes = h->gpus[g].nsamples * sizeof(sc_gpu_sample_t);
        if (bytes > 0)
            memcpy(at, h->gpus[g].samples, bytes);
        at += bytes;
    }
    *len = n;
    return block;
}

bool sc_health_unpack(const char *block, size_t len, sc_health_t *out)
{
    if (len < sizeof(*out))
        return false;
    memcpy(out, block, sizeof(*out));
    out->gpus = NULL;
    size_t at = sizeof(*out), gpus_bytes = (size_t)out->ngpus * sizeof(sc_gpu_health_t);
    if (out->ngpus < 0 || len - at < gpus_bytes)
        return false;
    out->gpus = calloc((size_t)out->ngpus + 1, sizeof(sc_gpu_health_t));
    if (out->gpus == NULL)
        return false;
    if (gpus_bytes > 0)
        memcpy(out->gpus, block + at, gpus_bytes);
    at += gpus_bytes;
    for (int g = 0; g < out->ngpus; g++) {
        sc_gpu_health_t *gpu = &out->gpus[g];
        size_t bytes = gpu->nsamples * sizeof(sc_gpu_sample_t);
        gpu->samples = bytes <= len - at ? malloc(bytes + 1) : NULL;
        if (gpu->samples == NULL) {
            for (int k = 0; k < g; k++)
                free(out->gpus[k].samples);
            free(out->gpus);
            out->gpus = NULL;
            return false;
        }
        memcpy(gpu->samples, block + at, bytes);
        at += bytes;
    }
    return true;
}

/* nvmlClocksEventReasons (nvml.h): bit, words; bit 0 (idle) is no throttle */
static const struct {
    long long bit;
    const char *text;
} health__reasons[] = {
    {0x2, "application clocks"}, {0x4, "sw power cap"},         {0x8, "hw slowdown"},
    {0x10, "sync boost"},        {0x20, "sw thermal slowdown"}, {0x40, "hw thermal slowdown"},
    {0x80, "hw power brake"},    {0x100, "display clocks"},
};

const char *sc_throttle_text(long long reasons, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; reasons > 0 && i < sizeof(health__reasons) / sizeof(health__reasons[0]); i++)
        if ((reasons & health__reasons[i].bit) && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                     health__reasons[i].text);
    if (buf[0] == '\0')
        snprintf(buf, len, "%s", reasons < 0 ? "not reported" : "none");
    return buf;
}
