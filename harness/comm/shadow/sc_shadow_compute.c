/* sc_shadow_compute.c - the compute phase's fill and spin (compute/sc_compute_cuda.h) for the
 * modules built without kernels (AMD, Ascend), over the shared CUDA runtime names
 * (comm/shadow/cuda_runtime.h) their vendor's file serves: the matrices' values written on the
 * host and copied up, and the spin as a host function on the stream (hipLaunchHostFunc,
 * aclrtLaunchHostFunc): the stream is held for the time asked, the device's cores are not (the
 * products are what loads them). */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "compute/sc_compute_cuda.h"
#include "cuda_runtime.h"
#include "util/sc_dtype_core.h"

static void shadow__spin(void *data)
{
    uint64_t ns = *(uint64_t *)data;
    free(data);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t.tv_nsec -
               (uint64_t)t0.tv_nsec <
           ns);
}

cudaError_t sc_cuda_spin(cudaStream_t stream, double us)
{
    uint64_t *ns = malloc(sizeof(*ns));
    if (ns == NULL)
        return cudaErrorMemoryAllocation;
    *ns = us > 0 ? (uint64_t)(us * 1e3) : 0;
    cudaError_t rc = cudaLaunchHostFunc(stream, shadow__spin, ns);
    if (rc != cudaSuccess)
        free(ns);
    return rc;
}

/* The values the NVIDIA module's fill kernel writes: [-1, 1) hashed from the index. */
static double shadow__value(size_t i)
{
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    return (double)(h % 2048) / 1024.0 - 1.0;
}

/* Written on the host into pinned memory and copied up on stream; waits for the copy (the stream
 * is the compute phase's own, which no peer holds up) before the host memory goes. */
cudaError_t sc_cuda_fill(void *buf, size_t count, int type, cudaStream_t stream)
{
    size_t elem = type == 2 || type == 3 ? 2 : 4;
    sc_dtype_t dtype = type == 2 ? SC_DTYPE_fp16 : type == 3 ? SC_DTYPE_bf16 : SC_DTYPE_float;
    void *host = NULL;
    cudaError_t rc = cudaHostAlloc(&host, count * elem, cudaHostAllocPortable);
    if (rc != cudaSuccess)
        return rc;
    for (size_t i = 0; i < count; i++)
        sc_dtype_store(dtype, host, i, shadow__value(i));
    rc = cudaMemcpyAsync(buf, host, count * elem, cudaMemcpyHostToDevice, stream);
    cudaError_t done = cudaStreamSynchronize(stream);
    cudaFreeHost(host);
    return rc != cudaSuccess ? rc : done;
}
