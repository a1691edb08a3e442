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
