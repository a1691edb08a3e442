/* sc_host_load.h - what the host's CPUs did between two marks: every process's busy time (the
 * kernel's /proc/stat, under SCALECHECK_PROC_ROOT when set) against this process's own (all its
 * threads), so that a run can tell whether something else was running beside it. */
#ifndef SC_HOST_LOAD_H
#define SC_HOST_LOAD_H

#include <stdbool.h>

typedef struct {
    double
        host_busy_s;  /* all CPUs' busy time since boot: user, nice, system, irq, softirq, steal */
    double own_cpu_s; /* this process's user and system time, every thread */
    double wall_s;    /* a monotonic clock */
    bool ok;          /* false: /proc/stat could not be read (nothing is said then) */
} sc_load_mark_t;

void sc_load_mark(sc_load_mark_t *m);

#endif
