/* fake_cudart.h - what the two files of the emulated CUDA runtime share (fake_cudart.c: the
 * machine, memory, streams, the callback thread, copies and host functions; fake_cudart_api.c:
 * events, graphs, devices, errors and the launch entry points). Internal to the fake. */
#ifndef FAKE_CUDART_H
#define FAKE_CUDART_H

#include <pthread.h>

#include "fake_gpu.h"

typedef struct fc_node {
    fc_work_t *work;
    struct fc_node *next;
    double enqueued_ms; /* when it went onto its stream (a graph's work goes on again and again) */
} fc_node_t;

struct CUgraph_st {
    fc_node_t *head, *tail;
    size_t nodes;
};

struct CUgraphExec_st {
    fc_work_t **work;
    size_t n;
};

struct CUstream_st {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    fc_node_t *head, *tail;
    int busy, destroying;
    pthread_t thread;
    cudaGraph_t capture; /* non-NULL while capturing */
    int capture_invalid;
    int device;
    double last_end_ms;  /* when its last work ended (fc__now_ms) */
    double frozen_ms;    /* its clock's lag behind the host's: fake_cudart_copy.c */
    double copy_done_ms; /* when a modelled copy it ran last ended, 0: none since */
    unsigned magic;
};
#define FC_STREAM_MAGIC 0x5743a11u

extern _Thread_local int fc__device;             /* cudaSetDevice's */
extern _Thread_local cudaError_t fc__last_error; /* cudaGetLastError's */
extern _Thread_local int fc__in_host_fn;         /* on the callback thread, in a host function */
extern cudaStream_t fc__legacy;                  /* stream 0, once made */

int fc__env_int(const char *name, int fallback);
int fc__devices(void);
size_t fc__device_mem(void);
/* rc, recorded as the last error when it is one */
cudaError_t fc__ret(cudaError_t rc);
double fc__now_ms(void);
/* The stream a handle names (NULL and cudaStreamLegacy: stream 0), NULL for no stream. */
cudaStream_t fc__stream_of(cudaStream_t s);
void fc__stream_wait_idle(cudaStream_t s);
/* cudaErrorStreamCaptureUnsupported (and the capture invalidated) while s captures */
cudaError_t fc__not_while_capturing(cudaStream_t s);
void fc__free_work(fc_work_t *w);

/* fake_cudart_copy.c: the copy engines' link model. A copy's rate (GB/s of its bytes; 0: not
 * modelled, the host's memmove sets it) and the root port it shares (-1: none). */
typedef struct {
    double GBps;
    int port;
} fc_copy_model_t;
/* The device whose allocation holds [ptr, ptr + bytes), or -1. */
int fakecuda_device_of(const void *ptr, size_t bytes);
/* Whether [ptr, ptr + bytes) lies inside one pinned host range. */
int fakecuda_is_pinned(const void *ptr, size_t bytes);
void fakecuda_copy_model(void *dst, const void *src, size_t bytes, fc_copy_model_t *model);
cudaError_t fakecuda_enqueue_model_copy(void *dst, const void *src, size_t bytes,
                                        const fc_copy_model_t *model, cudaStream_t stream);
/* Whether device `from` has peer access to `to` enabled (cudaDeviceEnablePeerAccess). */
int fakecuda_peer_enabled(int from, int to);
/* The stream whose thread calls it (work running on it), or NULL off the streams' threads. */
cudaStream_t fakecuda_running_stream(void);
/* Device's bus number in the emulated machine's tree (SCALECHECK_SYS_ROOT), -1: none there. */
int fakecuda_tree_bus(int device);

/* CUDA calls are not permitted from inside a host function (CUDA Runtime API, cudaLaunchHostFunc).
 */
#define FC_API()                                                                                   \
    do {                                                                                           \
        fakecuda_count(__func__);                                                                  \
        if (fc__in_host_fn)                                                                        \
            return fc__ret(cudaErrorNotPermitted);                                                 \
    } while (0)

#endif
