/* sc_dcmi.h - Huawei Ascend NPUs' health through their management library, DCMI (libdcmi.so,
 * the NPU driver's; loaded at run time from prototypes declared in sc_dcmi.c, as Huawei's DCMI
 * API reference gives them, docs/REFERENCE.md section 7.2): temperature, power, the AI cores'
 * and the HBM's clocks, HBM ECC counts and isolated pages. NVML's counterpart for the GPU
 * monitor (sc_nvml.h), where NVML is absent and DCMI answers. SCALECHECK_DCMI_LIBRARY names
 * another library file (the tests use a stand-in). */
#ifndef SC_DCMI_H
#define SC_DCMI_H

#include <stddef.h>

#include "record/sc_health.h"
#include "telemetry/sc_nvml.h"

typedef struct sc_dcmi sc_dcmi_t;

/* The model of an Ascend NPU by its PCI device id (Huawei, 19e5), NULL for any other. */
const char *sc_dcmi_model(long pci_device);

/* Loads DCMI, initialises it and lists the NPUs (card by card); NULL with why where it cannot
 * or sees none. */
sc_dcmi_t *sc_dcmi_open(char *why, size_t len);
void sc_dcmi_close(sc_dcmi_t *dcmi);
unsigned sc_dcmi_count(const sc_dcmi_t *dcmi);
/* One NPU's sample and set-up; what DCMI does not answer stays "not reported". */
void sc_dcmi_sample(sc_dcmi_t *dcmi, unsigned index, sc_gpu_sample_t *out);
void sc_dcmi_config(sc_dcmi_t *dcmi, unsigned index, sc_gpu_config_t *out);
/* The NPU driver's version (dcmi_get_driver_version), "-" where not answered. */
void sc_dcmi_driver(sc_dcmi_t *dcmi, char *driver, size_t len);

#endif
