/* sc_gpu_select.h - which GPU a rank takes: pure logic, testable without a GPU. */
#ifndef SC_GPU_SELECT_H
#define SC_GPU_SELECT_H

#include <stddef.h>

#include "util/sc_status.h"

/* Chooses the device of a rank that is local_rank of local_size ranks on a host with ndev
 * GPUs: `requested` (--device) when >= 0, else local_rank. Fails, with a one-line reason in
 * why naming host, when there is no GPU (SC_ERR_UNSUPPORTED: "no CUDA device on host X: ..."),
 * the requested device does not exist, or the host has more ranks than GPUs (SC_ERR_USAGE).
 * cuda_error describes why the device count is 0 (NULL: none found). */
sc_status_t sc_gpu_select(int requested, int ndev, int local_rank, int local_size, const char *host,
                          const char *cuda_error, int *device, char *why, size_t len);

#endif
