/* bare_nccl_allreduce.c - the bare loop the GPU path's `coll` is held to (bench/gpu-overhead.sh):
 * one GPU, NCCL's all-reduce of float sums out of place, timed as the engine times a device
 * step (a lead-in launch, then an event after each of ITERS launches, one wait at the end), the
 * median interval printed in microseconds. No MPI and nothing of scalecheck: a reference.
 * usage: bare_nccl_allreduce BYTES ITERS WARMUP */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call, what)                                                                          \
    do {                                                                                           \
        if ((call) != 0) {                                                                         \
            fprintf(stderr, "bare_nccl_allreduce: %s failed\n", what);                             \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return fprintf(stderr, "usage: bare_nccl_allreduce BYTES ITERS WARMUP\n"), 2;
    size_t bytes = strtoull(argv[1], NULL, 10), count = bytes / sizeof(float);
    int iters = atoi(argv[2]), warmup = atoi(argv[3]), device = 0;
    if (count == 0 || iters < 1 || warmup < 0)
        return fprintf(stderr, "bare_nccl_allreduce: bad arguments\n"), 2;
    ncclComm_t comm;
    cudaStream_t stream;
    float *send, *recv;
    CHECK(cudaSetDevice(device), "cudaSetDevice");
    CHECK(ncclCommInitAll(&comm, 1, &device), "ncclCommInitAll");
    CHECK(cudaStreamCreate(&stream), "cudaStreamCreate");
    CHECK(cudaMalloc((void **)&send, bytes), "cudaMalloc");
    CHECK(cudaMalloc((void **)&recv, bytes), "cudaMalloc");
    CHECK(cudaMemset(send, 0, bytes), "cudaMemset");
    for (int i = 0; i < warmup; i++)
        CHECK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream), "ncclAllReduce");
    CHECK(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    cudaEvent_t *marks = calloc((size_t)iters + 1, sizeof(*marks));
    double *us = calloc((size_t)iters, sizeof(*us));
    if (marks == NULL || us == NULL)
        return fprintf(stderr, "bare_nccl_allreduce: no memory\n"), 1;
    for (int i = 0; i <= iters; i++)
        CHECK(cudaEventCreate(&marks[i]), "cudaEventCreate");
    CHECK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream), "lead-in");
    CHECK(cudaEventRecord(marks[0], stream), "cudaEventRecord");
    for (int i = 1; i <= iters; i++) {
        CHECK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream), "ncclAllReduce");
        CHECK(cudaEventRecord(marks[i], stream), "cudaEventRecord");
    }
    CHECK(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    for (int i = 1; i <= iters; i++) {
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, marks[i - 1], marks[i]), "cudaEventElapsedTime");
        us[i - 1] = ms * 1e3;
    }
    qsort(us, (size_t)iters, sizeof(*us), by_value);
    double median = iters % 2 ? us[iters / 2] : (us[iters / 2 - 1] + us[iters / 2]) / 2;
    printf("%zu %.3f\n", bytes, median);
    ncclCommDestroy(comm);
    return 0;
}
