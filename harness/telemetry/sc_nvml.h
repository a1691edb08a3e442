/* sc_nvml.h - GPU health through NVML, loaded at run time with dlopen (there is no nvml.h at
 * build time, and a machine without a driver must still run): temperature, power, clocks,
 * throttle reasons, ECC error counts, NVLink state, the error counters a soak watches (PCIe
 * replays, NVLink errors, retired pages, remapped rows) per GPU, and XID events. Absent NVML is a
 * reason, not a failure. SCALECHECK_NVML_LIBRARY names another library file (the tests use a fake
 * one). Where NVML is absent and the host's GPUs are AMD Instinct ones, the same calls answer
 * from the amdgpu driver's sysfs (telemetry/sc_amdgpu.h): temperature, power, clocks, ECC, the
 * XGMI links' errors in NVLink's place, PCIe replays; no XID events. Where NVML is absent and
 * DCMI (telemetry/sc_dcmi.h) sees Huawei Ascend NPUs, they answer: temperature, power, the AI
 * cores' and HBM's clocks, HBM ECC and isolated pages; no link counters, no XID events. */
#ifndef SC_NVML_H
#define SC_NVML_H

#include <stdbool.h>
#include <stddef.h>

#include "record/sc_health.h"
#include "util/sc_status.h"

typedef struct sc_nvml sc_nvml_t;

/* Loads and initialises NVML. NULL when it cannot, with the reason in why. */
sc_nvml_t *sc_nvml_open(char *why, size_t len);
void sc_nvml_close(sc_nvml_t *nvml);
unsigned sc_nvml_count(const sc_nvml_t *nvml);
/* The collective library of the GPUs the monitor sees: "nccl" (NVML's), "rccl" (AMD's), "hccl"
 * (Huawei's Ascend NPUs, through DCMI). */
const char *sc_nvml_library(const sc_nvml_t *nvml);
/* How a GPU is set up (preflight compares hosts by it); -1 where NVML does not say. */
typedef struct {
    char name[96];
    int max_sm_mhz, max_mem_mhz;
    int mem_bus_bits;     /* the memory interface's width */
    double mem_total_gb;  /* 0: not reported */
    int ecc, persistence; /* 1 on, 0 off */
    int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
    int nvlinks_up; /* -1: no link reported */
} sc_gpu_config_t;
void sc_nvml_config(sc_nvml_t *nvml, unsigned index, sc_gpu_config_t *out);
/* The memory's peak GB/s by what NVML says of it: the top memory clock, two transfers a clock,
 * the bus width (an H200's 3201 MHz and 6144 bits: 4917, its datasheet's 4.8 TB/s); 0 where
 * NVML does not say. */
double sc_gpu_config_memory_GBps(const sc_gpu_config_t *g);
/* The driver's version ("550.54.15", "-") and the CUDA version it supports (12040; -1). */
void sc_nvml_driver(sc_nvml_t *nvml, char *driver, size_t len, int *cuda_driver);
/* Samples GPU index; every field NVML does not answer stays "not reported". */
void sc_nvml_sample(sc_nvml_t *nvml, unsigned index, sc_gpu_sample_t *out);
/* XID errors as NVML events (nvmlEventTypeXidCriticalError): watch GPUs 0 .. count-1 (false
 * where NVML has no events), then take the next event without waiting (false: none), with its
 * GPU (count: not one of ours) and XID. */
bool sc_nvml_xid_watch(sc_nvml_t *nvml, unsigned count);
bool sc_nvml_xid_next(sc_nvml_t *nvml, unsigned count, unsigned *gpu, long long *xid);

#endif
