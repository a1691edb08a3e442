#include "sc_rte.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/sc_test_fault.h"

static sc_status_t rte__gather_hosts(sc_rte_t *rte, sc_err_t *err)
{
    rte->hosts = calloc((size_t)rte->size, SC_HOST_MAX);
    rte->host_index = calloc((size_t)rte->size, sizeof(int));
    if (rte->hosts == NULL || rte->host_index == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d: no memory for the host table", rte->rank);
    sc_rte_guard_stage(rte, "MPI_Allgather of the hosts' names");
    int rc = MPI_Allgather(rte->host, SC_HOST_MAX, MPI_CHAR, rte->hosts, SC_HOST_MAX, MPI_CHAR,
                           rte->world);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(rte, rc, "MPI_Allgather(host names)", err);
    rte->nhosts = 0;
    for (int r = 0; r < rte->size; r++) {
        int found = -1;
        for (int q = 0; q < r && found < 0; q++)
            if (strcmp(rte->hosts[q], rte->hosts[r]) == 0)
                found = rte->host_index[q];
        rte->host_index[r] = found >= 0 ? found : rte->nhosts++;
    }
    return SC_OK;
}

/* The library's name and version, its first line: "Open MPI v4.1.4", "MPICH Version: 4.0.2"
 * (MPICH's tab made a space). */
static void rte__mpi_version(sc_rte_t *rte)
{
    int len = 0;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n,")] = '\0';
    for (char *c = version; *c; c++)
        *c = *c == '\t' ? ' ' : *c;
    snprintf(rte->mpi_version, sizeof(rte->mpi_version), "%s", version);
}

sc_status_t sc_rte_init(int *argc, char ***argv, sc_rte_t *rte, sc_err_t *err)
{
    memset(rte, 0, sizeof(*rte));
    int provided = 0;
    /* SINGLE, as nccl-tests and OSU's MPI_Init: the helper threads (watchdog, telemetry, the
     * async writer, NCCL's and CUDA's own) never call MPI. Open MPI turns its locks on for any
     * level above SINGLE (opal_set_using_threads when provided != MPI_THREAD_SINGLE): a 1 KB
     * 2-rank MPI_Allreduce took 0.79-0.85 us at FUNNELED against 0.65-0.69 us at SINGLE here,
     * and every host-path figure would have measured those locks (docs/endings.md, "Bounded
     * waits"). */
    /* A peer that dies (killed, its host gone) leaves its sockets closed: a write to one must
     * fail (EPIPE) rather than kill this rank with SIGPIPE, or the job would blame this rank and
     * not the dead one the watchdog names (a TCP BTL write in flight when rank 2 was killed took
     * rank 0 down once, "ended by signal 13"). MPI's threads inherit it. */
    signal(SIGPIPE, SIG_IGN);
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return sc_err_set(err, SC_ERR_RUNTIME, "MPI_Init_thread failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &rte->rank); /* local: no peer is asked */
    MPI_Comm_size(MPI_COMM_WORLD, &rte->size);
    if (gethostname(rte->host, sizeof(rte->host) - 1) != 0)
        snprintf(rte->host, sizeof(rte->host), "unknown");
    /* the first waits on the other ranks: bounded from here (sc_rte_guard.c) */
    sc_rte_guard_stage(rte, "MPI_Comm_dup of the world: the first connections");
    const char *hang = sc_test_fault("start-hang"); /* a rank whose connections never complete */
    while (hang != NULL && atoi(hang) == rte->rank)
        pause();
    MPI_Comm_dup(MPI_COMM_WORLD, &rte->world);
    MPI_Comm_set_errhandler(rte->world, MPI_ERRORS_RETURN);

    rte__mpi_version(rte);

    MPI_Comm local;
    sc_rte_guard_stage(rte, "MPI_Comm_split_type: the ranks of each host");
    int rc =
        MPI_Comm_split_type(rte->world, MPI_COMM_TYPE_SHARED, rte->rank, MPI_INFO_NULL, &local);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(rte, rc, "MPI_Comm_split_type(shared)", err);
    MPI_Comm_rank(local, &rte->local_rank);
    MPI_Comm_size(local, &rte->local_size);
    MPI_Comm_free(&local);
    sc_status_t status = rte__gather_hosts(rte, err);
    sc_rte_guard_stage(rte, NULL);
    return status;
}

/* Launchers set one of these in every rank they start. */
static bool rte__launched(void)
{
    static const char *const vars[] = {
        "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",     "PMIX_RANK", "PMI_RANK",
        "MPI_LOCALNRANKS",      "SLURM_STEP_ID"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (getenv(vars[i]) != NULL)
            return true;
    return false;
}

sc_status_t sc_rte_init_alone(int *argc, char ***argv, sc_rte_t *rte, sc_err_t *err)
{
    if (rte__launched())
        return sc_rte_init(argc, argv, rte, err);
    memset(rte, 0, sizeof(*rte));
    rte->world = MPI_COMM_NULL;
    rte->size = rte->local_size = rte->nhosts = 1;
    if (gethostname(rte->host, sizeof(rte->host) - 1) != 0)
        snprintf(rte->host, sizeof(rte->host), "unknown");
    rte__mpi_version(rte); /* MPI_Get_library_version is allowed before MPI_Init (MPI-3) */
    rte->hosts = calloc(1, sizeof(*rte->hosts));
    rte->host_index = calloc(1, sizeof(int));
    if (rte->hosts == NULL || rte->host_index == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "no memory");
    memcpy(rte->hosts[0], rte->host, SC_HOST_MAX);
    return SC_OK;
}

static volatile sig_atomic_t rte__abort_code = 3;

static void rte__abort_expired(int sig)
{
    (void)sig;
    _exit(rte__abort_code); /* async-signal-safe: the bound on a stuck MPI_Abort */
}

_Noreturn void sc_rte_abort(const sc_rte_t *rte, int code)
{
    fflush(stdout);
    fflush(stderr);
    rte__abort_code = code;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = rte__abort_expired;
    sigaction(SIGALRM, &sa, NULL);
    alarm(SC_RTE_ABORT_BOUND_S);
    if (rte->world != MPI_COMM_NULL)
        MPI_Abort(rte->world, code);
    _exit(code);
}

void sc_rte_fini(sc_rte_t *rte)
{
    sc_rte_guard_release();
    free(rte->hosts);
    free(rte->host_index);
    rte->hosts = NULL;
    rte->host_index = NULL;
    if (rte->world != MPI_COMM_NULL && rte->world != 0)
        MPI_Comm_free(&rte->world);
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised)
        MPI_Finalize();
}

static size_t rte__append(char *buf, size_t len, size_t used, const char *fmt, int a, int b)
{
    if (used >= len)
        return used;
    int n = (a == b) ? snprintf(buf + used, len - used, fmt, a)
                     : snprintf(buf + used, len - used, "%d-%d", a, b);
    return n > 0 ? used + (size_t)n : used;
}

void sc_rte_describe_ranks(const sc_rte_t *rte, const int *ranks, int nranks, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "rank%s ", nranks == 1 ? "" : "s");
    for (int i = 0; i < nranks;) {
        int j = i;
        while (j + 1 < nranks && ranks[j + 1] == ranks[j] + 1)
            j++;
        if (i > 0 && used < len)
            used += (size_t)snprintf(buf + used, len - used, ",");
        used = rte__append(buf, len, used, "%d", ranks[i], ranks[j]);
        i = j + 1;
    }
    char hosts[512] = "";
    size_t hosts_used = 0;
    int listed = 0;
    for (int h = 0; h < rte->nhosts && hosts_used < sizeof(hosts); h++) {
        for (int i = 0; i < nranks; i++) {
            int r = ranks[i];
            if (rte->host_index[r] != h)
                continue;
            hosts_used += (size_t)snprintf(hosts + hosts_used, sizeof(hosts) - hosts_used, "%s%s",
                                           listed++ ? ", " : " ", rte->hosts[r]);
            break;
        }
    }
    if (used < len)
        snprintf(buf + used, len - used, " on host%s%s", listed == 1 ? "" : "s", hosts);
}

sc_status_t sc_rte_agree(const sc_rte_t *rte, sc_status_t mine, char *why, size_t len,
                         sc_err_t *err)
{
    int first_bad = mine == SC_OK ? rte->size : rte->rank;
    sc_rte_guard_stage(rte, "agreeing whether every rank can go on");
    if (rte->world != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, &first_bad, 1, MPI_INT, MPI_MIN, rte->world);
    int status = (int)mine;
    if (first_bad != rte->size && rte->world != MPI_COMM_NULL) {
        MPI_Bcast(&status, 1, MPI_INT, first_bad, rte->world);
        MPI_Bcast(why, (int)len, MPI_CHAR, first_bad, rte->world);
    }
    sc_rte_guard_stage(rte, NULL);
    return first_bad == rte->size ? SC_OK : sc_err_set(err, (sc_status_t)status, "%s", why);
}

sc_status_t sc_rte_mpi_error(const sc_rte_t *rte, int mpi_rc, const char *what, sc_err_t *err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof(text), "MPI error %d", mpi_rc);
    return sc_err_set(err, SC_ERR_RUNTIME, "rank %d (host %s): %s failed: %s", rte->rank, rte->host,
                      what, text);
}

sc_status_t sc_rte_quiet_wait(const sc_rte_t *rte, MPI_Request *req, const char *what,
                              sc_err_t *err)
{
    const struct timespec nap = {.tv_sec = 0, .tv_nsec = 100000};
    for (;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return sc_rte_mpi_error(rte, rc, what, err);
        if (done)
            return SC_OK;
        nanosleep(&nap, NULL);
    }
}

sc_status_t sc_rte_quiet_barrier(const sc_rte_t *rte, MPI_Comm comm, sc_err_t *err)
{
    MPI_Request req;
    int rc = MPI_Ibarrier(comm, &req);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(rte, rc, "MPI_Ibarrier", err);
    return sc_rte_quiet_wait(rte, &req, "MPI_Ibarrier", err);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
int sc_rte_waitall(int n, MPI_Request *reqs)
{
    return MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
}

int sc_rte_testall(int n, MPI_Request *reqs, int *flag)
{
    return MPI_Testall(n, reqs, flag, MPI_STATUSES_IGNORE);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
