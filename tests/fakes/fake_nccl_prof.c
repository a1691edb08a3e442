/* fake_nccl_prof.c - the emulated NCCL's side of the profiler plugin interface (NCCL's
 * ext-profiler/README.md; the structure in harness/comm/sc_nccl_prof_abi.h): the library that
 * NCCL_PROFILER_PLUGIN names (a path, or NAME for libnccl-profiler-NAME.so; unset:
 * libnccl-profiler.so; RCCL's librccl-profiler-NAME.so, librccl-profiler.so) is opened once and its
 * `ncclProfiler_v4` used - v4 only, the one this fake knows; the emulated 2.19.3 predates the
 * interface (2.23) and loads none. init per communicator when it is ready (its commName from the
 * config); a collective's or a point-to-point's event when a group is launched, stopped at once
 * (NCCL's stop means "enqueued"); a kernel-channel event when the stream runs the operation,
 * stopped when it is done - never for an operation the stream does not run (FAKE_NCCL_HANG_AT). The
 * algorithm and protocol reported are the ones this fake would use: NCCL_ALGO and NCCL_PROTO read
 * at init (a list, or ^ to exclude, as NCCL takes them), else by size. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "comm/sc_nccl_prof_abi.h"
#include "fake_nccl.h"

static const sc_nccl_profiler_v4_t *fn__plugin;

static void fn__prof_load(void)
{
#if FN_HAS_PROFILER
    const char *named = getenv("NCCL_PROFILER_PLUGIN");
    char path[4096];
    if (named == NULL || named[0] == '\0')
        snprintf(path, sizeof(path), "%s", FN_PROFILER_PREFIX ".so");
    else if (strchr(named, '/') != NULL || strstr(named, ".so") != NULL)
        snprintf(path, sizeof(path), "%s", named);
    else
        snprintf(path, sizeof(path), "%s-%s.so", FN_PROFILER_PREFIX, named);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib != NULL)
        fn__plugin = dlsym(lib, "ncclProfiler_v4");
#endif
}

/* Whether word is in NCCL's list value (comma-separated, case-insensitive; a leading ^ makes it
 * the list of what is excluded); an unset list allows everything. */
static int fn__listed(const char *list, const char *word)
{
    if (list == NULL || list[0] == '\0')
        return 1;
    int exclude = list[0] == '^';
    const char *p = list + exclude;
    size_t n = strlen(word);
    int found = 0;
    while (*p != '\0' && !found) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        found = len == n && strncasecmp(p, word, n) == 0;
        p += len + (end != NULL);
    }
    return exclude ? !found : found;
}

int fn__prof_choose(ncclComm_t c, fn_kind_t kind, size_t bytes, const char **algo,
                    const char **proto)
{
    /* in the order this fake prefers them, for the size */
    int tree_first = kind == FN_ALLREDUCE && bytes <= (256u << 10) && c->nranks > 2;
    const char *algos[2] = {tree_first ? "TREE" : "RING", tree_first ? "RING" : "TREE"};
    const char *protos[3] = {bytes <= (64u << 10)  ? "LL"
                             : bytes <= (1u << 20) ? "LL128"
                                                   : "SIMPLE",
                             "SIMPLE", "LL"};
    *algo = *proto = NULL;
    for (int i = 0; i < 2 && *algo == NULL; i++)
        if ((kind == FN_ALLREDUCE || strcmp(algos[i], "RING") == 0) &&
            fn__listed(c->algo_env, algos[i]))
            *algo = algos[i];
    for (int i = 0; i < 3 && *proto == NULL; i++)
        if (fn__listed(c->proto_env, protos[i]))
            *proto = protos[i];
    if (*proto == NULL && fn__listed(c->proto_env, "LL128"))
        *proto = "LL128";
    return *algo != NULL && *proto != NULL;
}

void fn__prof_init(ncclComm_t c)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fn__prof_load);
    const char *algo = getenv("NCCL_ALGO"), *proto = getenv("NCCL_PROTO");
    snprintf(c->algo_env, sizeof(c->algo_env), "%s", algo ? algo : "");
    snprintf(c->proto_env, sizeof(c->proto_env), "%s", proto ? proto : "");
    c->prof_mask = 0;
    if (fn__plugin == NULL || fn__plugin->init == NULL)
        return;
    unsigned long long hash = 1469598103934665603ull; /* the shared segment's name, hashed */
    for (const char *p = c->name; *p; p++)
        hash = (hash ^ (unsigned char)*p) * 1099511628211ull;
    if (fn__plugin->init(&c->prof_ctx, &c->prof_mask, c->user_name, hash, 1, c->nranks, c->rank,
                         NULL) != ncclSuccess)
        c->prof_mask = 0;
}

