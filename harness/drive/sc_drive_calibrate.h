/* sc_drive_calibrate.h - `scalecheck calibrate` driven from what was asked (sc_drive_calibrate.c).
 */
#ifndef SC_DRIVE_CALIBRATE_H
#define SC_DRIVE_CALIBRATE_H

#include <stdbool.h>

#include "calibrate/sc_calibrate.h"
#include "record/sc_common_opts.h"
#include "rte/sc_rte.h"

typedef struct {
    sc_calibrate_opts_t m;
    sc_common_opts_t common; /* the shared options: backend, results directory, timeout */
    bool help;
    const char *topology, *output;
    const char *workload;      /* -W: its products timed on each GPU too */
    const char *declared_path; /* where the load found --topology (a shipped name resolved) */
} sc_drive_calibrate_opts_t;

/* The calibration whole: the declared topology loaded, this machine measured, the calibrated
 * topology written (run directory and --output); every rank returns the exit code. */
int sc_drive_calibrate(const sc_rte_t *rte, const sc_drive_calibrate_opts_t *o);

#endif
