/* fake_nvml.c - a test double of libnvidia-ml.so.1 (loaded through SCALECHECK_NVML_LIBRARY) so
 * that the telemetry path is tested on machines without a GPU. Two GPUs: GPU 0 healthy, GPU 1
 * running hot (temperature climbing past 85 C), gaining an uncorrected ECC error per sample,
 * with NVLink 3 down and throttling, its PCIe link at x8 of x16. Only the functions scalecheck
 * resolves exist; the NVLink version call is left out on purpose (optional functions must be
 * optional). FAKE_NVML_DRIVER sets the driver version it reports (a host set up differently).
 *
 * With FAKE_NVML_GPUS=N the GPUs are healthy and respond to load: each one's busy time (what
 * the emulated device's cuBLAS ran on it, fake_load.h through FAKE_GPU_LOAD) heats it toward
 * 35 C + FAKE_NVML_HEAT_C (default 40) x its utilisation with a time constant FAKE_NVML_TAU_S
 * (default 1 s); past FAKE_NVML_SLOWDOWN_C (default 90) it throttles - thermal slowdown in its
 * reasons, its SM clock down to 60 % - as a GPU does. Power follows utilisation (80 W idle,
 * 700 W at full load, the enforced limit 700 W); the SM clock idles at 345 MHz and boosts to
 * 1980. Faults on demand: FAKE_NVML_HOT=G (GPU G's cooling is poor: twice the rise),
 * FAKE_NVML_REMAP_PENDING=G (a row remap waits for a reset), FAKE_NVML_RETIRED=G:N (N pages
 * retired before anything ran), FAKE_NVML_XID=G:X (XID X on GPU G at the second look). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_load.h"

typedef struct {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} fake_pci_t;

static unsigned fake_temp_calls[64];
static unsigned long long fake_ecc_calls[64];

/* FAKE_NVML_GPUS=N: N GPUs (at most 64), all healthy, named FAKE_NVML_NAME - an 8-GPU server
 * for the main job on the emulated device; unset, the two GPUs above. */
static unsigned fake_count(void)
{
    const char *n = getenv("FAKE_NVML_GPUS");
    unsigned count = n != NULL && n[0] != '\0' ? (unsigned)atoi(n) : 2;
    return count > 64 ? 64 : count;
}

static int fake_healthy(void)
{
    return getenv("FAKE_NVML_GPUS") != NULL;
}

/* GPU g is the degraded one (GPU 1 of the default two). */
static int fake_bad(unsigned g)
{
    return !fake_healthy() && g == 1;
}

/* ---- the thermal model (FAKE_NVML_GPUS) ---- */

static double fake_env(const char *name, double fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? atof(v) : fallback;
}

/* GPU g named by "G" or "G:N" in variable var: N (fallback without it), else -1. */
static double fake_gpu_fault(const char *var, unsigned g, double fallback)
{
    const char *v = getenv(var);
    if (v == NULL || v[0] == '\0' || (unsigned)atoi(v) != g)
        return -1;
    const char *colon = strchr(v, ':');
    return colon != NULL ? atof(colon + 1) : fallback;
}

/* GPU g's state brought up to now (fake_load.h's heat model), its cooling as configured. */
static void fake_update(unsigned g)
{
    double rise =
        fake_env("FAKE_NVML_HEAT_C", 40) * (fake_gpu_fault("FAKE_NVML_HOT", g, 1) > 0 ? 2 : 1);
    fake_heat_update(g, rise, fake_env("FAKE_NVML_TAU_S", 1.0));
}

static int fake_throttling(unsigned g)
{
    return fake_heat[g].temp_c > fake_env("FAKE_NVML_SLOWDOWN_C", 90);
}

int nvmlInit_v2(void)
{
    return 0;
}

int nvmlShutdown(void)
{
    return 0;
}

const char *nvmlErrorString(int rc)
{
    return rc ? "fake error" : "success";
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
    *count = fake_count();
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **dev)
{
    if (index >= fake_count())
        return 2;
    *dev = (void *)(unsigned long)(index + 1); /* handles 1 and 2 */
    return 0;
}

static unsigned fake_index(void *dev)
{
    return (unsigned)(unsigned long)dev - 1;
}

