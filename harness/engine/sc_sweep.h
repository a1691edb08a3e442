/* sc_sweep.h - a measured case as a record, and the all-reduce sweep `run --sweep` measures
 * beside the training step. */
#ifndef SC_SWEEP_H
#define SC_SWEEP_H

#include "engine/sc_engine.h"
#include "engine/sc_watchdog.h"
#include "record/sc_record.h"

/* The case and its result as a row (no expectation yet); nranks: the communicator's size. */
void sc_case_row_fill(const sc_case_t *c, const sc_case_result_t *r, int nranks,
                      sc_case_row_t *row);

/* All-reduce (float) from min_bytes to max_bytes, each size `factor` times the last, `iters`
 * timed iterations each, on world: rows appended on every rank. Collective. */
sc_status_t sc_sweep_ladder(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd,
                            uint64_t min_bytes, uint64_t max_bytes, unsigned factor, int iters,
                            sc_case_rows_t *rows, sc_err_t *err);

/* Another look at one row of the sweep: measured once more, the faster of its looks kept
 * (row->looks counts them). Collective; the loop around it is sc_looks_run. */
sc_status_t sc_sweep_again(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd,
                           sc_case_row_t *row, sc_err_t *err);

/* Timed iterations per size of run's sweep (and of calibrate's ladders, which must be measured
 * the way the runs they judge are: a 16 MiB all-reduce here still speeds up after 20). */
#define SC_SWEEP_ITERS 20

/* The sizes `run` checks: 4 B to max_bytes by x4, SC_SWEEP_ITERS iterations each. Collective. */
sc_status_t sc_run_sweep(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd, uint64_t max_bytes,
                         sc_case_rows_t *rows, sc_err_t *err);

#endif
