#include "sc_memory.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static uint64_t memory__meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t kb = 0;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb * 1024;
}

static uint64_t memory__read_u64(const char *dir, const char *file)
{
    char path[1024];
    snprintf(path, sizeof(path), "/sys/fs/cgroup%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    uint64_t v = 0;
    if (f == NULL || fscanf(f, "%" SCNu64, &v) != 1) /* "max": no limit */
        v = 0;
    if (f != NULL)
        fclose(f);
    return v;
}

/* cgroup v2: what the group's limit still leaves (0: no limit, or v1). */
static uint64_t memory__cgroup_available(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[900] = "";
    char *got = f != NULL ? fgets(line, sizeof(line), f) : NULL;
    if (f != NULL)
        fclose(f);
    if (got == NULL || strncmp(line, "0::", 3) != 0)
        return 0;
    line[strcspn(line, "\n")] = '\0';
    uint64_t limit = memory__read_u64(line + 3, "memory.max");
    uint64_t used = memory__read_u64(line + 3, "memory.current");
    return limit == 0 ? 0 : limit > used ? limit - used : 1;
}

uint64_t sc_memory_host_available(char *where, size_t len)
{
    uint64_t host = memory__meminfo_available(), group = memory__cgroup_available();
    bool capped = group > 0 && (host == 0 || group < host);
    snprintf(where, len, "%s", capped ? "cgroup memory.max" : host ? "MemAvailable" : "unknown");
    return capped ? group : host;
}
