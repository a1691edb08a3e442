#include "sc_nvml.h"

#include <limits.h>

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry/sc_amdgpu.h"
#include "telemetry/sc_dcmi.h"

/* The few NVML types and functions used, declared here (stable ABI since NVML 8). */
typedef int nvml__return_t;
typedef struct nvml__device_st *nvml__device_t;
/* The library's layout (nvmlPciInfo_t); only bus_id is read. */
typedef struct {
    // cppcheck-suppress unusedStructMember
    char bus_id_legacy[16];
    // cppcheck-suppress unusedStructMember
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} nvml__pci_info_t;

/* The library's nvmlMemory_t (v1: nvmlDeviceGetMemoryInfo), bytes; only total is read. */
typedef struct {
    unsigned long long total;
    // cppcheck-suppress unusedStructMember
    unsigned long long free, used;
} nvml__memory_t;

/* The library's nvmlEventData_t (v2 wait); eventData holds the XID of an XID event. */
typedef struct {
    nvml__device_t device;
    unsigned long long type, data;
    // cppcheck-suppress unusedStructMember
    unsigned gpu_instance, compute_instance;
} nvml__event_t;

enum {
    NVML__SUCCESS = 0,
    NVML__INSUFFICIENT_SIZE = 7,
    NVML__TEMPERATURE_GPU = 0,
    NVML__CLOCK_SM = 1,
    NVML__CLOCK_MEM = 2,
    NVML__NVLINK_COUNTERS = 4, /* DL replay, recovery, CRC flit, CRC data */
};
#define NVML__EVENT_XID 0x8ull /* nvmlEventTypeXidCriticalError */

/* name in the library, member, return type, parameters */
#define NVML__FUNCTIONS(X)                                                                         \
    X("nvmlInit_v2", init, nvml__return_t, (void))                                                 \
    X("nvmlShutdown", shutdown, nvml__return_t, (void))                                            \
    X("nvmlErrorString", error_string, const char *, (nvml__return_t))                             \
    X("nvmlDeviceGetCount_v2", get_count, nvml__return_t, (unsigned *))                            \
    X("nvmlDeviceGetHandleByIndex_v2", get_handle, nvml__return_t, (unsigned, nvml__device_t *))   \
    X("nvmlDeviceGetName", get_name, nvml__return_t, (nvml__device_t, char *, unsigned))           \
    X("nvmlDeviceGetPciInfo_v3", get_pci, nvml__return_t, (nvml__device_t, nvml__pci_info_t *))    \
    X("nvmlDeviceGetTemperature", get_temp, nvml__return_t, (nvml__device_t, int, unsigned *))     \
    X("nvmlDeviceGetPowerUsage", get_power, nvml__return_t, (nvml__device_t, unsigned *))          \
    X("nvmlDeviceGetClockInfo", get_clock, nvml__return_t, (nvml__device_t, int, unsigned *))      \
    X("nvmlDeviceGetCurrentClocksThrottleReasons", get_throttle, nvml__return_t,                   \
      (nvml__device_t, unsigned long long *))                                                      \
    X("nvmlDeviceGetTotalEccErrors", get_ecc, nvml__return_t,                                      \
      (nvml__device_t, int, int, unsigned long long *))                                            \
    X("nvmlDeviceGetNvLinkState", get_link_state, nvml__return_t,                                  \
      (nvml__device_t, unsigned, int *))                                                           \
    X("nvmlDeviceGetNvLinkVersion", get_link_version, nvml__return_t,                              \
      (nvml__device_t, unsigned, unsigned *))                                                      \
    X("nvmlSystemGetDriverVersion", get_driver, nvml__return_t, (char *, unsigned))                \
    X("nvmlSystemGetCudaDriverVersion", get_cuda_driver, nvml__return_t, (int *))                  \
    X("nvmlDeviceGetMaxClockInfo", get_max_clock, nvml__return_t,                                  \
      (nvml__device_t, int, unsigned *))                                                           \
    X("nvmlDeviceGetMemoryBusWidth", get_bus_width, nvml__return_t, (nvml__device_t, unsigned *))  \
    X("nvmlDeviceGetMemoryInfo", get_memory, nvml__return_t, (nvml__device_t, nvml__memory_t *))   \
    X("nvmlDeviceGetEccMode", get_ecc_mode, nvml__return_t, (nvml__device_t, int *, int *))        \
    X("nvmlDeviceGetPersistenceMode", get_persistence, nvml__return_t, (nvml__device_t, int *))    \
    X("nvmlDeviceGetCurrPcieLinkGeneration", get_pcie_gen, nvml__return_t,                         \
      (nvml__device_t, unsigned *))                                                                \
    X("nvmlDeviceGetMaxPcieLinkGeneration", get_pcie_max_gen, nvml__return_t,                      \
      (nvml__device_t, unsigned *))                                                                \
    X("nvmlDeviceGetCurrPcieLinkWidth", get_pcie_width, nvml__return_t,                            \
      (nvml__device_t, unsigned *))                                                                \
    X("nvmlDeviceGetMaxPcieLinkWidth", get_pcie_max_width, nvml__return_t,                         \
      (nvml__device_t, unsigned *))                                                                \
    X("nvmlDeviceGetPcieReplayCounter", get_pcie_replay, nvml__return_t,                           \
      (nvml__device_t, unsigned *))                                                                \
    X("nvmlDeviceGetNvLinkErrorCounter", get_link_errors, nvml__return_t,                          \
      (nvml__device_t, unsigned, int, unsigned long long *))                                       \
    X("nvmlDeviceGetRetiredPages", get_retired, nvml__return_t,                                    \
      (nvml__device_t, int, unsigned *, unsigned long long *))                                     \
    X("nvmlDeviceGetRemappedRows", get_remapped, nvml__return_t,                                   \
      (nvml__device_t, unsigned *, unsigned *, unsigned *, unsigned *))                            \
    X("nvmlDeviceGetEnforcedPowerLimit", get_power_limit, nvml__return_t,                          \
      (nvml__device_t, unsigned *))                                                                \
    X("nvmlEventSetCreate", event_set_create, nvml__return_t, (void **))                           \
    X("nvmlDeviceRegisterEvents", register_events, nvml__return_t,                                 \
      (nvml__device_t, unsigned long long, void *))                                                \
    X("nvmlEventSetWait_v2", event_wait, nvml__return_t, (void *, nvml__event_t *, unsigned))      \
    X("nvmlEventSetFree", event_set_free, nvml__return_t, (void *))

