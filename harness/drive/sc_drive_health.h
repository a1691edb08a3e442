/* sc_drive_health.h - `scalecheck health` driven from what was asked: one node's GPUs, ports
 * and an all-reduce across its ranks, held to the topology (sc_drive_health.c). */
#ifndef SC_DRIVE_HEALTH_H
#define SC_DRIVE_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "record/sc_common_opts.h"
#include "rte/sc_rte.h"

typedef struct {
    sc_common_opts_t common; /* the shared options: backend, results directory, timeout */
    const char *topology;
    double max_temp_c;
    uint64_t size;
    bool help;
} sc_drive_health_opts_t;

/* The node's check whole; every rank returns the exit code (0 healthy, 1 a check failed: the
 * first line says which). argv is recorded in the document only. Collective. */
int sc_drive_health(const sc_rte_t *rte, const sc_drive_health_opts_t *o, int argc, char **argv);

#endif
