/* sc_prometheus.h - a run's result as Prometheus metrics, in the text exposition format that
 * node_exporter's textfile collector reads (a *.prom file in its --collector.textfile.directory):
 * the verdict and each check's, the key figures (the largest size's bus bandwidth, scaling
 * efficiency and step time per point, each pair's bandwidth and latency, the suspects), the
 * hosts' telemetry maxima, preflight's differing hosts, and when it ran. Written whole or not at
 * all (a collector never reads half a file). */
#ifndef SC_PROMETHEUS_H
#define SC_PROMETHEUS_H

#include "record/sc_result.h"
#include "util/sc_status.h"

sc_status_t sc_prometheus_write(const char *path, const sc_result_t *r, sc_err_t *err);

#endif
