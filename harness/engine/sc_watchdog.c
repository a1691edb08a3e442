#include "sc_watchdog.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sc_clock.h"

#define SC__WATCHDOG_POLL_NS 50000000ull /* 50 ms: the bound is timeout + 50 ms */

struct sc_watchdog {
    const sc_rte_t *rte;
    uint64_t timeout_ns;
    sc_watchdog_hook_t hook;
    void *hook_arg;
    pthread_t thread;
    pthread_mutex_t lock; /* guards what, peers, armed, stop */
    bool armed;
    bool stop;
    char what[256];
    char peers[512];
    atomic_uint_fast64_t progress;
};

static void sc__watchdog_fire(sc_watchdog_t *wd, double waited_s)
{
    char msg[1024];
    pthread_mutex_lock(&wd->lock);
    snprintf(msg, sizeof(msg),
             "scalecheck: rank %d (host %s): timeout: no progress for %.1f s in %s; waiting on "
             "%s; ending the job (exit 3)\n",
             wd->rte->rank, wd->rte->host, waited_s, wd->what, wd->peers);
    pthread_mutex_unlock(&wd->lock);
    /* write(2) rather than stdio: the main thread may hold stdio's locks. */
    ssize_t ignored = write(STDERR_FILENO, msg, strlen(msg));
    (void)ignored;
    if (wd->hook != NULL)
        wd->hook(wd->hook_arg);
    /* Leaving without MPI_Finalize makes the launcher tear the whole job down (docs/REFERENCE.md
     * §5); MPI_Abort is not callable from this thread at MPI_THREAD_FUNNELED. */
    _exit(3);
}

static void *sc__watchdog_main(void *arg)
{
    sc_watchdog_t *wd = arg;
    uint64_t last_progress = atomic_load(&wd->progress);
    uint64_t last_change = sc_clock_ns();
    for (;;) {
        struct timespec nap = {0, (long)SC__WATCHDOG_POLL_NS};
        nanosleep(&nap, NULL);
        pthread_mutex_lock(&wd->lock);
        bool stop = wd->stop, armed = wd->armed;
        pthread_mutex_unlock(&wd->lock);
        if (stop)
            return NULL;
        uint64_t now = sc_clock_ns();
        uint64_t progress = atomic_load(&wd->progress);
        if (!armed || progress != last_progress) {
            last_progress = progress;
            last_change = now;
            continue;
        }
        if (now - last_change >= wd->timeout_ns)
            sc__watchdog_fire(wd, (double)(now - last_change) / 1e9);
    }
}

sc_status_t sc_watchdog_start(const sc_rte_t *rte, double timeout_s, sc_watchdog_hook_t hook,
                              void *hook_arg, sc_watchdog_t **out, sc_err_t *err)
{
    *out = NULL;
    if (timeout_s <= 0.0)
        return SC_OK;
    sc_watchdog_t *wd = calloc(1, sizeof(*wd));
    if (wd == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the watchdog",
                          rte->rank, rte->host);
    wd->rte = rte;
    wd->timeout_ns = (uint64_t)(timeout_s * 1e9);
    wd->hook = hook;
    wd->hook_arg = hook_arg;
    atomic_init(&wd->progress, 0);
    pthread_mutex_init(&wd->lock, NULL);
    snprintf(wd->what, sizeof(wd->what), "start-up");
    if (pthread_create(&wd->thread, NULL, sc__watchdog_main, wd) != 0) {
        pthread_mutex_destroy(&wd->lock);
        free(wd);
        return sc_err_set(err, SC_ERR_RUNTIME,
                          "rank %d (host %s): cannot start the watchdog thread", rte->rank,
                          rte->host);
    }
    *out = wd;
    return SC_OK;
}

void sc_watchdog_stop(sc_watchdog_t *wd)
{
    if (wd == NULL)
        return;
    pthread_mutex_lock(&wd->lock);
    wd->stop = true;
    pthread_mutex_unlock(&wd->lock);
    pthread_join(wd->thread, NULL);
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
