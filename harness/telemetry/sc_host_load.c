/* sc_host_load.c - marks of the host's and this process's CPU time (sc_host_load.h). */
#include "telemetry/sc_host_load.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* The first line of /proc/stat: "cpu user nice system idle iowait irq softirq steal ..." in
 * clock ticks; busy is all of them but idle and iowait. */
static bool load__host_busy(double *busy_s)
{
    const char *root = getenv("SCALECHECK_PROC_ROOT");
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/stat", root != NULL && root[0] != '\0' ? root : "/proc");
    FILE *f = fopen(path, "r");
    unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal = 0;
    int got = f != NULL ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
                                 &sys, &idle, &iowait, &irq, &softirq, &steal)
                        : 0;
    if (f != NULL)
        fclose(f);
    long ticks = sysconf(_SC_CLK_TCK);
    if (got < 7 || ticks <= 0)
        return false;
    *busy_s = (double)(user + nice + sys + irq + softirq + steal) / (double)ticks;
    return true;
}

void sc_load_mark(sc_load_mark_t *m)
{
    struct rusage ru;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    m->wall_s = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
    m->ok = load__host_busy(&m->host_busy_s) && getrusage(RUSAGE_SELF, &ru) == 0;
    m->own_cpu_s = m->ok ? (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                               (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec
                         : 0;
}
