/* fake_nccl.h - what the three files of the emulated NCCL share (fake_nccl.c: communicators,
 * init, split, abort and errors; fake_nccl_data.c: the data movement on the stream;
 * fake_nccl_ops.c: groups and the operations' entry points). Not the real nccl.h's business:
 * internal to the fake. */
#ifndef FAKE_NCCL_H
#define FAKE_NCCL_H

#include <nccl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "coll/sc_check_core.h"
#include "fake_gpu.h"

#if defined(FAKE_RCCL)
#define FN_VERSION 22707 /* RCCL 2.27.7 (ROCm 7.1, 7.2): NCCL 2.27's API, profiler v4 */
#elif defined(FAKE_NCCL_OLD)
#define FN_VERSION 21903
#else
#define FN_VERSION 22809
#endif
/* What the version has: ncclAlltoAll, ncclGather, ncclScatter (NCCL 2.28; RCCL's are other
 * names the module does not use), the profiler plugin (NCCL 2.23). */
#define FN_HAS_ALLTOALL (FN_VERSION >= 22800)
/* The core under the emulated HCCL (fake_hccl.c, built with -DFAKE_HCCL): HCCL loads no NCCL
 * plugin, so its core loads none either (an NCCL_PROFILER_PLUGIN in the environment is not
 * HCCL's business). */
#ifdef FAKE_HCCL
#define FN_HAS_PROFILER   0
#define FN_READS_NCCL_ENV 0
#else
#define FN_READS_NCCL_ENV 1
#define FN_HAS_PROFILER   (FN_VERSION >= 22300)
#endif
/* the plugin's default name, and NAME's: RCCL's are its own (its ext-profiler/README.md) */
#ifdef FAKE_RCCL
#define FN_PROFILER_PREFIX "librccl-profiler"
#else
#define FN_PROFILER_PREFIX "libnccl-profiler"
#endif
/* Whether NCCL reads a config's field: it reads the caller's struct up to the caller's size (a
 * newer header's is cut, an older header's leaves the rest at the defaults: init.cc,
 * parseCommConfig), and only the fields its own version has (commName: 2.27). */
#define FN_CONFIG_HAS(config, field, since)                                                        \
    ((config)->size >= offsetof(ncclConfig_t, field) + sizeof((config)->field) &&                  \
     FN_VERSION >= (since))
#define FN_MAX_RANKS 64
#define FN_SLOT      (1u << 20)  /* each rank's staging area for collectives */
#define FN_CHUNK     (64u << 10) /* each (sender, receiver) channel for send/recv */
#define FN_MAGIC     0xfa4eu

typedef struct {
    atomic_int attached, nranks, aborted; /* aborted: 1 + the rank that aborted or failed */
    atomic_uint bar_count, bar_gen;
    atomic_uint split_count, split_gen;
    int split_color[FN_MAX_RANKS], split_key[FN_MAX_RANKS];
    atomic_ullong sent[FN_MAX_RANKS * FN_MAX_RANKS]; /* chunks put into channel s -> r */
    atomic_ullong taken[FN_MAX_RANKS * FN_MAX_RANKS];
    size_t len[FN_MAX_RANKS * FN_MAX_RANKS];   /* bytes of the chunk in the channel */
    size_t total[FN_MAX_RANKS * FN_MAX_RANKS]; /* bytes of the whole message */
    int dev[FN_MAX_RANKS];                     /* each rank's CUDA device */
    double nic_rate[FN_MAX_RANKS];             /* bytes a second through its NIC; 0: unknown */
} fn_shm_t;

typedef enum {
    FN_ALLREDUCE,
    FN_BROADCAST,
    FN_REDUCE,
    FN_ALLGATHER,
    FN_REDUCESCATTER,
    FN_ALLTOALL,
    FN_GATHER,
    FN_SCATTER,
    FN_SEND,
    FN_RECV
} fn_kind_t;

typedef struct {
    fn_kind_t kind;
    const char *send;
    char *recv;
    size_t count;
    ncclDataType_t dt;
    ncclRedOp_t op;
    int root; /* or the peer */
    cudaStream_t stream;
    ncclComm_t comm;
    void *prof; /* its event in the profiler plugin, or NULL */
} fn_op_t;

