/* sc_gpu_plugin.h - the GPU path (the NCCL backend, the CUDA kernels, cuBLAS) is a module of its
 * own, libscalecheck-gpu.so, loaded only when a command takes the GPU path: a host-path rank
 * then maps none of CUDA, NCCL or cuBLAS (their relocations alone made every rank ~220 MB).
 * The program's entry for the backend (sc_backend_nccl_ops) loads it on open; `version` asks
 * it for the library versions. */
#ifndef SC_GPU_PLUGIN_H
#define SC_GPU_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "comm/sc_backend.h"

#define SC_GPU_PLUGIN_FILE  "libscalecheck-gpu.so"
#define SC_GPU_PLUGIN_ENTRY "sc_gpu_plugin"
/* Where to look first (a path to the module); then beside the program, then ../lib/scalecheck. */
#define SC_GPU_PLUGIN_ENV "SCALECHECK_GPU_PLUGIN"

/* What the module hands the program. ops_size guards against a module from another build. */
typedef struct {
    size_t ops_size; /* sizeof(sc_backend_ops_t) in the module's build */
    const sc_backend_ops_t *ops;
    /* "nccl: 2.28.9 (header 22809)\ncuda runtime: 13000\ncuda driver: 0 (no driver)" */
    void (*versions)(char *buf, size_t len);
} sc_gpu_plugin_t;

typedef const sc_gpu_plugin_t *(*sc_gpu_plugin_fn)(void);

/* The module, loaded once per process; NULL with the reason (the path tried, dlerror) in why. */
const sc_gpu_plugin_t *sc_gpu_plugin_load(char *why, size_t len);

/* Whether this host has an NVIDIA driver (its control device); when not, why names what is
 * missing. Cheap: --backend auto asks it before it loads the module. */
bool sc_gpu_driver_present(char *why, size_t len);

#endif
