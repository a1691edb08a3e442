/* sc_nccl_prof_abi.h - NCCL's profiler plugin interface, version 4, as NCCL documents it
 * (ext-profiler/README.md in NCCL's repository; the interface came in NCCL 2.23): an NCCL that
 * has v4 loads the library NCCL_PROFILER_PLUGIN names and looks for the symbol
 * `ncclProfiler_v4` (later NCCLs still load v4).
 * Declared here in our own names, field for field in the documented order, so that the GPU
 * module can be the plugin (backend_nccl_prof.c) and the emulated NCCL can call it as NCCL
 * does (tests/fakes/fake_nccl_prof.c). The logger argument of init is a function pointer
 * (NCCL's ncclDebugLogger_t), held here as void *: the same register on every ABI NCCL runs. */
#ifndef SC_NCCL_PROF_ABI_H
#define SC_NCCL_PROF_ABI_H

#include <nccl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Event types (the activation mask's bits). */
enum {
    SC_NCCL_PROF_GROUP = 1 << 0,
    SC_NCCL_PROF_COLL = 1 << 1, /* a collective, when the host enqueues it */
    SC_NCCL_PROF_P2P = 1 << 2,  /* a send or receive, when the host enqueues it */
    SC_NCCL_PROF_PROXY_OP = 1 << 3,
    SC_NCCL_PROF_PROXY_STEP = 1 << 4,
    SC_NCCL_PROF_PROXY_CTRL = 1 << 5,
    SC_NCCL_PROF_KERNEL_CH = 1 << 6, /* a channel of the kernel, when the GPU runs it */
    SC_NCCL_PROF_NET_PLUGIN = 1 << 7,
};

typedef struct {
    uint8_t type;
    void *parent; /* the parent event's handle (a kernel channel's: its collective or p2p) */
    int rank;
    union {
        struct {
            uint64_t seq;
            const char *func; /* "AllReduce", ... */
            const void *send;
            void *recv;
            size_t count;
            int root;
            const char *datatype;
            uint8_t channels;
            uint8_t warps;
            const char *algo;  /* "RING", "TREE", "NVLS", ... */
            const char *proto; /* "LL", "LL128", "SIMPLE" */
        } coll;
        struct {
            const char *func; /* "Send", "Recv" */
            void *buf;
            const char *datatype;
            size_t count;
            int peer;
            uint8_t channels;
        } p2p;
        struct {
            pid_t pid;
            uint8_t channel;
            int peer;
            int steps;
            int chunk;
            int is_send;
        } proxy_op;
        struct {
            int step;
        } proxy_step;
        struct {
            uint8_t channel;
            uint64_t timer; /* the GPU's global timer at the channel's start, ns */
        } kernel_ch;
        struct {
            int64_t id;
            void *data;
        } net;
    };
} sc_nccl_prof_descr_t;

typedef struct {
    const char *name;
    ncclResult_t (*init)(void **context, int *mask, const char *comm_name, uint64_t comm_hash,
                         int nodes, int ranks, int rank, void *logger);
    ncclResult_t (*start_event)(void *context, void **handle, sc_nccl_prof_descr_t *descr);
    ncclResult_t (*stop_event)(void *handle);
    ncclResult_t (*record_state)(void *handle, int state, void *args);
    ncclResult_t (*finalize)(void *context);
} sc_nccl_profiler_v4_t;

#endif
