#include "sc_watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm/sc_backend.h"
#include "util/sc_clock.h"

#define SC__WATCHDOG_POLL_NS 50000000ull /* 50 ms: the bound is timeout + 50 ms */
/* How long a rank whose watchdog ended the job waits for rank 0 to write the final state: rank 0
 * hears of it on its next poll, then writes result.json and the outputs beside it (seconds on a
 * loaded host: 8 ranks on 2 cores under a sanitizer) */
#define SC__WATCHDOG_WAIT_WRITER_MS 5000

struct sc_watchdog {
    const sc_rte_t *rte;
    uint64_t timeout_ns;  /* UINT64_MAX: none */
    uint64_t deadline_ns; /* from started_ns; 0: none */
    uint64_t started_ns;
    double deadline_s;
    sc_watchdog_hook_t hook;
    void *hook_arg;
    pthread_t thread;
    pthread_mutex_t lock; /* guards what, peers, armed, stop */
    bool armed;
    bool stop;
    char what[256];
    char peers[512];
    sc_progress_t *records;
    uint64_t *others_seen; /* the job's progress at the last poll (with records) */
    atomic_uint_fast64_t progress;
};

/* The signal that asked this process to stop, 0 while none did (set in the handler only), and
 * the semaphore that wakes the watchdog at once (sem_post is async-signal-safe): the launcher
 * may SIGKILL a rank soon after its SIGTERM once another rank has left, so the final state is
 * written right away, not at the next poll. */
static volatile sig_atomic_t watchdog__signal;
static sem_t watchdog__wake;
static atomic_bool watchdog__wake_ready;

static void watchdog__on_signal(int signo)
{
    watchdog__signal = signo;
    if (atomic_load(&watchdog__wake_ready))
        sem_post(&watchdog__wake);
}

/* One poll interval, cut short by a signal. */
static void watchdog__nap(void)
{
    struct timespec until = sc_clock_deadline(SC__WATCHDOG_POLL_NS);
    if (atomic_load(&watchdog__wake_ready)) {
        while (sem_timedwait(&watchdog__wake, &until) != 0 && errno == EINTR &&
               watchdog__signal == 0)
            ;
        return;
    }
    struct timespec nap = {0, (long)SC__WATCHDOG_POLL_NS};
    nanosleep(&nap, NULL);
}

/* Ends the process: the hook (the final state), the reason on stderr, then _exit. */
static void watchdog__watchdog_end(sc_watchdog_t *wd, sc_watchdog_end_t *end,
                                   sc_progress_state_t mine)
{
    if (mine == SC_PROGRESS_TIMEOUT) { /* stuck: who is not where the others wait */
        /* or, when the launcher already woke the culprit (SIGCONT before SIGTERM), whom a
         * rank that fired earlier found */
        /* a stalled GPU has been still for a good part of the wait (half of it) */
        uint64_t still_ms = wd->timeout_ns / 2000000ull;
        if (sc_progress_culprits(wd->records, true, still_ms, end->at_fault,
                                 sizeof(end->at_fault)) == 0) {
            char who[96];
            sc_progress_peer_timed_out(wd->records, who, sizeof(who), end->at_fault,
                                       sizeof(end->at_fault));
        }
        sc_progress_note_fault(wd->records, end->at_fault); /* before the state says so */
    }
    /* the final state first: the launcher may kill this rank soon */
    if (wd->hook != NULL)
        wd->hook(wd->hook_arg, end);
    /* the record says so once the final state is written: rank 0's watchdog, which writes it,
     * hears of a peer's end on its next poll (watchdog__peer_ended) */
    sc_progress_beat(wd->records, atomic_load(&wd->progress), false, NULL, mine);
    /* then the communicators are aborted (bounded), so that their peers are released rather
     * than left waiting on this rank until their own timeouts (NCCL's fault tolerance) */
    sc_backend_abort_all(false);
    bool n = end->at_fault[0] != '\0';
    char msg[2048];
    snprintf(msg, sizeof(msg), "scalecheck: rank %d (host %s): %s%s%s; ending the job (exit %d)\n",
             wd->rte->rank, wd->rte->host, end->reason, n ? "; at fault: " : "", end->at_fault,
             end->exit_code);
    /* write(2) rather than stdio: the main thread may hold stdio's locks. */
    ssize_t ignored = write(STDERR_FILENO, msg, strlen(msg));
    (void)ignored;
    /* the ranks that do not write the final state leave only after the one that does (rank 0),
     * or after SC__WATCHDOG_WAIT_WRITER_MS: leaving is the launcher's cue to kill the job */
    sc_progress_wait_ended(wd->records, 0, SC__WATCHDOG_WAIT_WRITER_MS);
    /* Leaving without MPI_Finalize makes the launcher tear the whole job down (docs/REFERENCE.md
     * §5); MPI_Abort is not callable from this thread: MPI runs at MPI_THREAD_SINGLE. */
    _exit(end->exit_code);
}