int nvmlDeviceGetName(void *dev, char *name, unsigned len)
{
    const char *named = getenv("FAKE_NVML_NAME");
    if (named != NULL)
        snprintf(name, len, "%s", named);
    else
        snprintf(name, len, "Fake H200 #%u", fake_index(dev));
    return 0;
}

int nvmlDeviceGetPciInfo_v3(void *dev, fake_pci_t *pci)
{
    memset(pci, 0, sizeof(*pci));
    snprintf(pci->bus_id, sizeof(pci->bus_id), "00000000:%02X:00.0", 0x1b + fake_index(dev));
    return 0;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned *temp)
{
    unsigned g = fake_index(dev);
    (void)sensor;
    unsigned step = fake_temp_calls[g]++;
    if (fake_healthy()) {
        fake_update(g);
        *temp = (unsigned)(fake_heat[g].temp_c + 0.5);
        return 0;
    }
    *temp = !fake_bad(g) ? 40 : 84 + (step > 6 ? 6 : step); /* GPU 1: 84, 85, ... 90 */
    return 0;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
    unsigned g = fake_index(dev);
    if (fake_healthy()) {
        fake_update(g);
        *mw = (unsigned)(80000 + 620000 * fake_heat[g].util);
        return 0;
    }
    *mw = !fake_bad(g) ? 300000 : 650000;
    return 0;
}

int nvmlDeviceGetEnforcedPowerLimit(void *dev, unsigned *mw)
{
    (void)dev;
    *mw = 700000;
    return 0;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz)
{
    unsigned g = fake_index(dev);
    if (fake_healthy() && type != 2) { /* the SM clock: idle, boosted, or throttled */
        fake_update(g);
        double boost = fake_heat[g].util > 0.05 ? 1980 : 345;
        *mhz = (unsigned)(fake_throttling(g) ? 0.6 * boost : boost);
        return 0;
    }
    *mhz = type == 2 ? 2619 : 1980;
    return 0;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(void *dev, unsigned long long *reasons)
{
    unsigned g = fake_index(dev);
    if (fake_healthy()) {
        fake_update(g);
        /* idle (0x1) at rest; sw and hw thermal slowdown (0x20, 0x40) past the limit */
        *reasons = fake_throttling(g) ? 0x60ull : fake_heat[g].util > 0.05 ? 0 : 0x1ull;
        return 0;
    }
    *reasons = !fake_bad(g) ? 0x1ull : 0x20ull; /* GPU 1: software thermal slowdown */
    return 0;
}

int nvmlDeviceGetTotalEccErrors(void *dev, int type, int counter, unsigned long long *count)
{
    unsigned g = fake_index(dev);
    (void)counter;
    if (type == 0) {
        *count = 5;
        return 0;
    }
    *count = !fake_bad(g) ? 0 : fake_ecc_calls[g]++;
    return 0;
}

int nvmlDeviceGetNvLinkState(void *dev, unsigned link, int *active)
{
    *active = !(fake_bad(fake_index(dev)) && link == 3);
    return 0;
}

int nvmlSystemGetDriverVersion(char *version, unsigned len)
{
    const char *v = getenv("FAKE_NVML_DRIVER");
    snprintf(version, len, "%s", v != NULL ? v : "550.54.15");
    return 0;
}

int nvmlSystemGetCudaDriverVersion(int *version)
{
    *version = 12040;
    return 0;
}

int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned *mhz)
{
    (void)dev;
    *mhz = type == 2 ? 2619 : 1980;
    return 0;
}

/* An H100 SXM's: 5120 bits at the 2619 MHz above (3352 GB/s), 81559 MiB. */
int nvmlDeviceGetMemoryBusWidth(void *dev, unsigned *bits)
{
    (void)dev;
    *bits = 5120;
    return 0;
}

typedef struct {
    unsigned long long total, free, used;
} fake_nvml_memory_t;

int nvmlDeviceGetMemoryInfo(void *dev, fake_nvml_memory_t *memory)
{
    (void)dev;
    memory->total = 81559ull << 20;
    memory->used = 0;
    memory->free = memory->total;
    return 0;
}

int nvmlDeviceGetEccMode(void *dev, int *current, int *pending)
{
    (void)dev;
    *current = *pending = 1;
    return 0;
}

int nvmlDeviceGetPersistenceMode(void *dev, int *mode)
{
    (void)dev;
    *mode = 1;
    return 0;
}

