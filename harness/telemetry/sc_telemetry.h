/* sc_telemetry.h - samples every GPU of this host in the background during a run (NVML), and
 * summarises what the stability checks need: the hottest temperature, ECC errors that appeared,
 * throttling, NVLinks down. Without NVML the summary says why, and nothing fails. */
#ifndef SC_TELEMETRY_H
#define SC_TELEMETRY_H

#include <jansson.h>

typedef struct sc_telemetry sc_telemetry_t;

/* Starts sampling at interval_s (first sample at once). Never fails: when NVML or the thread is
 * not available the result of sc_telemetry_finish says so. */
sc_telemetry_t *sc_telemetry_start(double interval_s, const char *host);

/* Takes a last sample, stops, frees, and returns a new JSON object: {"host", "available",
 * "reason" (when not available), "interval_s", "gpus": [{"index", "name", "bus_id", "samples",
 * "max_temp_c", "max_power_w", "ecc_uncorrected_new", "ecc_corrected_new", "throttled_samples",
 * "min_nvlinks_up"}], "samples_dropped"}. */
json_t *sc_telemetry_finish(sc_telemetry_t *t);

#endif
