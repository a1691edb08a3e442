/* sc_telemetry.h - samples every GPU of this host in the background during a run (NVML), and
 * summarises what the stability checks need: the hottest temperature, ECC errors that appeared,
 * throttling, NVLinks down. Without NVML the summary says why, and nothing fails. */
#ifndef SC_TELEMETRY_H
#define SC_TELEMETRY_H

#include "record/sc_health.h"

typedef struct sc_telemetry sc_telemetry_t;

/* Starts sampling at interval_s (first sample at once). Never fails: when NVML or the thread is
 * not available the result of sc_telemetry_finish says so. */
sc_telemetry_t *sc_telemetry_start(double interval_s, const char *host);

/* Takes a last sample, stops, frees t, and fills out: the host, whether NVML was there (and
 * why not), and per GPU its samples and summary (free them with sc_health_clear). */
void sc_telemetry_finish(sc_telemetry_t *t, sc_health_t *out);

#endif