struct sc_nvml {
    /* an AMD host's monitor (NVML absent, AMD Instinct GPUs in sysfs): their bus ids, the sysfs */
    int amd;
    sc_dcmi_t *dcmi; /* an Ascend host's (NVML absent, DCMI answering) */
    char amd_bus[SC_AMDGPU_MAX][32];
    char sys_root[PATH_MAX];
    void *lib;
    void *events; /* the XID event set (sc_nvml_xid_watch), or NULL */
#define NVML__MEMBER(sym, member, ret, params) ret(*member) params;
    NVML__FUNCTIONS(NVML__MEMBER)
#undef NVML__MEMBER
};

/* Resolves every function in one loop; only init, count and handle are required. */
static int nvml__resolve(sc_nvml_t *n, char *why, size_t len)
{
    const struct { /* not static: strcmp() is no constant expression (GCC folds it, C does not) */
        const char *sym;
        size_t offset;
        int required;
    } table[] = {
#define NVML__ENTRY(sym, member, ret, params)                                                      \
    {sym, offsetof(sc_nvml_t, member),                                                             \
     !strcmp(#member, "init") || !strcmp(#member, "get_count") || !strcmp(#member, "get_handle")},
        NVML__FUNCTIONS(NVML__ENTRY)
#undef NVML__ENTRY
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        void *fn = dlsym(n->lib, table[i].sym);
        memcpy((char *)n + table[i].offset, &fn, sizeof(fn));
        if (fn == NULL && table[i].required) {
            snprintf(why, len, "NVML has no %s", table[i].sym);
            return -1;
        }
    }
    return 0;
}

/* The monitor of an AMD host, where NVML is absent and the sysfs shows AMD Instinct GPUs; NULL
 * (why kept) where it shows none. */
static sc_nvml_t *nvml__open_amd(sc_nvml_t *n)
{
    const char *root = getenv("SCALECHECK_SYS_ROOT");
    snprintf(n->sys_root, sizeof(n->sys_root), "%s", root != NULL && root[0] ? root : "/sys");
    n->amd = sc_amdgpu_find(n->sys_root, n->amd_bus, SC_AMDGPU_MAX);
    if (n->amd > 0)
        return n;
    free(n);
    return NULL;
}

/* The monitor of an Ascend host, where NVML is absent and DCMI sees NPUs; else the AMD one's. */
static sc_nvml_t *nvml__open_other(sc_nvml_t *n, char *why, size_t len)
{
    char dcmi_why[256];
    n->dcmi = sc_dcmi_open(dcmi_why, sizeof(dcmi_why));
    if (n->dcmi != NULL)
        return n;
    size_t used = strlen(why);
    if (used + 2 < len)
        snprintf(why + used, len - used, "; %s", dcmi_why);
    return nvml__open_amd(n);
}

sc_nvml_t *sc_nvml_open(char *why, size_t len)
{
    const char *path = getenv("SCALECHECK_NVML_LIBRARY");
    if (path == NULL || *path == '\0')
        path = "libnvidia-ml.so.1";
    sc_nvml_t *n = calloc(1, sizeof(*n));
    if (n == NULL) {
        snprintf(why, len, "no memory");
        return NULL;
    }
    n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (n->lib == NULL) {
        snprintf(why, len, "NVML not available: %s", dlerror());
        return nvml__open_other(n, why, len);
    }
    nvml__return_t rc = NVML__SUCCESS;
    if (nvml__resolve(n, why, len) != 0 || (rc = n->init()) != NVML__SUCCESS) {
        if (rc != NVML__SUCCESS)
            snprintf(why, len, "nvmlInit failed: %s",
                     n->error_string ? n->error_string(rc) : "unknown error");
        dlclose(n->lib);
        free(n);
        return NULL;
    }
    return n;
}

void sc_nvml_close(sc_nvml_t *n)
{
    if (n == NULL)
        return;
    if (n->amd > 0 || n->dcmi != NULL) {
        sc_dcmi_close(n->dcmi);
        free(n);
        return;
    }
    if (n->events != NULL && n->event_set_free != NULL)
        n->event_set_free(n->events);
    if (n->shutdown)
        n->shutdown();
    dlclose(n->lib);
    free(n);
}

const char *sc_nvml_library(const sc_nvml_t *n)
{
    return n->dcmi != NULL ? "hccl" : n->amd > 0 ? "rccl" : "nccl";
}

unsigned sc_nvml_count(const sc_nvml_t *n)
{
    if (n->dcmi != NULL)
        return sc_dcmi_count(n->dcmi);
    if (n->amd > 0)
        return (unsigned)n->amd;
    unsigned count = 0;
    return n->get_count(&count) == NVML__SUCCESS ? count : 0;
}

static void nvml__links(sc_nvml_t *n, nvml__device_t dev, sc_gpu_sample_t *out)
{
    for (unsigned link = 0; link < SC_NVML_MAX_LINKS; link++) {
        int active = 0;
        unsigned version = 0;
        out->nvlink_active[link] = -1;
        if (n->get_link_state == NULL || n->get_link_state(dev, link, &active) != NVML__SUCCESS)
            continue;
        out->nvlink_active[link] = active != 0;
        out->nvlinks_reported++;
        out->nvlinks_up += active != 0;
        if (n->get_link_version && n->get_link_version(dev, link, &version) == NVML__SUCCESS)
            out->nvlink_version[link] = (int)version;
    }
}

/* The error counters a soak watches grow: PCIe replays, NVLink replays, recoveries and CRC
 * errors over every link, pages retired (both causes), rows remapped. -1 where not answered. */
static void nvml__counters(sc_nvml_t *n, nvml__device_t dev, sc_gpu_sample_t *out)
{
    unsigned u = 0, corr = 0, unc = 0, pending = 0, failed = 0;
    out->pcie_replays =
        n->get_pcie_replay && n->get_pcie_replay(dev, &u) == NVML__SUCCESS ? (long long)u : -1;
    out->nvlink_errors = -1;
    for (unsigned link = 0; n->get_link_errors && link < SC_NVML_MAX_LINKS; link++)
        for (int c = 0; c < NVML__NVLINK_COUNTERS; c++) {
            unsigned long long v = 0;
            if (n->get_link_errors(dev, link, c, &v) == NVML__SUCCESS)
                out->nvlink_errors =
                    (out->nvlink_errors < 0 ? 0 : out->nvlink_errors) + (long long)v;
        }
    out->retired_pages = -1;
    for (int cause = 0; n->get_retired && cause < 2; cause++) {
        unsigned count = 0; /* 0: only the count is asked for */
        nvml__return_t rc = n->get_retired(dev, cause, &count, NULL);
        if (rc == NVML__SUCCESS || rc == NVML__INSUFFICIENT_SIZE)
            out->retired_pages = (out->retired_pages < 0 ? 0 : out->retired_pages) + count;
    }
    bool remaps =
        n->get_remapped && n->get_remapped(dev, &corr, &unc, &pending, &failed) == NVML__SUCCESS;
    out->remapped_rows = remaps ? (long long)corr + unc : -1;
    /* a remap waiting for the next GPU reset, or one that found no spare row */
    out->remap_pending = remaps ? pending != 0 : -1;
    out->remap_failure = remaps ? failed != 0 : -1;
}

void sc_nvml_sample(sc_nvml_t *n, unsigned index, sc_gpu_sample_t *out)
{
    memset(out, 0, sizeof(*out));
    out->index = index;
    out->temp_c = out->sm_mhz = out->mem_mhz = out->max_sm_mhz = -1;
    out->power_w = -1;
    out->throttle_reasons = out->ecc_corrected = out->ecc_uncorrected = -1;
    out->pcie_replays = out->nvlink_errors = out->retired_pages = out->remapped_rows = -1;
    out->remap_pending = out->remap_failure = -1;
    out->power_limit_w = -1;
    if (n->dcmi != NULL) {
        sc_dcmi_sample(n->dcmi, index, out);
        return;
    }
    if (n->amd > 0) {
        if (index < (unsigned)n->amd)
            sc_amdgpu_sample(n->sys_root, n->amd_bus[index], index, out);
        return;
    }
    nvml__device_t dev = NULL;
    if (n->get_handle(index, &dev) != NVML__SUCCESS)
        return;
    nvml__pci_info_t pci;
    unsigned u = 0;
    unsigned long long ull = 0;
    if (n->get_name && n->get_name(dev, out->name, sizeof(out->name)) != NVML__SUCCESS)
        out->name[0] = '\0';
    if (n->get_pci && n->get_pci(dev, &pci) == NVML__SUCCESS)
        snprintf(out->bus_id, sizeof(out->bus_id), "%s", pci.bus_id);
    if (n->get_temp && n->get_temp(dev, NVML__TEMPERATURE_GPU, &u) == NVML__SUCCESS)
        out->temp_c = (int)u;
    if (n->get_power && n->get_power(dev, &u) == NVML__SUCCESS)
        out->power_w = u / 1000.0;
    if (n->get_power_limit && n->get_power_limit(dev, &u) == NVML__SUCCESS)
        out->power_limit_w = u / 1000.0;
    if (n->get_clock && n->get_clock(dev, NVML__CLOCK_SM, &u) == NVML__SUCCESS)
        out->sm_mhz = (int)u;
    if (n->get_max_clock && n->get_max_clock(dev, NVML__CLOCK_SM, &u) == NVML__SUCCESS)
        out->max_sm_mhz = (int)u;
    if (n->get_clock && n->get_clock(dev, NVML__CLOCK_MEM, &u) == NVML__SUCCESS)
        out->mem_mhz = (int)u;
    if (n->get_throttle && n->get_throttle(dev, &ull) == NVML__SUCCESS)
        out->throttle_reasons = (long long)ull;
    /* error type 0 corrected, 1 uncorrected; counter type 0 volatile */
    if (n->get_ecc && n->get_ecc(dev, 0, 0, &ull) == NVML__SUCCESS)
        out->ecc_corrected = (long long)ull;
    if (n->get_ecc && n->get_ecc(dev, 1, 0, &ull) == NVML__SUCCESS)
        out->ecc_uncorrected = (long long)ull;
    nvml__links(n, dev, out);
    nvml__counters(n, dev, out);
}

bool sc_nvml_xid_watch(sc_nvml_t *n, unsigned count)
{
    if (n->amd > 0 || n->dcmi != NULL)
        return false; /* AMD's and Huawei's drivers log their faults to the kernel log */
    if (!n->event_set_create || !n->register_events || !n->event_wait ||
        n->event_set_create(&n->events) != NVML__SUCCESS)
        return false;
    bool any = false;
    for (unsigned g = 0; g < count; g++) {
        nvml__device_t dev = NULL;
        any |= n->get_handle(g, &dev) == NVML__SUCCESS &&
               n->register_events(dev, NVML__EVENT_XID, n->events) == NVML__SUCCESS;
    }
    return any;
}

bool sc_nvml_xid_next(sc_nvml_t *n, unsigned count, unsigned *gpu, long long *xid)
{
    nvml__event_t e;
    memset(&e, 0, sizeof(e));
    if (n->events == NULL || n->event_wait(n->events, &e, 0) != NVML__SUCCESS)
        return false;
    *gpu = count; /* a device not among ours: counted on none */
    for (unsigned g = 0; g < count; g++) {
        nvml__device_t dev = NULL;
        if (n->get_handle(g, &dev) == NVML__SUCCESS && dev == e.device)
            *gpu = g;
    }
    *xid = (e.type & NVML__EVENT_XID) ? (long long)e.data : 0;
    return true;
}

void sc_nvml_driver(sc_nvml_t *n, char *driver, size_t len, int *cuda_driver)
{
    if (n->dcmi != NULL) {
        sc_dcmi_driver(n->dcmi, driver, len);
        *cuda_driver = -1;
        return;
    }
    if (n->amd > 0) {
        sc_amdgpu_driver(n->sys_root, driver, len);
        *cuda_driver = -1;
        return;
    }
    if (n->get_driver == NULL || n->get_driver(driver, (unsigned)len) != NVML__SUCCESS)
        snprintf(driver, len, "-");
    if (n->get_cuda_driver == NULL || n->get_cuda_driver(cuda_driver) != NVML__SUCCESS)
        *cuda_driver = -1;
}

double sc_gpu_config_memory_GBps(const sc_gpu_config_t *g)
{
    if (g->max_mem_mhz <= 0 || g->mem_bus_bits <= 0)
        return 0;
    return (double)g->max_mem_mhz * 1e6 * 2.0 * (double)g->mem_bus_bits / 8.0 / 1e9;
}

/* An unsigned query of dev, -1 where NVML lacks it or does not answer. */
static int nvml__uint(nvml__return_t (*fn)(nvml__device_t, unsigned *), nvml__device_t dev)
{
    unsigned v = 0;
    return fn != NULL && fn(dev, &v) == NVML__SUCCESS ? (int)v : -1;
}

void sc_nvml_config(sc_nvml_t *n, unsigned index, sc_gpu_config_t *out)
{
    memset(out, 0, sizeof(*out));
    out->max_sm_mhz = out->max_mem_mhz = out->mem_bus_bits = out->ecc = out->persistence = -1;
    out->pcie_gen = out->pcie_width = out->pcie_max_gen = out->pcie_max_width = -1;
    out->nvlinks_up = -1;
    if (n->dcmi != NULL) {
        sc_dcmi_config(n->dcmi, index, out);
        return;
    }
    if (n->amd > 0) {
        if (index < (unsigned)n->amd)
            sc_amdgpu_config(n->sys_root, n->amd_bus[index], out);
        return;
    }
    nvml__device_t dev = NULL;
    if (n->get_handle(index, &dev) != NVML__SUCCESS)
        return;
    unsigned u = 0;
    int current = 0, pending = 0;
    if (n->get_name && n->get_name(dev, out->name, sizeof(out->name)) != NVML__SUCCESS)
        out->name[0] = '\0';
    if (n->get_max_clock && n->get_max_clock(dev, NVML__CLOCK_SM, &u) == NVML__SUCCESS)
        out->max_sm_mhz = (int)u;
    if (n->get_max_clock && n->get_max_clock(dev, NVML__CLOCK_MEM, &u) == NVML__SUCCESS)
        out->max_mem_mhz = (int)u;
    out->mem_bus_bits = nvml__uint(n->get_bus_width, dev);
    nvml__memory_t memory;
    if (n->get_memory && n->get_memory(dev, &memory) == NVML__SUCCESS)
        out->mem_total_gb = (double)memory.total / 1e9;
    if (n->get_ecc_mode && n->get_ecc_mode(dev, &current, &pending) == NVML__SUCCESS)
        out->ecc = current != 0;
    if (n->get_persistence && n->get_persistence(dev, &current) == NVML__SUCCESS)
        out->persistence = current != 0;
    out->pcie_gen = nvml__uint(n->get_pcie_gen, dev);
    out->pcie_max_gen = nvml__uint(n->get_pcie_max_gen, dev);
    out->pcie_width = nvml__uint(n->get_pcie_width, dev);
    out->pcie_max_width = nvml__uint(n->get_pcie_max_width, dev);
    sc_gpu_sample_t links;
    memset(&links, 0, sizeof(links));
    nvml__links(n, dev, &links);
    if (links.nvlinks_reported > 0)
        out->nvlinks_up = links.nvlinks_up;
}
