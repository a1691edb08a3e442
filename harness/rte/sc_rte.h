/* sc_rte.h - the run-time environment: MPI bootstrap, who this rank is, which host it is on,
 * its index among the ranks of its host (what picks a GPU), and every rank's host name. */
#ifndef SC_RTE_H
#define SC_RTE_H

#include <mpi.h>
#include <stddef.h> /* size_t: MPICH's mpi.h does not bring it, Open MPI's does */

#include "util/sc_status.h"

#define SC_HOST_MAX 64

typedef struct {
    MPI_Comm world; /* duplicate of MPI_COMM_WORLD, errors returned, not fatal */
    int rank;
    int size;
    int local_rank; /* index among the ranks of this host */
    int local_size; /* ranks on this host */
    int nhosts;     /* distinct hosts */
    char host[SC_HOST_MAX];
    char (*hosts)[SC_HOST_MAX]; /* hosts[r]: host name of rank r */
    int *host_index;            /* host_index[r]: index of rank r's host, 0..nhosts-1 */
    char mpi_version[256];      /* MPI_Get_library_version, first line */
} sc_rte_t;

/* Initialises MPI (thread level SINGLE: only the main thread calls MPI, and the helper threads
 * never do) and fills rte. */
sc_status_t sc_rte_init(int *argc, char ***argv, sc_rte_t *rte, sc_err_t *err);

/* For commands that need no peers (model, judge, report, validate, plan, version): started
 * without a launcher, a one-rank rte without MPI (world MPI_COMM_NULL) - no MPI start-up to
 * pay; under mpirun or srun, sc_rte_init. */
sc_status_t sc_rte_init_alone(int *argc, char ***argv, sc_rte_t *rte, sc_err_t *err);

/* The start's bound (sc_rte_guard.c): every wait on the other ranks between MPI_Init and the
 * watchdog's start ends the process with exit code 3 once it has made no progress for seconds
 * (<= 0: no bound). Set before sc_rte_init (the command's --timeout, its default otherwise). */
void sc_rte_guard_bound(double seconds);
/* A stage of the start begins (what: "the hosts' names"): the bound's clock starts again; what
 * NULL: the waits paused (the rank's own work). Nothing once released. */
void sc_rte_guard_stage(const sc_rte_t *rte, const char *what);
/* The start is over (the watchdog takes over, or the command ended): the guard stops. */
void sc_rte_guard_release(void);

/* Frees rte and finalises MPI when it was started. */
void sc_rte_fini(sc_rte_t *rte);

/* Ends the job with code (MPI_Abort on rte's world), and this process within
 * SC_RTE_ABORT_BOUND_S seconds whatever MPI_Abort does: MPICH 4.0's, called by every rank at
 * once under hydra's -disable-auto-cleanup, spun for ever in some of them (measured: 3 runs in 6
 * on a loaded host, a full disk every rank had agreed on). Never returns. */
#define SC_RTE_ABORT_BOUND_S 5
_Noreturn void sc_rte_abort(const sc_rte_t *rte, int code);

/* Formats the ranks [first, first+count) (stride 1) or a list, with their distinct hosts, for a
 * "waiting on ..." message: "ranks 0-3 on hosts a, b". */
void sc_rte_describe_ranks(const sc_rte_t *rte, const int *ranks, int nranks, char *buf,
                           size_t len);

/* Waits for req without spinning: tests it, and sleeps ~100 us between tests. For ranks that
 * only wait while others measure (pairs run one at a time), so that they leave the cores to the
 * ranks being measured; a busy MPI wait takes a core each. The bound is the caller's watchdog. */
sc_status_t sc_rte_quiet_wait(const sc_rte_t *rte, MPI_Request *req, const char *what,
                              sc_err_t *err);

/* A barrier on comm waited for with sc_rte_quiet_wait. */
sc_status_t sc_rte_quiet_barrier(const sc_rte_t *rte, MPI_Comm comm, sc_err_t *err);

/* Every rank learns the outcome of the lowest rank whose own was not SC_OK: that rank's status
 * and why (len bytes, the same len on every rank) go into err on every rank, so that all leave
 * the same way; SC_OK when every rank's was. Collective over rte->world (none when alone). */
sc_status_t sc_rte_agree(const sc_rte_t *rte, sc_status_t mine, char *why, size_t len,
                         sc_err_t *err);

/* MPI_Waitall and MPI_Testall of n requests, their statuses ignored: the one place that passes
 * MPI_STATUSES_IGNORE, which MPICH defines as (MPI_Status *)1 and GCC 12 then takes for a
 * buffer too small for n statuses (a false -Wstringop-overflow). */
int sc_rte_waitall(int n, MPI_Request *reqs);
int sc_rte_testall(int n, MPI_Request *reqs, int *flag);

/* Turns an MPI error code into err with the operation's name and this rank's context. */
sc_status_t sc_rte_mpi_error(const sc_rte_t *rte, int mpi_rc, const char *what, sc_err_t *err);

#endif
