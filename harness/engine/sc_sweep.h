/* sc_sweep.h - the all-reduce sweep `run --sweep` measures beside the training step. */
#ifndef SC_SWEEP_H
#define SC_SWEEP_H

#include <jansson.h>

#include "engine/sc_engine.h"
#include "engine/sc_watchdog.h"

/* All-reduce (float) from 4 B to max_bytes by x4 on world: rows on every rank. Collective. */
sc_status_t sc_run_sweep(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd, uint64_t max_bytes,
                         json_t **out, sc_err_t *err);

#endif
