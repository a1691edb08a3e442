/* sc_gpu_entry.c - the one symbol libscalecheck-gpu.so exports (sc_gpu_plugin.h). */
#include "comm/backend_nccl.h"
#include "comm/sc_gpu_plugin.h"

__attribute__((visibility("default"))) const sc_gpu_plugin_t *sc_gpu_plugin(void);

const sc_gpu_plugin_t *sc_gpu_plugin(void)
{
    static const sc_gpu_plugin_t plugin = {
        .ops_size = sizeof(sc_backend_ops_t),
        .ops = &sc_nccl_ops,
        .versions = sc_backend_nccl_versions,
    };
    return &plugin;
}

/* The profiler plugin NCCL loads from this module (backend_nccl_prof.c), under the name NCCL
 * looks for. */
__attribute__((visibility("default"))) const sc_nccl_profiler_v4_t ncclProfiler_v4 = {
    .name = "scalecheck",
    .init = sc_nccl_prof_init,
    .start_event = sc_nccl_prof_start,
    .stop_event = sc_nccl_prof_stop,
    .record_state = sc_nccl_prof_state,
    .finalize = sc_nccl_prof_finalize,
};
