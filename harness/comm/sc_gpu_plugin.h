/* sc_gpu_plugin.h - each vendor's GPU path is a module of its own, loaded only when a command
 * takes it: libscalecheck-gpu.so (NVIDIA: CUDA, NCCL, cuBLAS) and libscalecheck-rocm.so (AMD:
 * HIP, RCCL, rocBLAS). A host-path rank maps none of them (their relocations alone made every
 * rank ~220 MB). The program's entry for each backend (sc_backend_nccl_ops, _rccl_ops) loads its
 * module on open; `version` asks it for the library versions. */
#ifndef SC_GPU_PLUGIN_H
#define SC_GPU_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "comm/sc_backend.h"

#define SC_GPU_PLUGIN_ENTRY "sc_gpu_plugin"

/* What a module hands the program. ops_size guards against a module from another build. */
typedef struct {
    size_t ops_size; /* sizeof(sc_backend_ops_t) in the module's build */
    const sc_backend_ops_t *ops;
    /* "nccl: 2.28.9 (header 22809)\ncuda runtime: 13000\ncuda driver: 0 (no driver)" */
    void (*versions)(char *buf, size_t len);
} sc_gpu_plugin_t;

typedef const sc_gpu_plugin_t *(*sc_gpu_plugin_fn)(void);

/* One vendor's GPU path: its backend's name, its module, where the module is looked for first
 * (a path in env; then beside the program, then ../lib/scalecheck), and the driver's device
 * nodes whose presence --backend auto asks before it loads the module. */
typedef struct {
    const char *backend; /* "nccl" */
    const char *vendor;  /* "NVIDIA" */
    const char *file;    /* "libscalecheck-gpu.so" */
    const char *env;     /* "SCALECHECK_GPU_PLUGIN" */
    const char *driver_nodes[2];
    const char *device; /* "CUDA device": what auto says the host lacks */
} sc_gpu_vendor_t;

/* The vendors this build has a module for, NULL-terminated: NVIDIA first (where built), AMD. */
const sc_gpu_vendor_t *const *sc_gpu_vendors(void);
/* The vendor of backend name ("nccl", "rccl"), NULL for none. */
const sc_gpu_vendor_t *sc_gpu_vendor_of(const char *backend);

/* The vendor's module, loaded once per process; NULL with the reason (the path tried, dlerror)
 * in why. */
const sc_gpu_plugin_t *sc_gpu_plugin_load(const sc_gpu_vendor_t *vendor, char *why, size_t len);

/* Whether this host has the vendor's driver (one of its device nodes); when not, why names what
 * is missing. Cheap: --backend auto asks it before it loads the module. */
bool sc_gpu_driver_present(const sc_gpu_vendor_t *vendor, char *why, size_t len);

#endif