static void watchdog__watchdog_fire(sc_watchdog_t *wd, double waited_s)
{
    sc_watchdog_end_t end = {.state = "failed", .exit_code = 3};
    pthread_mutex_lock(&wd->lock);
    snprintf(end.reason, sizeof(end.reason), "timeout: no progress for %.1f s in %s; waiting on %s",
             waited_s, wd->what, wd->peers);
    pthread_mutex_unlock(&wd->lock);
    watchdog__watchdog_end(wd, &end, SC_PROGRESS_TIMEOUT);
}

/* The run went on past --deadline: each wait made progress (a link at a fraction of its
 * speed), the whole did not end. Which host is slow takes a measurement, which the launcher
 * makes after the job (launch/mpirun.sh: a quick pair search); the reason says so. */
static void watchdog__watchdog_deadline(sc_watchdog_t *wd)
{
    sc_watchdog_end_t end = {.state = "failed", .exit_code = 3};
    pthread_mutex_lock(&wd->lock);
    snprintf(end.reason, sizeof(end.reason),
             "deadline: the run went on past --deadline %.0f s (%s %s; waiting on %s): a slow "
             "link or host; `scalecheck pairs --strategy quick` names it",
             wd->deadline_s, wd->armed ? "in" : "after", wd->what, wd->peers);
    pthread_mutex_unlock(&wd->lock);
    watchdog__watchdog_end(wd, &end, SC_PROGRESS_DEADLINE);
}

/* Another rank's watchdog fired and ends the job: this one ends too, with the final state
 * naming whom that rank found at fault (or whom this one sees). Rank 0 does so on its next
 * poll, not at the launcher's SIGTERM: the final state is its to write, and its main thread
 * may be busy past the time the launcher gives between SIGTERM and SIGKILL (issue 46: a 3D
 * run ended "running", nobody named). here: what this rank was told ("SIGTERM"), or NULL.
 * Returns false (nothing done) when no peer's watchdog fired. */
static bool watchdog__peer_ended(sc_watchdog_t *wd, const char *here, sc_progress_state_t mine)
{
    sc_watchdog_end_t end = {.state = "failed", .exit_code = 3};
    char who[96] = "";
    if (!sc_progress_peer_timed_out(wd->records, who, sizeof(who), end.at_fault,
                                    sizeof(end.at_fault)))
        return false;
    if (end.at_fault[0] == '\0') /* what this rank sees, then */
        sc_progress_culprits(wd->records, false, 0, end.at_fault, sizeof(end.at_fault));
    pthread_mutex_lock(&wd->lock);
    snprintf(end.reason, sizeof(end.reason),
             "timeout: %s found no progress for --timeout s and ended the job (%s%s%s %s%s%s)", who,
             here != NULL ? here : "", here != NULL ? " here " : "here ",
             wd->armed ? "while waiting in" : "after", wd->what, wd->armed ? "; waiting on " : "",
             wd->armed ? wd->peers : "");
    pthread_mutex_unlock(&wd->lock);
    watchdog__watchdog_end(wd, &end, mine);
    return true;
}

/* A signal that came while a rank was lost is the launcher ending the job for it: a runtime
 * fault (exit 3), not an interruption (exit 4). */
