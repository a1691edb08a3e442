/* sc_amdgpu.h - AMD GPUs' health as their driver reports it in sysfs (SCALECHECK_SYS_ROOT in
 * place of /sys where set): each Instinct GCD's PCI device folder, its hwmon (temperatures,
 * power, clocks) and its RAS counters (ECC, XGMI link errors) - the files ROCm SMI reads
 * (docs/REFERENCE.md section 7.1). NVML's counterpart for the GPU monitor (sc_nvml.h). */
#ifndef SC_AMDGPU_H
#define SC_AMDGPU_H

#include <stddef.h>

#include "record/sc_health.h"
#include "telemetry/sc_nvml.h"

#define SC_AMDGPU_MAX 64

/* The model of an AMD data-centre GPU by its PCI device id ("AMD Instinct MI250X/MI250"), NULL
 * for any other device of AMD's (a workstation card is no training server's GPU). */
const char *sc_amdgpu_model(long pci_device);

/* The AMD Instinct GPUs under root (a sysfs), in bus order: their bus ids into bus (at most
 * max); how many. */
int sc_amdgpu_find(const char *root, char (*bus)[32], int max);

/* One GPU's sample and set-up; what the driver does not report stays "not reported". */
void sc_amdgpu_sample(const char *root, const char *bus, unsigned index, sc_gpu_sample_t *out);
void sc_amdgpu_config(const char *root, const char *bus, sc_gpu_config_t *out);
/* The amdgpu module's version ("6.8.5", "-"). */
void sc_amdgpu_driver(const char *root, char *driver, size_t len);

#endif
