/* sc_drive_soak.h - `scalecheck soak` driven from what was asked: the stability run's launch,
 * its resume from the journal, the cycles and the verdict (sc_drive_soak.c). */
#ifndef SC_DRIVE_SOAK_H
#define SC_DRIVE_SOAK_H

#include <stdbool.h>
#include <stdint.h>

#include "record/sc_common_opts.h"
#include "rte/sc_rte.h"
#include "util/sc_status.h"

typedef struct {
    sc_common_opts_t common; /* the shared options: backend, files, bounds */
    const char *workload, *topology, *duration, *resume, *mode;
    const char *load;     /* "step" or "burn" */
    int burn_size;        /* --load burn: the products' matrices */
    uint64_t burn_stream; /* --load burn: the memory stream's buffer */
    uint64_t sweep_min, sweep_max, pair_size;
    int sweep_iters, steps, warmup;
    double bytes_scale, compute_scale, max_drift, telemetry_s, cycle_s, pair_tolerance;
    bool help;
} sc_soak_opts_t;

/* Parses a soak's arguments (argv[2..)) into o from its defaults: a resumed soak's options are
 * the journal's arguments parsed as the first launch's were (the cli's table). */
typedef sc_status_t (*sc_soak_parse_t)(int argc, char **argv, sc_soak_opts_t *o, sc_err_t *err);

/* The soak whole from opts (argv: this launch's, kept in the journal; with --resume the
 * journal's arguments are parsed again by reparse); every rank returns the exit code.
 * Collective. */
int sc_drive_soak(const sc_rte_t *rte, const sc_soak_opts_t *opts, sc_soak_parse_t reparse,
                  int argc, char **argv);

#endif