static void watchdog__watchdog_signalled(sc_watchdog_t *wd, int signo)
{
    sc_watchdog_end_t end = {.state = "interrupted", .exit_code = 4};
    char who[96] = "";
    const char *name = signo == SIGINT ? "SIGINT" : signo == SIGHUP ? "SIGHUP" : "SIGTERM";
    if (sc_progress_peer_at_deadline(wd->records, who, sizeof(who))) {
        end.state = "failed";
        end.exit_code = 3;
        snprintf(end.reason, sizeof(end.reason),
                 "deadline: %s ended the job at --deadline (%s here)", who, name);
        watchdog__watchdog_end(wd, &end, SC_PROGRESS_SIGNALLED);
    }
    if (watchdog__peer_ended(wd, name, SC_PROGRESS_SIGNALLED))
        return; /* not reached: it ended the process */
    bool lost = sc_progress_culprits(wd->records, false, 0, end.at_fault, sizeof(end.at_fault)) > 0;
    if (lost) {
        end.state = "failed";
        end.exit_code = 3;
    }
    pthread_mutex_lock(&wd->lock);
    snprintf(end.reason, sizeof(end.reason), "%s %s %s %s",
             lost ? "a rank was lost: the launcher ended the job with" : "interrupted by", name,
             wd->armed ? "while waiting in" : "after", wd->what);
    pthread_mutex_unlock(&wd->lock);
    watchdog__watchdog_end(wd, &end, SC_PROGRESS_SIGNALLED);
}

/* This rank's progress record, on every poll. */
static void watchdog__watchdog_beat(sc_watchdog_t *wd, uint64_t progress)
{
    if (wd->records == NULL)
        return;
    sc_device_progress_t device[SC_PROGRESS_COMMS];
    int n = sc_backend_device_progress(device, SC_PROGRESS_COMMS);
    if (n > 0)
        sc_progress_device(wd->records, device, n);
    pthread_mutex_lock(&wd->lock);
    sc_progress_beat(wd->records, progress, wd->armed, wd->what, SC_PROGRESS_RUNNING);
    pthread_mutex_unlock(&wd->lock);
}

static void *watchdog__watchdog_main(void *arg)
{
    sc_watchdog_t *wd = arg;
    uint64_t last_progress = atomic_load(&wd->progress);
    uint64_t last_change = sc_clock_ns(), last_poll = last_change;
    for (;;) {
        watchdog__nap();
        pthread_mutex_lock(&wd->lock);
        bool stop = wd->stop, armed = wd->armed;
        uint64_t *seen = wd->others_seen;
        const sc_progress_t *records = wd->records;
        pthread_mutex_unlock(&wd->lock);
        if (stop)
            return NULL;
        if (watchdog__signal != 0)
            watchdog__watchdog_signalled(wd, watchdog__signal);
        uint64_t now = sc_clock_ns();
        uint64_t progress = atomic_load(&wd->progress);
        watchdog__watchdog_beat(wd, progress);
        if (wd->rte->rank == 0 && records != NULL)
            watchdog__peer_ended(wd, NULL, SC_PROGRESS_FOLLOWED);
        bool others = seen != NULL && sc_progress_others_moved(records, seen);
        if (others) /* the backends' own bounds count from it too */
            sc_backend_job_moved();
        /* polls a second apart: this process was stopped itself (SIGSTOP, then SIGCONT) - the
         * others waited on it, it waited on nobody in that time */
        bool was_stopped = now - last_poll > 1000000000ull;
        if (wd->deadline_ns > 0 && now - wd->started_ns >= wd->deadline_ns)
            watchdog__watchdog_deadline(wd);
        last_poll = now;
        if (!armed || progress != last_progress || others || was_stopped) {
            last_progress = progress;
            last_change = now;
            continue;
        }
        if (now - last_change >= wd->timeout_ns)
            watchdog__watchdog_fire(wd, (double)(now - last_change) / 1e9);
    }
}

