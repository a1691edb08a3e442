/* test_fake_copy.c - the emulated device's copy engines hold CUDA's documented rules
 * (fake_cudart_copy.c): peer access per pair, enabling twice an error, pinned memory's
 * registration and freeing; and its copies are timed by the declared link model - a pinned
 * copy on a Gen5 x16 link (no tree: the default) and within a device, and a pair on a
 * degraded NVLink, read on the stream's events within 10 % of the model. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "fake_test_events.h"
#include "sc_test.h"

#define MIB (1u << 20)

/* GB/s of trials copies of bytes on stream st (device d), by its events, after one untimed. */
static double timed(int d, void *dst, int dst_dev, const void *src, int src_dev, size_t bytes)
{
    cudaStream_t st;
    cudaEvent_t a, b;
    SC_EXPECT(cudaSetDevice(d) == cudaSuccess);
    SC_EXPECT(cudaStreamCreate(&st) == cudaSuccess);
    SC_EXPECT(cudaEventCreate(&a) == cudaSuccess && cudaEventCreate(&b) == cudaSuccess);
    for (int t = 0; t < 6; t++) {
        if (t == 1)
            SC_EXPECT(cudaEventRecord(a, st) == cudaSuccess);
        SC_EXPECT((dst_dev != src_dev
                       ? cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, st)
                       : cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, st)) == cudaSuccess);
    }
    double ms = fake_test_elapsed_ms(st, a, b);
    cudaStreamDestroy(st);
    return ms > 0 ? 5.0 * (double)bytes / (ms * 1e-3) / 1e9 : 0;
}

static void near(const char *what, double got, double want)
{
    printf("%s: %.1f GB/s (model %.1f)\n", what, got, want);
    SC_EXPECT(got > 0.9 * want && got < 1.1 * want);
}

int main(void)
{
    setenv("FAKE_CUDA_DEVICES", "3", 1);
    setenv("FAKE_CUDA_COPY_MODEL", "1", 1);
    setenv("FAKE_CUDA_NVLINK_GBPS", "400", 1);
    setenv("FAKE_CUDA_NVLINK_SLOW", "0-2:0.25", 1);
    unsetenv("SCALECHECK_SYS_ROOT");
    int can = -1;
    /* peer access: per pair, never to itself; enabling twice, to itself, with flags: errors */
    SC_EXPECT(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaSuccess && can == 1);
    SC_EXPECT(cudaDeviceCanAccessPeer(&can, 1, 1) == cudaSuccess && can == 0);
    SC_EXPECT(cudaDeviceCanAccessPeer(&can, 0, 3) == cudaErrorInvalidDevice);
    SC_EXPECT(cudaSetDevice(0) == cudaSuccess);
    SC_EXPECT(cudaDeviceEnablePeerAccess(1, 1) == cudaErrorInvalidValue);
    SC_EXPECT(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorInvalidDevice);
    SC_EXPECT(cudaDeviceDisablePeerAccess(1) == cudaErrorPeerAccessNotEnabled);
    SC_EXPECT(cudaDeviceEnablePeerAccess(1, 0) == cudaSuccess);
    SC_EXPECT(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessAlreadyEnabled);
    SC_EXPECT(cudaDeviceEnablePeerAccess(2, 0) == cudaSuccess);
    /* pinned memory: registered once, freed only where cudaHostAlloc gave it */
    char *plain = malloc(2 * MIB), *pinned = NULL;
    SC_EXPECT(cudaHostRegister(plain, MIB, 0) == cudaSuccess);
    SC_EXPECT(cudaHostRegister(plain + MIB / 2, MIB, 0) == cudaErrorHostMemoryAlreadyRegistered);
    SC_EXPECT(cudaHostUnregister(plain + 1) == cudaErrorHostMemoryNotRegistered);
    SC_EXPECT(cudaFreeHost(plain) == cudaErrorInvalidValue);
    SC_EXPECT(cudaHostUnregister(plain) == cudaSuccess);
    SC_EXPECT(cudaHostAlloc((void **)&pinned, 64 * MIB, 0x80) == cudaErrorInvalidValue);
    SC_EXPECT(cudaHostAlloc((void **)&pinned, 64 * MIB, cudaHostAllocPortable) == cudaSuccess);
    /* the link model: Gen5 x16 at 0.87 of 63 GB/s; HBM at 0.9 of 3352; NVLink 400, a quarter */
    void *d0, *d0b, *d1, *d2;
    SC_EXPECT(cudaSetDevice(0) == cudaSuccess && cudaMalloc(&d0, 64 * MIB) == cudaSuccess &&
              cudaMalloc(&d0b, 64 * MIB) == cudaSuccess);
    SC_EXPECT(cudaSetDevice(1) == cudaSuccess && cudaMalloc(&d1, 64 * MIB) == cudaSuccess);
    SC_EXPECT(cudaSetDevice(2) == cudaSuccess && cudaMalloc(&d2, 64 * MIB) == cudaSuccess);
    SC_EXPECT(cudaMemcpyPeerAsync(d1, 0, d0, 0, MIB, NULL) == cudaErrorInvalidValue);
    double pcie = 32.0 * 128.0 / 130.0 * 16 / 8 * 0.87;
    near("pinned host to device 0", timed(0, d0, 0, pinned, 0, 64 * MIB), pcie);
    near("device 0 to pinned host", timed(0, pinned, 0, d0, 0, 64 * MIB), pcie);
    near("within device 0 (each byte once)", timed(0, d0b, 0, d0, 0, 64 * MIB),
         2619e6 * 2 * 640 / 1e9 * 0.9 / 2);
    near("device 0 to 1 by NVLink", timed(0, d1, 1, d0, 0, 64 * MIB), 400);
    near("device 0 to 2 on a degraded NVLink", timed(0, d2, 2, d0, 0, 64 * MIB), 100);
    SC_EXPECT(cudaFreeHost(pinned) == cudaSuccess);
    free(plain);
    return sc_test_done("test_fake_copy");
}