void fn__prof_finalize(ncclComm_t c)
{
    if (c->prof_mask != 0 && fn__plugin->finalize != NULL)
        fn__plugin->finalize(c->prof_ctx);
    c->prof_mask = 0;
}

static const char *fn__func_name(fn_kind_t kind)
{
    static const char *const names[] = {[FN_ALLREDUCE] = "AllReduce",
                                        [FN_BROADCAST] = "Broadcast",
                                        [FN_REDUCE] = "Reduce",
                                        [FN_ALLGATHER] = "AllGather",
                                        [FN_REDUCESCATTER] = "ReduceScatter",
                                        [FN_ALLTOALL] = "AlltoAll",
                                        [FN_GATHER] = "Gather",
                                        [FN_SCATTER] = "Scatter",
                                        [FN_SEND] = "Send",
                                        [FN_RECV] = "Recv"};
    return names[kind];
}

static const char *fn__type_name(ncclDataType_t dt)
{
    static const char *const names[] = {
        [ncclInt8] = "ncclInt8",       [ncclUint8] = "ncclUint8",
        [ncclInt32] = "ncclInt32",     [ncclUint32] = "ncclUint32",
        [ncclInt64] = "ncclInt64",     [ncclUint64] = "ncclUint64",
        [ncclFloat16] = "ncclFloat16", [ncclFloat32] = "ncclFloat32",
        [ncclFloat64] = "ncclFloat64", [ncclBfloat16] = "ncclBfloat16"};
    return (unsigned)dt <= ncclBfloat16 ? names[dt] : "ncclFp8";
}

void fn__prof_enqueued(ncclComm_t c, fn_op_t *op)
{
    op->prof = NULL;
    int p2p = op->kind == FN_SEND || op->kind == FN_RECV;
    if ((c->prof_mask & (p2p ? SC_NCCL_PROF_P2P : SC_NCCL_PROF_COLL)) == 0)
        return;
    sc_nccl_prof_descr_t d;
    memset(&d, 0, sizeof(d));
    d.rank = c->rank;
    size_t bytes = op->count * fn__esize(op->dt);
    if (p2p) {
        d.type = SC_NCCL_PROF_P2P;
        d.p2p.func = fn__func_name(op->kind);
        d.p2p.buf = op->kind == FN_SEND ? (void *)op->send : op->recv;
        d.p2p.datatype = fn__type_name(op->dt);
        d.p2p.count = op->count;
        d.p2p.peer = op->root;
        d.p2p.channels = 1;
    } else {
        d.type = SC_NCCL_PROF_COLL;
        d.coll.seq = c->coll_seq++;
        d.coll.func = fn__func_name(op->kind);
        d.coll.send = op->send;
        d.coll.recv = op->recv;
        d.coll.count = op->count;
        d.coll.root = op->root;
        d.coll.datatype = fn__type_name(op->dt);
        d.coll.channels = (uint8_t)(bytes <= (64u << 10) ? 1 : bytes <= (4u << 20) ? 4 : 8);
        d.coll.warps = 16;
        fn__prof_choose(c, op->kind, bytes, &d.coll.algo, &d.coll.proto);
    }
    fn__plugin->start_event(c->prof_ctx, &op->prof, &d);
    if (op->prof != NULL) /* NCCL's stop of a collective: it is enqueued */
        fn__plugin->stop_event(op->prof);
}

void *fn__prof_kernel_start(ncclComm_t c, const fn_op_t *op)
{
    if ((c->prof_mask & SC_NCCL_PROF_KERNEL_CH) == 0 || op->prof == NULL)
        return NULL;
    sc_nccl_prof_descr_t d;
    memset(&d, 0, sizeof(d));
    d.type = SC_NCCL_PROF_KERNEL_CH;
    d.parent = op->prof;
    d.rank = c->rank;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    d.kernel_ch.timer = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    void *handle = NULL;
    fn__plugin->start_event(c->prof_ctx, &handle, &d);
    return handle;
}

void fn__prof_kernel_stop(void *handle)
{
    if (handle != NULL)
        fn__plugin->stop_event(handle);
}