typedef struct fn_work fn_work_t;

struct ncclComm {
    unsigned magic;
    char name[96];
    int rank, nranks, blocking;
    fn_shm_t *shm;
    size_t shm_bytes;
    char *slots, *chans;
    atomic_int state; /* ncclResult_t: of the init, split, finalize or launch in progress */
    atomic_int error; /* the first asynchronous error of the work on the stream: sticky */
    atomic_int local_abort, running, refs;
    int polls_left;
    pthread_t worker;
    int has_worker;
    fn_work_t *pending; /* a non-blocking launch not yet on the stream */
    cudaStream_t pending_stream;
    unsigned split_seq;
    ncclComm_t *split_out;
    int split_color, split_key, split_blocking;
    char user_name[128];                    /* the config's commName */
    char split_user_name[128];              /* the next split's child's */
    char algo_env[64], proto_env[64];       /* NCCL_ALGO and NCCL_PROTO at init */
    void *prof_ctx;                         /* the profiler plugin's context */
    int prof_mask;                          /* the events it asked for; 0: none */
    unsigned long long coll_seq;            /* collectives enqueued */
    int cuda_dev;                           /* the device current where it was made */
    unsigned char net_logged[FN_MAX_RANKS]; /* connections through the network logged: 1 send, 2
                                               receive */
    char last_error[256]; /* written by the stream's thread too: under error_lock */
    pthread_mutex_t error_lock;
};

struct fn_work {
    fc_work_t base;
    ncclComm_t comm;
    fn_op_t *ops;
    int nops;
};

extern atomic_ullong fn__ops_done; /* operations run by this process, for the faults */
extern atomic_int fn__world_rank;  /* this process's rank in its first communicator */

/* fake_nccl.c: communicators, errors, waiting */
int fn__env(const char *name, int fallback);
ncclResult_t fn__fail(ncclComm_t c, ncclResult_t rc, const char *fmt, const char *arg);
int fn__is_live(const struct ncclComm *c);
void fn__comm_release(ncclComm_t c);
/* ncclSuccess, or why c may not run more: aborted here, or failed or aborted at a peer */
ncclResult_t fn__check_abort(ncclComm_t c);
void fn__backoff(unsigned *spins);
ncclResult_t fn__barrier(ncclComm_t c, atomic_uint *count, atomic_uint *gen);
/* A call on a communicator: live, and not still in progress. */
ncclResult_t fn__usable(ncclComm_t c);
/* fake_nccl_data.c: element types, the work a group puts on a stream */
int fn__dtype(ncclDataType_t dt, sc_dtype_t *out);
size_t fn__esize(ncclDataType_t dt);
void fn__work_run(fc_work_t *base);
void fn__work_destroy(fc_work_t *base);
/* fake_nccl_prof.c: the profiler plugin NCCL_PROFILER_PLUGIN names */
void fn__prof_init(ncclComm_t c); /* when c is ready; reads NCCL_ALGO and NCCL_PROTO */

/* The network transport (fake_nccl_net.c). */
void fn__net_init(ncclComm_t c);                        /* when c is ready */
int fn__net_used(void);                                 /* every peer through the network */
void fn__net_connect(ncclComm_t c, int send, int peer); /* logged at its first use */
/* How long sends and receives take through the NICs (ms; 0: their rates are not declared). */
double fn__net_model_ms(ncclComm_t c, const fn_op_t *ops, int nops);
void fn__prof_finalize(ncclComm_t c);
/* The algorithm and protocol c would run kind on bytes with; 0 when NCCL_ALGO/NCCL_PROTO leave
 * none. */
int fn__prof_choose(ncclComm_t c, fn_kind_t kind, size_t bytes, const char **algo,
                    const char **proto);
void fn__prof_enqueued(ncclComm_t c, fn_op_t *op);
void *fn__prof_kernel_start(ncclComm_t c, const fn_op_t *op);
void fn__prof_kernel_stop(void *handle);

#endif