sc_status_t sc_watchdog_start(const sc_rte_t *rte, const sc_watchdog_bounds_t *bounds,
                              sc_watchdog_hook_t hook, void *hook_arg, sc_watchdog_t **out,
                              sc_err_t *err)
{
    *out = NULL;
    sc_rte_guard_release(); /* the start's bound ends: this one takes over */
    double timeout_s = bounds->timeout_s, deadline_s = rte->rank == 0 ? bounds->deadline_s : 0;
    if (timeout_s <= 0.0 && bounds->deadline_s <= 0.0)
        return SC_OK;
    sc_watchdog_t *wd = calloc(1, sizeof(*wd));
    if (wd == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the watchdog",
                          rte->rank, rte->host);
    wd->rte = rte;
    wd->timeout_ns = timeout_s > 0.0 ? (uint64_t)(timeout_s * 1e9) : UINT64_MAX;
    wd->deadline_s = deadline_s > 0.0 ? deadline_s : 0.0;
    wd->deadline_ns = (uint64_t)(wd->deadline_s * 1e9);
    wd->started_ns = sc_clock_ns();
    wd->hook = hook;
    wd->hook_arg = hook_arg;
    atomic_init(&wd->progress, 0);
    pthread_mutex_init(&wd->lock, NULL);
    snprintf(wd->what, sizeof(wd->what), "start-up");
    if (pthread_create(&wd->thread, NULL, watchdog__watchdog_main, wd) != 0) {
        pthread_mutex_destroy(&wd->lock);
        free(wd);
        return sc_err_set(err, SC_ERR_RUNTIME,
                          "rank %d (host %s): cannot start the watchdog thread", rte->rank,
                          rte->host);
    }
    *out = wd;
    return SC_OK;
}

void sc_watchdog_attach(sc_watchdog_t *wd, sc_progress_t *progress)
{
    if (wd == NULL)
        return;
    uint64_t *seen = calloc(((size_t)sc_progress_ranks(progress) + 1) * SC_PROGRESS_SEEN_PER_RANK,
                            sizeof(uint64_t));
    pthread_mutex_lock(&wd->lock);
    wd->records = progress;
    wd->others_seen = progress != NULL ? seen : NULL;
    pthread_mutex_unlock(&wd->lock);
    if (progress == NULL)
        free(seen);
}

void sc_watchdog_catch_signals(const sc_watchdog_t *wd)
{
    if (wd == NULL)
        return;
    if (!atomic_load(&watchdog__wake_ready) && sem_init(&watchdog__wake, 0, 0) == 0)
        atomic_store(&watchdog__wake_ready, true);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = watchdog__on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

void sc_watchdog_stop(sc_watchdog_t *wd)
{
    if (wd == NULL)
        return;
    pthread_mutex_lock(&wd->lock);
    wd->stop = true;
    pthread_mutex_unlock(&wd->lock);
    pthread_join(wd->thread, NULL);
    free(wd->others_seen);
    /* a clean end says so in its record; the signals go back to their default */
    sc_progress_beat(wd->records, atomic_load(&wd->progress), false, NULL, SC_PROGRESS_DONE);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    pthread_mutex_destroy(&wd->lock);
    free(wd);
}

void sc_watchdog_arm(sc_watchdog_t *wd, const char *what, const int *peers, int npeers)
{
    if (wd == NULL)
        return;
    pthread_mutex_lock(&wd->lock);
    snprintf(wd->what, sizeof(wd->what), "%s", what);
    sc_rte_describe_ranks(wd->rte, peers, npeers, wd->peers, sizeof(wd->peers));
    wd->armed = true;
    pthread_mutex_unlock(&wd->lock);
    sc_watchdog_tick(&wd->progress);
}

void sc_watchdog_note_pair(sc_watchdog_t *wd, int me, int peer, const double figs[3])
{
    if (wd == NULL)
        return;
    pthread_mutex_lock(&wd->lock);
    sc_progress_t *records = wd->records;
    pthread_mutex_unlock(&wd->lock);
    sc_progress_pair(records, me, peer, figs);
}

void sc_watchdog_disarm(sc_watchdog_t *wd)
{
    if (wd == NULL)
        return;
    pthread_mutex_lock(&wd->lock);
    wd->armed = false;
    pthread_mutex_unlock(&wd->lock);
}

atomic_uint_fast64_t *sc_watchdog_progress(sc_watchdog_t *wd)
{
    return wd != NULL ? &wd->progress : NULL;
}

sc_status_t sc_watchdog_bcast(sc_watchdog_t *wd, const sc_rte_t *rte, MPI_Comm control,
                              const char *what, void *buf, int n, sc_err_t *err)
{
    int root = 0;
    sc_watchdog_arm(wd, what, &root, 1);
    int rc = MPI_Bcast(buf, n, MPI_BYTE, 0, control);
    sc_watchdog_disarm(wd);
    char call[160];
    snprintf(call, sizeof(call), "MPI_Bcast(%s)", what);
    return rc == MPI_SUCCESS ? SC_OK : sc_rte_mpi_error(rte, rc, call, err);
}
