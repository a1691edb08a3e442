#include "sc_gpu_select.h"

#include <stdio.h>
#include <string.h>

sc_status_t sc_gpu_select(int requested, int ndev, int local_rank, int local_size, const char *host,
                          const char *runtime, const char *runtime_error, int *device, char *why,
                          size_t len)
{
    if (ndev <= 0) {
        snprintf(why, len, "no %s device on host %s: %s%s", runtime, host,
                 runtime_error                 ? runtime_error
                 : strcmp(runtime, "HIP") == 0 ? "hip"
                                               : "cuda",
                 runtime_error ? "" : "GetDeviceCount found none");
        return SC_ERR_UNSUPPORTED;
    }
    if (requested >= ndev) {
        snprintf(why, len, "--device: device %d does not exist on host %s (%d GPU%s)", requested,
                 host, ndev, ndev == 1 ? "" : "s");
        return SC_ERR_USAGE;
    }
    if (requested >= 0)
        *device = requested;
    else
        *device = ndev >= local_size ? local_rank : local_rank % ndev;
    return SC_OK;
}

int sc_gpu_find_shared(const char (*bus_ids)[SC_GPU_BUS_ID_MAX], const int *host_index, int n,
                       int *first, int *second)
{
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (bus_ids[a][0] != '\0' && host_index[a] == host_index[b] &&
                strcmp(bus_ids[a], bus_ids[b]) == 0) {
                *first = a;
                *second = b;
                return 1;
            }
    return 0;
}
