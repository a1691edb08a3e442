/* sc_hostcfg.h - how one host is set up, as preflight compares hosts: the versions of what
 * the run depends on, the GPUs, the fabric's ports, the CPU and the kernel, and the NCCL_* and
 * UCX_* variables. One fixed-size record of text fields, so that every rank's gathers in one
 * MPI collective. SC_HOSTCFG_MAP is the one description of the fields: the struct, the field
 * table JSON walks and the kinds preflight compares (label, severity) all come from it. */
#ifndef SC_HOSTCFG_H
#define SC_HOSTCFG_H

#include "record/sc_record.h"
#include "rte/sc_rte.h"

typedef enum { SC_SEVERITY_WARNING, SC_SEVERITY_ERROR } sc_severity_t;
const char *sc_severity_name(sc_severity_t s); /* "warning", "error" */

/* X(field, size, label, severity): "-" where a host has nothing to say (no GPU, no NVML). An
 * error-level difference breaks or skews a multi-node run; a warning one is worth a look. */
#define SC_HOSTCFG_MAP(X)                                                                          \
    X(scalecheck, 32, "scalecheck", ERROR)                                                         \
    X(mpi, 128, "MPI", ERROR)                                                                      \
    X(ucx, 32, "UCX", WARNING)                                                                     \
    X(nccl, 32, "NCCL", ERROR)                                                                     \
    X(nccl_net_plugin, 160, "NCCL network plugin", ERROR)                                          \
    X(cuda_runtime, 16, "CUDA runtime", WARNING)                                                   \
    X(cuda_driver, 16, "CUDA driver API", ERROR)                                                   \
    X(gpu_driver, 32, "GPU driver", ERROR)                                                         \
    X(gpus, 8, "GPU count", ERROR)                                                                 \
    X(gpu_model, 96, "GPU model", ERROR)                                                           \
    X(gpu_max_clocks, 48, "GPU maximum clocks", WARNING)                                           \
    X(ecc, 16, "ECC mode", WARNING)                                                                \
    X(persistence, 16, "persistence mode", WARNING)                                                \
    X(pcie, 64, "GPU PCIe link", WARNING)                                                          \
    X(nvlinks_up, 16, "NVLinks up", ERROR)                                                         \
    X(ib_ports, 512, "IB/RoCE ports", ERROR)                                                       \
    X(ib_firmware, 160, "IB/RoCE firmware", WARNING)                                               \
    X(cpu_model, 96, "CPU model", WARNING)                                                         \
    X(governor, 32, "CPU governor", WARNING)                                                       \
    X(kernel, 64, "kernel", WARNING)

#define SC_HOSTCFG_ENV_MAX 1536 /* "NAME=value\n" per NCCL_* / UCX_* variable, sorted */

typedef struct {
    char host[SC_HOST_MAX];
    int rank;
#define SC__HOSTCFG_FIELD(field, size, label, severity) char field[size];
    SC_HOSTCFG_MAP(SC__HOSTCFG_FIELD)
#undef SC__HOSTCFG_FIELD
    char env[SC_HOSTCFG_ENV_MAX]; /* compared variable by variable */
    /* per-host trouble found without comparing: a GPU's PCIe link below what it can do, a
     * port not ACTIVE; at rest, a GPU whose row remap is pending or failed or whose driver
     * logged a hardware XID (gpu_trouble, an error), a GPU with memory repaired, throttled or
     * with NVLink errors (gpu_repairs, a warning) ("" none) */
    char pcie_degraded[128];
    char ib_down[256];
    char gpu_trouble[256];
    char gpu_repairs[256];
} sc_hostcfg_t;

/* What preflight compares: every field of the map, in its order. */
typedef struct {
    const char *field;
    const char *label;
    sc_severity_t severity;
    size_t offset, size;
} sc_hostcfg_kind_t;
extern const sc_hostcfg_kind_t sc_hostcfg_kinds[]; /* ends with a NULL field */

typedef SC_LIST(sc_hostcfg_t) sc_hostcfgs_t;

/* The record's fields for JSON (host, rank, every kind, env, the per-host trouble). */
extern const sc_field_t sc_hostcfg_fields[];

#endif
