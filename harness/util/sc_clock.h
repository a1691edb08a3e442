/* sc_clock.h - the one clock used for timing: CLOCK_MONOTONIC in nanoseconds. Inline, since it
 * sits inside the timed loop. */
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

#endif
