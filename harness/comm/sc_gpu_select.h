/* sc_gpu_select.h - which GPU a rank takes, and whether two ranks of a host ended up on one GPU:
 * pure logic, testable without a GPU. */
#ifndef SC_GPU_SELECT_H
#define SC_GPU_SELECT_H

#include <stddef.h>

#include "util/sc_status.h"

/* Room for a PCI bus id ("0000:1b:00.0") and its terminator. */
#define SC_GPU_BUS_ID_MAX 32

/* Chooses the device of a rank that is local_rank of local_size ranks on a host where it sees
 * ndev GPUs: `requested` (--device) when >= 0; else local_rank when the rank sees at least one
 * GPU per rank of its host (a whole node visible to every rank); else local_rank % ndev - one
 * visible GPU per rank (Slurm --gpus-per-task=1, CUDA_VISIBLE_DEVICES per rank) takes device
 * 0. Whether two ranks then share a GPU is decided by their bus ids (sc_gpu_find_shared), not
 * guessed from the counts. Fails, with a one-line reason in why naming host, when there is no
 * GPU (SC_ERR_UNSUPPORTED: "no CUDA device on host X: ...", runtime naming the vendor's runtime:
 * "CUDA", "HIP") or the requested device does not exist (SC_ERR_USAGE). runtime_error describes
 * why the device count is 0 (NULL: none found). */
sc_status_t sc_gpu_select(int requested, int ndev, int local_rank, int local_size, const char *host,
                          const char *runtime, const char *runtime_error, int *device, char *why,
                          size_t len);

/* bus_ids[i] and host_index[i] of n ranks: when two ranks of one host use the same GPU (same
 * bus id), sets *first and *second to the lowest such pair of ranks and returns 1; else 0. An
 * empty bus id (a rank without a device) matches nothing. */
int sc_gpu_find_shared(const char (*bus_ids)[SC_GPU_BUS_ID_MAX], const int *host_index, int n,
                       int *first, int *second);

#endif
