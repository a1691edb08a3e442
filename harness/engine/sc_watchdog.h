/* sc_watchdog.h - bounds every wait on other ranks. A background thread watches a progress
 * counter the main thread bumps after each operation; when the counter has not moved for the
 * timeout while armed, it prints which operation, which size and which peers/hosts this rank
 * was waiting on, runs the owner's hook (keep finished results), and ends the job with exit
 * code 3. Blocking MPI calls cannot be interrupted, hence a thread (docs/REFERENCE.md §5). */
#ifndef SC_WATCHDOG_H
#define SC_WATCHDOG_H

#include <stdatomic.h>
#include <stdint.h>

#include "engine/sc_progress.h"
#include "rte/sc_rte.h"

typedef struct sc_watchdog sc_watchdog_t;

/* How the job ends when the watchdog ends it. */
typedef struct {
    const char *state;   /* "failed" (a timeout) or "interrupted" (a signal) */
    char reason[640];    /* what happened, from this rank */
    char at_fault[1024]; /* the ranks the progress records point at, or "" */
    int exit_code;       /* 3 (timeout) or 4 (interrupted) */
} sc_watchdog_end_t;

/* Called on the watchdog thread just before the process ends (keep what finished, write the
 * final state). */
typedef void (*sc_watchdog_hook_t)(void *arg, const sc_watchdog_end_t *end);

/* The watchdog's two bounds: on a wait without progress, and on the whole run from the start
 * (rank 0 keeps it: the job ends once, with one final state). <= 0: none. */
typedef struct {
    double timeout_s;
    double deadline_s;
} sc_watchdog_bounds_t;

/* Starts the watchdog thread. Neither bound set disables it (every call below is then a
 * no-op). */
sc_status_t sc_watchdog_start(const sc_rte_t *rte, const sc_watchdog_bounds_t *bounds,
                              sc_watchdog_hook_t hook, void *hook_arg, sc_watchdog_t **out,
                              sc_err_t *err);
void sc_watchdog_stop(sc_watchdog_t *wd);

/* The progress records the watchdog keeps this rank's slot of, and reads when it ends the job
 * (NULL: none). */
void sc_watchdog_attach(sc_watchdog_t *wd, sc_progress_t *progress);

/* SIGINT, SIGTERM and SIGHUP are caught from now on: the watchdog thread (within 50 ms) writes
 * the final state through its hook and ends the process with exit code 4. Without a watchdog
 * (--timeout 0) the signals keep their default action. */
void sc_watchdog_catch_signals(const sc_watchdog_t *wd);

/* Arms the watchdog for a phase of waiting: `what` describes the operation ("allreduce 1M
 * float sum in-place"), peers the ranks (world numbering) it waits on. Copies both. */
void sc_watchdog_arm(sc_watchdog_t *wd, const char *what, const int *peers, int npeers);
/* Stops watching (local work: data check, writing results). */
void sc_watchdog_disarm(sc_watchdog_t *wd);
/* pairs: this rank's pair just measured, into its progress record (sc_progress_pair). */
void sc_watchdog_note_pair(sc_watchdog_t *wd, int me, int peer, const double figs[3]);

/* Rank 0's decision (n bytes at buf) to every rank of control, the wait for it watched (what:
 * the decision, for the watchdog's message) and an MPI error named with rank and host. wd may
 * be NULL. Collective. */
sc_status_t sc_watchdog_bcast(sc_watchdog_t *wd, const sc_rte_t *rte, MPI_Comm control,
                              const char *what, void *buf, int n, sc_err_t *err);

/* Progress counter the hot loop bumps after every completed operation (one relaxed store). */
atomic_uint_fast64_t *sc_watchdog_progress(sc_watchdog_t *wd);

static inline void sc_watchdog_tick(atomic_uint_fast64_t *progress)
{
    if (progress != NULL)
        atomic_store_explicit(progress, atomic_load_explicit(progress, memory_order_relaxed) + 1,
                              memory_order_relaxed);
}

#endif
