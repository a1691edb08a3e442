/* fake_nvml.c - a test double of libnvidia-ml.so.1 (loaded through SCALECHECK_NVML_LIBRARY) so
 * that the telemetry path is tested on machines without a GPU. Two GPUs: GPU 0 healthy, GPU 1
 * running hot (temperature climbing past 85 C), gaining an uncorrected ECC error per sample,
 * with NVLink 3 down and throttling, its PCIe link at x8 of x16. Only the functions scalecheck
 * resolves exist; the NVLink version call is left out on purpose (optional functions must be
 * optional). FAKE_NVML_DRIVER sets the driver version it reports (a host set up differently). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    *temp = !fake_bad(g) ? 40 : 84 + (step > 6 ? 6 : step); /* GPU 1: 84, 85, ... 90 */
    return 0;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
    *mw = !fake_bad(fake_index(dev)) ? 300000 : 650000;
    return 0;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz)
{
    (void)dev;
    *mhz = type == 2 ? 2619 : 1980;
    return 0;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(void *dev, unsigned long long *reasons)
{
    *reasons = !fake_bad(fake_index(dev)) ? 0x1ull : 0x20ull; /* GPU 1: software thermal slowdown */
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
    *count = fake_bad(fake_index(dev)) && cause == 1 ? 2 : 0;
    return 0;
}

int nvmlDeviceGetRemappedRows(void *dev, unsigned *corrected, unsigned *uncorrected,
                              unsigned *pending, unsigned *failed)
{
    *corrected = 0;
    *uncorrected = fake_bad(fake_index(dev)) ? 1 : 0;
    *pending = *failed = 0;
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
    if (!fake_registered || (quiet != NULL && quiet[0] == '1') || (look != 3 && look != 6))
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
