/* sc_clock.h - the one clock used for timing: CLOCK_MONOTONIC in nanoseconds. Inline, since it
 * sits inside the timed loop. And the deadline of a timed wait. */
#ifndef SC_CLOCK_H
#define SC_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t sc_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME ns from now, as the absolute time that timed waits (sem_timedwait,
 * pthread_mutex_timedlock) take. Not for timing. */
static inline struct timespec sc_clock_deadline(uint64_t ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t at = (uint64_t)ts.tv_nsec + ns;
    ts.tv_sec += (time_t)(at / 1000000000ull);
    ts.tv_nsec = (long)(at % 1000000000ull);
    return ts;
}

#endif
