/* sc_host_counters.c - CPU temperature, EDAC and InfiniBand error counters from sysfs: every
 * file a glob finds is summed (counters) or maxed (temperatures). */
#include "telemetry/sc_host_counters.h"

#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/sc_files.h"

/* The numbers in the files pattern (under the sysfs root) matches: their sum, or their largest
 * with max; -1 when no file answers. */
static long long hc__fold(const char *pattern, int max)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", sc_files_sysfs_root(), pattern);
    glob_t g;
    long long folded = -1;
    if (glob(path, 0, NULL, &g) != 0)
        return -1;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        FILE *f = fopen(g.gl_pathv[i], "r");
        long long v = 0;
        bool read = f != NULL && fscanf(f, "%lld", &v) == 1;
        if (f != NULL)
            fclose(f);
        if (!read)
            continue;
        folded = folded < 0 ? v : max ? (v > folded ? v : folded) : folded + v;
    }
    globfree(&g);
    return folded;
}

/* The larger of two readings in millidegrees, as whole degrees (-1: none). */
static int hc__degrees(long long a, long long b)
{
    long long m = a > b ? a : b;
    return m < 0 ? -1 : (int)(m / 1000);
}

void sc_host_counters_read(sc_host_counters_t *out)
{
    out->cpu_temp_c = hc__degrees(hc__fold("class/thermal/thermal_zone*/temp", 1),
                                  hc__fold("class/hwmon/hwmon*/temp*_input", 1));
    out->edac_corrected = hc__fold("devices/system/edac/mc/mc*/ce_count", 0);
    out->edac_uncorrected = hc__fold("devices/system/edac/mc/mc*/ue_count", 0);
    long long ib = -1;
    static const char *const counters[] = {"symbol_error", "link_downed", "port_rcv_errors",
                                           "link_error_recovery", "local_link_integrity_errors"};
    for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
        char pattern[128];
        snprintf(pattern, sizeof(pattern), "class/infiniband/*/ports/*/counters/%s", counters[c]);
        long long v = hc__fold(pattern, 0);
        ib = v < 0 ? ib : (ib < 0 ? 0 : ib) + v;
    }
    out->ib_errors = ib;
}
