#include "sc_gpu_select.h"

#include <stdio.h>

sc_status_t sc_gpu_select(int requested, int ndev, int local_rank, int local_size, const char *host,
                          const char *cuda_error, int *device, char *why, size_t len)
{
    if (ndev <= 0) {
        snprintf(why, len, "no CUDA device on host %s: %s", host,
                 cuda_error ? cuda_error : "cudaGetDeviceCount found none");
        return SC_ERR_UNSUPPORTED;
    }
    if (requested >= ndev) {
        snprintf(why, len, "--device: device %d does not exist on host %s (%d GPU%s)", requested,
                 host, ndev, ndev == 1 ? "" : "s");
        return SC_ERR_USAGE;
    }
    if (requested < 0 && local_size > ndev) {
        snprintf(why, len,
                 "host %s has %d GPU%s but %d ranks: NCCL needs one rank per GPU (launch fewer "
                 "ranks per node)",
                 host, ndev, ndev == 1 ? "" : "s", local_size);
        return SC_ERR_USAGE;
    }
    *device = requested >= 0 ? requested : local_rank;
    return SC_OK;
}
