#include "comm/sc_async.h"

#include <sched.h>
#include <time.h>

#include "util/sc_clock.h"

static double sc_async__since(uint64_t start_ns)
{
    return (double)(sc_clock_ns() - start_ns) * 1e-9;
}

sc_split_outcome_t sc_split_wait(const sc_split_probe_t *probe, bool expect_child, double timeout_s,
                                 void **child)
{
    uint64_t start = sc_clock_ns();
    *child = NULL;
    for (;;) {
        sc_async_state_t parent = probe->parent_state(probe->ctx);
        if (parent == SC_ASYNC_FAILED)
            return SC_SPLIT_PARENT_FAILED;
        if (parent == SC_ASYNC_DONE && !expect_child)
            return SC_SPLIT_NO_CHILD;
        if (*child == NULL)
            *child = probe->child(probe->ctx);
        if (*child != NULL) {
            sc_async_state_t own = probe->child_state(probe->ctx, *child);
            if (own == SC_ASYNC_FAILED)
                return SC_SPLIT_CHILD_FAILED;
            if (own == SC_ASYNC_DONE && parent == SC_ASYNC_DONE)
                return SC_SPLIT_READY;
        }
        if (sc_async__since(start) > timeout_s)
            return SC_SPLIT_TIMEOUT;
        sched_yield();
    }
}

int sc_gate_init(sc_gate_t *gate, double timeout_s)
{
    *gate = (sc_gate_t){.timeout_s = timeout_s};
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&gate->changed, &attr);
    pthread_condattr_destroy(&attr);
    return rc == 0 ? pthread_mutex_init(&gate->lock, NULL) : rc;
}

void sc_gate_destroy(sc_gate_t *gate)
{
    pthread_cond_destroy(&gate->changed);
    pthread_mutex_destroy(&gate->lock);
}

int sc_gate_pass(sc_gate_t *gate)
{
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    double whole = (double)(long long)gate->timeout_s;
    deadline.tv_sec += (time_t)whole;
    deadline.tv_nsec += (long)((gate->timeout_s - whole) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&gate->lock);
    uint64_t ticket = ++gate->passes;
    int rc = 0;
    while (gate->opened < ticket && rc == 0)
        rc = pthread_cond_timedwait(&gate->changed, &gate->lock, &deadline);
    int timed_out = gate->opened < ticket;
    gate->timeouts += (uint64_t)timed_out;
    pthread_mutex_unlock(&gate->lock);
    return timed_out;
}

void sc_gate_open(sc_gate_t *gate)
{
    pthread_mutex_lock(&gate->lock);
    if (gate->opened != UINT64_MAX)
        gate->opened++;
    pthread_cond_broadcast(&gate->changed);
    pthread_mutex_unlock(&gate->lock);
}

void sc_gate_open_all(sc_gate_t *gate)
{
    pthread_mutex_lock(&gate->lock);
    gate->opened = UINT64_MAX;
    pthread_cond_broadcast(&gate->changed);
    pthread_mutex_unlock(&gate->lock);
}

uint64_t sc_gate_take_timeouts(sc_gate_t *gate)
{
    pthread_mutex_lock(&gate->lock);
    uint64_t n = gate->timeouts;
    gate->timeouts = 0;
    pthread_mutex_unlock(&gate->lock);
    return n;
}
