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

/* CUDA calls are not permitted from inside a host function (CUDA Runtime API, cudaLaunchHostFunc).
 */
#define FC_API()                                                                                   \
    do {                                                                                           \
        fakecuda_count(__func__);                                                                  \
        if (fc__in_host_fn)                                                                        \
            return fc__ret(cudaErrorNotPermitted);                                                 \
    } while (0)

#endif
