/* sc_rte_guard.c - the bound on a start. Between MPI_Init and the watchdog's start a rank waits
 * on the others (MPI_Comm_dup of the world, the hosts' names, the session's agreements, the
 * backend's opening) with nothing watching: a peer whose connection never completes (Open MPI's
 * TCP BTL prints "failed to TCP connect ... may now hang" and does) held such a job for ever.
 * A thread renews its clock at each stage and, when one makes no progress for the start's bound,
 * says which and ends the process with exit code 3, as the watchdog would. It never calls MPI
 * (MPI runs at MPI_THREAD_SINGLE). */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sc_rte.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* on CLOCK_MONOTONIC */
    pthread_t thread;
    bool running;
    bool released;  /* the watchdog took over: a stage no longer starts the guard */
    bool paused;    /* between waits: the rank's own work is not bounded here */
    double bound_s; /* <= 0: none */
    unsigned stage; /* renewed at every stage: the clock starts again */
    char who[96];   /* "rank 3 (host h2)" */
    char what[160]; /* the stage waited in */
} guard = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void guard__deadline(struct timespec *at)
{
    clock_gettime(CLOCK_MONOTONIC, at);
    double whole = (double)(time_t)guard.bound_s, rest = guard.bound_s - whole;
    at->tv_sec += (time_t)whole;
    at->tv_nsec += (long)(rest * 1e9);
    if (at->tv_nsec >= 1000000000L) {
        at->tv_sec++;
        at->tv_nsec -= 1000000000L;
    }
}

/* Ends the process: what it waited in, on stderr (write(2): the main thread may hold stdio's
 * locks), in the words the launcher reads ("ending the job (exit 3)"). Called with the lock. */
static _Noreturn void guard__expired(void)
{
    char msg[512];
    snprintf(msg, sizeof(msg),
             "scalecheck: %s: timeout: no answer from the other ranks for %.0f s while starting "
             "(%s): a host that cannot reach the others (a cut link, a firewall, another "
             "network's address); ending the job (exit 3)\n",
             guard.who, guard.bound_s, guard.what);
    ssize_t ignored = write(STDERR_FILENO, msg, strlen(msg));
    (void)ignored;
    _exit(3);
}

static void *guard__main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&guard.lock);
    while (guard.running) {
        unsigned stage = guard.stage;
        struct timespec at;
        guard__deadline(&at);
        int rc = 0;
        while (guard.running && guard.stage == stage && (guard.paused || rc == 0))
            rc = guard.paused ? pthread_cond_wait(&guard.changed, &guard.lock)
                              : pthread_cond_timedwait(&guard.changed, &guard.lock, &at);
        if (guard.running && guard.stage == stage && !guard.paused)
            guard__expired();
    }
    pthread_mutex_unlock(&guard.lock);
    return NULL;
}

void sc_rte_guard_bound(double seconds)
{
    pthread_mutex_lock(&guard.lock);
    guard.bound_s = isfinite(seconds) ? seconds : 0.0; /* what a time_t holds */
    pthread_mutex_unlock(&guard.lock);
}

void sc_rte_guard_stage(const sc_rte_t *rte, const char *what)
{
    pthread_mutex_lock(&guard.lock);
    if (guard.released) {
        pthread_mutex_unlock(&guard.lock);
        return;
    }
    if (guard.bound_s > 0 && !guard.running && what != NULL) {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&guard.changed, &attr);
        pthread_condattr_destroy(&attr);
        guard.running = pthread_create(&guard.thread, NULL, guard__main, NULL) == 0;
    }
    snprintf(guard.who, sizeof(guard.who), "rank %d (host %s)", rte->rank, rte->host);
    snprintf(guard.what, sizeof(guard.what), "%s", what != NULL ? what : "");
    guard.paused = what == NULL;
    guard.stage++;
    if (guard.running)
        pthread_cond_signal(&guard.changed);
    pthread_mutex_unlock(&guard.lock);
}

void sc_rte_guard_release(void)
{
    pthread_mutex_lock(&guard.lock);
    bool was = guard.running;
    guard.running = false;
    guard.released = true;
    if (was)
        pthread_cond_signal(&guard.changed);
    pthread_mutex_unlock(&guard.lock);
    if (was) {
        pthread_join(guard.thread, NULL);
        pthread_cond_destroy(&guard.changed);
    }
}