int nvmlDeviceGetCurrPcieLinkGeneration(void *dev, unsigned *gen)
{
    (void)dev;
    *gen = 5;
    return 0;
}

int nvmlDeviceGetMaxPcieLinkGeneration(void *dev, unsigned *gen)
{
    (void)dev;
    *gen = 5;
    return 0;
}

int nvmlDeviceGetCurrPcieLinkWidth(void *dev, unsigned *width)
{
    *width = fake_bad(fake_index(dev)) ? 8 : 16;
    return 0;
}

int nvmlDeviceGetMaxPcieLinkWidth(void *dev, unsigned *width)
{
    (void)dev;
    *width = 16;
    return 0;
}

/* The counters a soak watches: GPU 1's PCIe replays and NVLink CRC errors grow with every
 * query, it has two retired pages and one remapped row; GPU 0 has none. */
static unsigned fake_replay_calls[2], fake_link_calls[2];

int nvmlDeviceGetPcieReplayCounter(void *dev, unsigned *value)
{
    unsigned g = fake_index(dev);
    *value = !fake_bad(g) ? 0 : fake_replay_calls[g]++;
    return 0;
}

int nvmlDeviceGetNvLinkErrorCounter(void *dev, unsigned link, int counter,
                                    unsigned long long *value)
{
    unsigned g = fake_index(dev);
    *value = fake_bad(g) && link == 3 && counter == 2 ? fake_link_calls[g]++ : 0; /* CRC flit */
    return 0;
}

int nvmlDeviceGetRetiredPages(void *dev, int cause, unsigned *count, unsigned long long *addresses)
{
    (void)addresses;
    unsigned g = fake_index(dev);
    double retired = fake_bad(g) ? 2 : fake_gpu_fault("FAKE_NVML_RETIRED", g, 1);
    *count = cause == 1 && retired > 0 ? (unsigned)retired : 0; /* double-bit ECC pages */
    return 0;
}

int nvmlDeviceGetRemappedRows(void *dev, unsigned *corrected, unsigned *uncorrected,
                              unsigned *pending, unsigned *failed)
{
    unsigned g = fake_index(dev);
    int waiting = fake_gpu_fault("FAKE_NVML_REMAP_PENDING", g, 1) > 0;
    *corrected = 0;
    *uncorrected = fake_bad(g) || waiting ? 1 : 0;
    *pending = (unsigned)waiting;
    *failed = 0;
    return 0;
}

/* XID events: GPU 1 raises XID 79 (fallen off the bus) at the third look, then 48 (a double-bit
 * ECC error) at the sixth; FAKE_NVML_NO_XID=1 keeps it quiet. */
typedef struct {
    void *device;
    unsigned long long type, data;
    unsigned gpu_instance, compute_instance;
} fake_event_t;

static int fake_event_set, fake_registered;
static unsigned fake_waits;

int nvmlEventSetCreate(void **set)
{
    *set = &fake_event_set;
    return 0;
}

int nvmlDeviceRegisterEvents(void *dev, unsigned long long types, void *set)
{
    (void)dev;
    (void)set;
    fake_registered |= (types & 0x8ull) != 0;
    return 0;
}

int nvmlEventSetWait_v2(void *set, fake_event_t *data, unsigned timeout_ms)
{
    (void)set;
    (void)timeout_ms;
    const char *quiet = getenv("FAKE_NVML_NO_XID");
    unsigned look = ++fake_waits;
    const char *asked = getenv("FAKE_NVML_XID");
    if (fake_healthy() && asked != NULL && asked[0] != '\0' && fake_registered) {
        if (look != 2)
            return 10;
        const char *colon = strchr(asked, ':');
        memset(data, 0, sizeof(*data));
        data->device = (void *)(unsigned long)(atoi(asked) + 1);
        data->type = 0x8ull;
        data->data = colon != NULL ? (unsigned long long)atoll(colon + 1) : 79;
        return 0;
    }
    if (fake_healthy() || !fake_registered || (quiet != NULL && quiet[0] == '1') ||
        (look != 3 && look != 6))
        return 10; /* NVML_ERROR_TIMEOUT: nothing happened */
    memset(data, 0, sizeof(*data));
    data->device = (void *)2ul; /* GPU 1 */
    data->type = 0x8ull;
    data->data = look == 3 ? 79 : 48;
    return 0;
}

int nvmlEventSetFree(void *set)
{
    (void)set;
    return 0;
}
