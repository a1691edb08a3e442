/* sc_nvml.h - GPU health through NVML, loaded at run time with dlopen (there is no nvml.h at
 * build time, and a machine without a driver must still run): temperature, power, clocks,
 * throttle reasons, ECC error counts and NVLink state per GPU. Absent NVML is a reason, not a
 * failure. SCALECHECK_NVML_LIBRARY names another library file (the tests use a fake one). */
#ifndef SC_NVML_H
#define SC_NVML_H

#include <jansson.h>
#include <stddef.h>

#include "util/sc_status.h"

#define SC_NVML_MAX_LINKS 18

typedef struct {
    unsigned index;
    char name[96];
    char bus_id[32];
    int temp_c;                 /* -1: not reported */
    double power_w;             /* -1: not reported */
    int sm_mhz, mem_mhz;        /* -1: not reported */
    long long throttle_reasons; /* bit mask as NVML reports it; -1: not reported */
    long long ecc_corrected;    /* volatile (since boot) counts; -1: not reported */
    long long ecc_uncorrected;
    int nvlinks_reported; /* links that answered the state query */
    int nvlinks_up;
    int nvlink_version[SC_NVML_MAX_LINKS]; /* 0: link not reported */
    int nvlink_active[SC_NVML_MAX_LINKS];  /* -1: not reported */
} sc_gpu_sample_t;

typedef struct sc_nvml sc_nvml_t;

/* Loads and initialises NVML. NULL when it cannot, with the reason in why. */
sc_nvml_t *sc_nvml_open(char *why, size_t len);
void sc_nvml_close(sc_nvml_t *nvml);
unsigned sc_nvml_count(const sc_nvml_t *nvml);
/* Samples GPU index; every field NVML does not answer stays "not reported". */
void sc_nvml_sample(sc_nvml_t *nvml, unsigned index, sc_gpu_sample_t *out);
/* The sample as JSON (fields not reported are left out), with t_s seconds since start. */
json_t *sc_nvml_sample_json(const sc_gpu_sample_t *s, double t_s);

#endif
