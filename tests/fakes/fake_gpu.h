/* fake_gpu.h - what the emulated device's three libraries share (tests/fakes/README.md): the
 * fake CUDA runtime (fake_cudart.c, soname libcudart.so.13) runs every stream on a thread of
 * its own, and the fake NCCL (fake_nccl.c) and cuBLAS (fake_cublas.c) put their work on those
 * streams through fakecuda_enqueue, so that stream order, events, host functions and graph
 * capture treat a collective or a GEMM as they treat a kernel. */
#ifndef FAKE_GPU_H
#define FAKE_GPU_H

#include <cuda_runtime.h>
#include <stdatomic.h>
#include <stddef.h>

/* One piece of stream work. A graph holds its nodes' work and runs it again on each launch:
 * run must not consume what it reads. refs: the queue entries and graphs that hold it. */
typedef struct fc_work fc_work_t;
struct fc_work {
    void (*run)(fc_work_t *work);
    void (*destroy)(fc_work_t *work);
    atomic_int refs;
    const char *what;   /* for messages */
    double enqueued_ms; /* when this run of it went onto its stream (set as it runs) */
};

/* Puts work on stream (NULL: the legacy default stream), or into the stream's capture. Takes
 * the caller's reference. cudaErrorInvalidResourceHandle for a stream that is not one. */
cudaError_t fakecuda_enqueue(cudaStream_t stream, fc_work_t *work);
void fakecuda_work_release(fc_work_t *work);
/* Whether [ptr, ptr + bytes) lies inside one device allocation (cudaMalloc). */
int fakecuda_is_device(const void *ptr, size_t bytes);
/* Counts a call of the entry point `name` (FAKE_GPU_CALLS: the counts written at exit). */
void fakecuda_count(const char *name);
/* Writes the counts now (FAKE_GPU_CALLS): on errors, which may end the process without exit. */
void fakecuda_write_calls(void);
/* The calling thread's current device (cudaSetDevice). */
int fakecuda_current_device(void);
/* The devices of the emulated machine's sysfs (SCALECHECK_SYS_ROOT) this runtime serves, by PCI
 * vendor and class (the top 16 bits of the class code): NVIDIA's 3D controllers (0x10de, 0x0302)
 * unless the emulated HIP sets AMD's (0x1002, 0x0380) as it loads, before any device is used. */
void fakecuda_set_pci_identity(long vendor, long class_code);
/* The host's clock, in ms (CLOCK_MONOTONIC): what the streams' clocks lag behind. */
double fakecuda_now_ms(void);
/* From work running on stream that began at t0_ms and that a model says takes want_ms: waits
 * for the rest where the host was quicker; where it was slower and FAKE_CUDA_COPY_MODEL=1, the
 * stream's clock stops for the difference, and for the host's lateness in starting it (after
 * ready_ms, when it was enqueued, and the stream's last work), so events on it time the model (a
 * NIC's rate the host's memmove cannot reach). want_ms <= 0: nothing. */
void fakecuda_stream_modelled(cudaStream_t stream, double ready_ms, double t0_ms, double want_ms);
/* As fakecuda_stream_modelled, the stream's clock stopped whatever FAKE_CUDA_COPY_MODEL says:
 * for work whose speed the environment states (FAKE_CUBLAS_TFLOPS), which two shared cores
 * must not set. */
void fakecuda_stream_rated(cudaStream_t stream, double ready_ms, double t0_ms, double want_ms);

/* Bytes of an element of one of scalecheck's types (sc_dtype_core.h's enumeration). */
#define FAKE_DTYPE_SIZE(t)                                                                         \
    ((t) == SC_DTYPE_int8 || (t) == SC_DTYPE_uint8                              ? 1u               \
     : (t) == SC_DTYPE_fp16 || (t) == SC_DTYPE_bf16                             ? 2u               \
     : (t) == SC_DTYPE_int32 || (t) == SC_DTYPE_uint32 || (t) == SC_DTYPE_float ? 4u               \
                                                                                : 8u)

#endif
