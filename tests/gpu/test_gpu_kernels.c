/* GPU unit test (runs where a GPU is; exits 77 = skipped elsewhere): the data-check kernels are
 * exact against the host reference - the fill kernel writes the very bytes sc_check_fill does,
 * the count kernel finds no mismatch in a correct result and exactly the planted wrong element -
 * for every collective's source layout, type and reduction, on the root and another rank, on
 * random seeds. Also: CUDA event time agrees with the host clock within 5 % on a large copy
 * (what the engine relies on). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/sc_check.h"
#include "comm/sc_cuda_check.h"
#include "sc_check_plant.h"
#include "sc_test.h"
#include "util/sc_clock.h"

#define COUNT 100003 /* not a multiple of a block */

/* One layout on `rank` of 8 ranks with root 1: fill bytes equal the host's; a correct result
 * has no wrong element; a planted one is found exactly once (a non-root rank of reduce or
 * gather has no result element, so nothing is planted and nothing is expected). */
static void check_layout(const sc_coll_t *coll, int rank, sc_dtype_t dtype, sc_redop_t op,
                         uint64_t seed, void *d_buf, unsigned long long *d_wrong,
                         unsigned char *host, unsigned char *back)
{
    const int n = 8;
    sc_coll_shape_t s = {.rank = rank, .nranks = n, .root = 1, .count = COUNT / n};
    sc_check_spec_t spec;
    sc_check_spec_init(&spec, dtype, op, seed, n);
    size_t esize = sc_dtype_size(dtype);

    /* fill: device bytes == host bytes */
    size_t fill_count = coll->send_count(&s);
    sc_check_fill(&spec, s.rank, 0, host, fill_count);
    SC_EXPECT(sc_cuda_check_fill(d_buf, &spec, s.rank, fill_count, 0) == cudaSuccess);
    cudaMemcpy(back, d_buf, fill_count * esize, cudaMemcpyDeviceToHost);
    SC_EXPECT(memcmp(host, back, fill_count * esize) == 0);

    size_t count = coll->result_count(&s);
    sc_src_t src = coll->source(&s);
    for (size_t j = 0; j < count; j++)
        sc_dtype_store(dtype, host, j, sc_check_expected(&spec, &src, j));
    for (int pass = 0; pass < 2; pass++) {
        int planted = pass ? sc_test_plant_wrong(&spec, &src, host, count) : 0;
        SC_EXPECT(planted >= 0);
        unsigned long long wrong = 99;
        cudaMemcpy(d_buf, host, count * esize, cudaMemcpyHostToDevice);
        cudaMemset(d_wrong, 0, sizeof(wrong));
        SC_EXPECT(sc_cuda_check_count(d_buf, &spec, &src, count, d_wrong, 0) == cudaSuccess);
        cudaMemcpy(&wrong, d_wrong, sizeof(wrong), cudaMemcpyDeviceToHost);
        SC_EXPECT_EQ_U64(wrong, planted);
        SC_EXPECT_EQ_U64(sc_check_count_wrong(&spec, &src, host, count), planted);
    }
}

/* Device time against host time as the engine takes them (nccl-tests' method): N copies back to
 * back between two events, the host timing the same N up to the wait. They differ by one launch
 * and one wait (tens of microseconds), hence 5 % and an absolute allowance. The copy is 1 GiB
 * on a GPU, a quarter of the free memory on a smaller (emulated) one. */
static void check_event_timing(void)
{
    enum { COPIES = 10 };
    size_t free_now = 0, total = 0, bytes = 1ull << 30;
    cudaMemGetInfo(&free_now, &total);
    if (bytes > free_now / 4)
        bytes = free_now / 4;
    void *a = NULL, *b = NULL;
    cudaEvent_t e0, e1;
    SC_EXPECT(cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice); /* warm-up */
    cudaDeviceSynchronize();
    double worst_us = 0, worst_allowed = 0;
    for (int i = 0; i < 5; i++) {
        uint64_t t0 = sc_clock_ns();
        cudaEventRecord(e0, 0);
        for (int k = 0; k < COPIES; k++)
            cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        double host_us = (double)(sc_clock_ns() - t0) * 1e-3;
        float ms = 0;
        SC_EXPECT(cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess);
        double off = fabs(host_us - ms * 1e3);
        if (off > worst_us) {
            worst_us = off;
            worst_allowed = 0.05 * host_us + 50.0;
        }
        printf("event vs host, %d copies of %zu MiB: %.1f us vs %.1f us\n", COPIES, bytes >> 20,
               ms * 1e3, host_us);
    }
    SC_EXPECT(worst_us <= worst_allowed);
    cudaFree(a);
    cudaFree(b);
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    void *d_buf = NULL;
    unsigned long long *d_wrong = NULL;
    unsigned char *host = malloc(COUNT * 8), *back = malloc(COUNT * 8);
    SC_EXPECT(cudaMalloc(&d_buf, COUNT * 8) == cudaSuccess);
    SC_EXPECT(cudaMalloc((void **)&d_wrong, 8) == cudaSuccess);
    srand((unsigned)time(NULL));
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++)
        for (int d = 0; d < SC_DTYPE_COUNT; d++)
            for (int op = 0; op < SC_REDOP_COUNT; op++)
                for (int rank = 1; rank <= 3; rank += 2) /* the root, and another rank */
                    check_layout(*c, rank, (sc_dtype_t)d, (sc_redop_t)op, (uint64_t)rand(), d_buf,
                                 d_wrong, host, back);
    check_event_timing();
    cudaFree(d_buf);
    cudaFree(d_wrong);
    free(host);
    free(back);
    return sc_test_done("test_gpu_kernels");
}
