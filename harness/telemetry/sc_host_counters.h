/* sc_host_counters.h - the host's own health as the kernel gives it in sysfs (under
 * SCALECHECK_SYSFS_ROOT when set, as the tests do): the hottest CPU temperature sensor, EDAC
 * memory error counts, InfiniBand port error counters. -1 where there is none. */
#ifndef SC_HOST_COUNTERS_H
#define SC_HOST_COUNTERS_H

typedef struct {
    int cpu_temp_c;             /* the hottest thermal zone or hwmon sensor */
    long long edac_corrected;   /* every memory controller's ce_count */
    long long edac_uncorrected; /* ... ue_count */
    long long ib_errors;        /* symbol, link-downed, receive, recovery and integrity errors */
} sc_host_counters_t;

void sc_host_counters_read(sc_host_counters_t *out);

#endif
