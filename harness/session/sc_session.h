/* sc_session.h - what every measuring command opens and closes the same way: the backend's
 * world communicator (with the auto choice explained), rank 0's results directory (agreed by
 * every rank before anything runs), the watchdog that bounds every wait, and the background GPU
 * telemetry of each host. */
#ifndef SC_SESSION_H
#define SC_SESSION_H

#include <pthread.h>

#include "comm/sc_backend.h"
#include "record/sc_common_opts.h"
#include "engine/sc_watchdog.h"
#include "session/sc_results.h"
#include "telemetry/sc_host_load.h"
#include "telemetry/sc_telemetry.h"

/* What a session is opened from: the shared options the command was given (the backend, the
 * device, the bounds, the telemetry, where the run directory goes and its name), and the rest
 * of what the command says. */
typedef struct {
    const sc_common_opts_t *common;
    const char *default_name; /* the run directory's name when common->name is "" */
    const char *reuse_dir;    /* an earlier run's directory to carry on in (NULL: a new one) */
    bool register_buffers;    /* sc_backend_opts_t's */
} sc_session_opts_t;

/* What the command does when the watchdog ends the job (rank 0: the final state into its
 * result document on disk). Runs on the watchdog thread, under the session's write lock. */
typedef void (*sc_session_end_fn)(void *arg, const char *dir, const sc_watchdog_end_t *end);

typedef struct {
    const sc_rte_t *rte;
    const sc_common_opts_t *asked; /* what the session was opened from (the result header's) */
    sc_comm_t *world;
    char note[512]; /* how --backend auto chose, or "" */
    sc_results_t res;
    sc_watchdog_t *wd;
    sc_progress_t *progress; /* the ranks' progress records in the run directory, or NULL */
    char progress_path[PATH_MAX];
    sc_telemetry_t *telemetry;
    bool sampling;
    sc_session_end_fn on_end;
    void *on_end_arg;
    pthread_mutex_t write_lock;      /* held while the result document is written */
    bool error_said;                 /* sc_session_say printed the error already */
    char no_sysfs_host[SC_HOST_MAX]; /* rank 0: a host without /sys/devices/system/cpu, or "" */
} sc_session_t;

/* Opens everything; collective. On error nothing is left open and every rank has the same
 * status (a usage error is reported once, by rank 0, by the caller). */
sc_status_t sc_session_open(sc_session_t *s, const sc_rte_t *rte, const sc_session_opts_t *o,
                            sc_err_t *err);
/* Sets what rank 0 does when the watchdog ends the job (a timeout, a signal). */
void sc_session_on_end(sc_session_t *s, sc_session_end_fn fn, void *arg);
/* Held around every write of the result document, so that the watchdog's final state is never
 * overwritten by, or mixed with, one the main thread was writing. */
void sc_session_lock(sc_session_t *s);
void sc_session_unlock(sc_session_t *s);
/* The ranks the progress records point at, in words ("" none); their count. */
int sc_session_culprits(const sc_session_t *s, char *buf, size_t len);
/* Whether this host runs more ranks than it has cores online ("4 ranks on 2 cores
 * of host vm" into buf): there the scheduler alone can make any rank the slowest, and a
 * straggler found is no verdict on the hardware. "" and false otherwise. */
bool sc_session_crowded(const sc_rte_t *rte, char *buf, size_t len);

/* Every rank's backend description (versions, GPU, NCCL_* variables): rte->size lists on
 * rank 0 (free each, then the array), NULL elsewhere. Collective. */
sc_kvs_t *sc_session_rank_info(sc_session_t *s);
/* Stops the sampling: the hosts' telemetry on rank 0 (*hosts NULL elsewhere, or when sampling
 * was off; free with sc_health_free). Collective. */
void sc_session_telemetry(sc_session_t *s, sc_health_t **hosts, int *nhosts);
/* The most cores other processes kept busy on any host since from (every rank's mark), averaged
 * over the time, into *cores: the host's busy time less what its ranks used themselves; that
 * host's name into host. -1 when no host could tell (no /proc/stat). On rank 0; collective. */
sc_status_t sc_session_foreign_load(sc_session_t *s, const sc_load_mark_t *from, double *cores,
                                    char *host, size_t len, sc_err_t *err);
/* Every sampling rank's telemetry (mine: NULL where this rank did not sample; cleared) to
 * rank 0, in rank order (*hosts NULL elsewhere; free with sc_health_free). Collective. */
void sc_health_gather(const sc_rte_t *rte, sc_health_t *mine, sc_health_t **hosts, int *nhosts);
/* How every measuring command ends, on every rank, before it frees anything collective: an
 * error is printed as "scalecheck CMD: ..." (a usage error, which every rank has, by rank 0
 * only); a runtime fault (exit code 3) ends the job at once, as peers may be stuck in a
 * collective; otherwise rank 0's `failed` (1: a check failed) goes to every rank, the wait
 * watched (rank 0 may still be writing the report; s may be a session that never opened).
 * Returns the exit code: the error's, else 1 when failed, else 0. */
int sc_session_finish(sc_session_t *s, const sc_rte_t *rte, const char *cmd, sc_status_t status,
                      const sc_err_t *err, int failed);
/* The error line sc_session_finish prints ("scalecheck CMD: ...; at fault: ..."), printed now and
 * not again: rank 0 says it before it writes the failed run's documents, which a peer's
 * MPI_Abort may cut short. */
void sc_session_say(sc_session_t *s, const sc_rte_t *rte, const char *cmd, sc_status_t status,
                    const sc_err_t *err);
void sc_session_close(sc_session_t *s);

#endif
