/* fake_nccl.c - an emulated NCCL (soname libnccl.so.2) for the emulated device
 * (tests/fakes/README.md). Ranks are processes of one host; a communicator is a shared-memory
 * segment named after its unique id, and collectives move the ranks' real data through it, on
 * the CUDA stream they were issued to (fakecuda_enqueue), so the plugin's exact data check runs.
 * Semantics follow NCCL's documentation (Communicators, Group Calls, Fault Tolerance), the
 * stricter reading where there is a choice:
 * - a non-blocking communicator's init and split return ncclInProgress and finish only after
 *   FAKE_NCCL_INIT_POLLS polls of ncclCommGetAsyncError (default 25); a split stores the child
 *   handle only when it completes, and the child is itself still initialising then;
 * - on a non-blocking communicator ncclGroupEnd (and an operation outside a group) returns
 *   ncclInProgress and puts the work on the stream only after FAKE_NCCL_DEFER_POLLS polls
 *   (default 3); any call on a communicator still in progress is ncclInvalidUsage;
 * - buffers must be device memory, a send's size must match its receive, config must come from
 *   NCCL_CONFIG_INITIALIZER: else ncclInvalidArgument / ncclInvalidUsage, with ncclGetLastError;
 * - a rank that aborts (ncclCommAbort) or fails releases its peers, who see ncclRemoteError;
 *   nothing else ends a wait: a missing peer hangs, as NCCL does, until the plugin aborts.
 * Faults for tests: FAKE_NCCL_FAULT_RANK (the world rank), with FAKE_NCCL_HANG_AT=K (its K-th
 * operation never completes) or FAKE_NCCL_ERROR_AT=K (its K-th operation fails asynchronously),
 * in the processes of one scalecheck command only where FAKE_NCCL_FAULT_COMMAND names it.
 * Built twice: as 2.28.9, and with -DFAKE_NCCL_OLD as 2.19.3, which lacks ncclAlltoAll,
 * ncclGather and ncclScatter (symbols added in 2.28) - the plugin must load and fall back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <nccl.h>

#include "coll/sc_check_core.h"
#include "fake_gpu.h"

#ifdef FAKE_NCCL_OLD
#define FN_VERSION 21903
#else
#define FN_VERSION 22809
#endif
#define FN_MAX_RANKS 64
#define FN_SLOT      (1u << 20) /* each rank's staging area for collectives */
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
} fn_shm_t;

typedef enum { FN_ALLREDUCE, FN_BROADCAST, FN_REDUCE, FN_ALLGATHER, FN_REDUCESCATTER,
               FN_ALLTOALL, FN_GATHER, FN_SCATTER, FN_SEND, FN_RECV } fn_kind_t;

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
    ncclComm_t split_child;
    int split_color, split_key, split_blocking;
    char last_error[256];
};

struct fn_work {
    fc_work_t base;
    ncclComm_t comm;
    fn_op_t *ops;
    int nops;
};

static _Thread_local char fn__last_error[256];
static atomic_ullong fn__ops_done;
static atomic_int fn__world_rank = -1;

static int fn__env(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? atoi(v) : fallback;
}

static ncclResult_t fn__fail(ncclComm_t c, ncclResult_t rc, const char *fmt, const char *arg)
{
    snprintf(fn__last_error, sizeof(fn__last_error), fmt, arg ? arg : "");
    if (c != NULL)
        snprintf(c->last_error, sizeof(c->last_error), "%s", fn__last_error);
    fakecuda_write_calls();
    return rc;
}

/* ---- live communicators: a destroyed or unknown handle is an error, not a crash ---- */

static struct {
    pthread_mutex_t lock;
    ncclComm_t list[256];
    int n;
} fn__live = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void fn__live_add(ncclComm_t c)
{
    pthread_mutex_lock(&fn__live.lock);
    if (fn__live.n < 256)
        fn__live.list[fn__live.n++] = c;
    pthread_mutex_unlock(&fn__live.lock);
}

static void fn__live_remove(ncclComm_t c)
{
    pthread_mutex_lock(&fn__live.lock);
    for (int i = 0; i < fn__live.n; i++)
        if (fn__live.list[i] == c)
            fn__live.list[i] = fn__live.list[--fn__live.n];
    pthread_mutex_unlock(&fn__live.lock);
}

static int fn__is_live(ncclComm_t c)
{
    int live = 0;
    pthread_mutex_lock(&fn__live.lock);
    for (int i = 0; i < fn__live.n && !live; i++)
        live = fn__live.list[i] == c;
    pthread_mutex_unlock(&fn__live.lock);
    return live;
}

static void fn__comm_release(ncclComm_t c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    if (c->shm != NULL)
        munmap(c->shm, c->shm_bytes);
    free(c);
}

/* ---- waiting: only an abort (here or at a peer) ends a wait ---- */

static ncclResult_t fn__check_abort(ncclComm_t c)
{
    if (atomic_load(&c->local_abort))
        return fn__fail(c, ncclInvalidUsage, "communicator aborted%s", "");
    int by = c->shm ? atomic_load(&c->shm->aborted) : 0;
    if (by != 0 && by != c->rank + 1) {
        char who[32];
        snprintf(who, sizeof(who), "%d", by - 1);
        return fn__fail(c, ncclRemoteError, "rank %s aborted or failed: remote error", who);
    }
    return ncclSuccess;
}

static void fn__backoff(unsigned *spins)
{
    if (++*spins < 64) {
        sched_yield();
        return;
    }
    struct timespec nap = {0, 20000};
    nanosleep(&nap, NULL);
}

static ncclResult_t fn__barrier(ncclComm_t c, atomic_uint *count, atomic_uint *gen)
{
    unsigned g = atomic_load(gen), spins = 0;
    if (atomic_fetch_add(count, 1) == (unsigned)c->nranks - 1) {
        atomic_store(count, 0);
        atomic_fetch_add(gen, 1);
        return ncclSuccess;
    }
    while (atomic_load(gen) == g) {
        ncclResult_t rc = fn__check_abort(c);
        if (rc != ncclSuccess)
            return rc;
        fn__backoff(&spins);
    }
    return ncclSuccess;
}

/* ---- the shared segment ---- */

static size_t fn__bytes(int nranks)
{
    return sizeof(fn_shm_t) + (size_t)nranks * FN_SLOT + (size_t)nranks * nranks * FN_CHUNK;
}

/* Maps the communicator's segment and waits until every rank has. */
static ncclResult_t fn__attach(ncclComm_t c)
{
    int fd = shm_open(c->name, O_CREAT | O_RDWR, 0600);
    if (fd < 0)
        return fn__fail(c, ncclSystemError, "shm_open %s failed", c->name);
    c->shm_bytes = fn__bytes(c->nranks);
    if (ftruncate(fd, (off_t)c->shm_bytes) != 0) {
        close(fd);
        return fn__fail(c, ncclSystemError, "ftruncate of %s failed", c->name);
    }
    void *mem = mmap(NULL, c->shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (mem == MAP_FAILED)
        return fn__fail(c, ncclSystemError, "mmap of %s failed", c->name);
    c->shm = mem;
    c->slots = (char *)mem + sizeof(fn_shm_t);
    c->chans = c->slots + (size_t)c->nranks * FN_SLOT;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&c->shm->nranks, &expected, c->nranks) &&
        expected != c->nranks)
        return fn__fail(c, ncclInvalidUsage, "ranks disagree on the communicator's size%s", "");
    if (atomic_fetch_add(&c->shm->attached, 1) == c->nranks - 1)
        shm_unlink(c->name); /* all are in: nothing is left behind, whatever happens next */
    unsigned spins = 0;
    while (atomic_load(&c->shm->attached) < c->nranks) {
        ncclResult_t rc = fn__check_abort(c);
        if (rc != ncclSuccess)
            return rc;
        fn__backoff(&spins);
    }
    return ncclSuccess;
}

static ncclComm_t fn__comm_new(const char *name, int rank, int nranks, int blocking)
{
    ncclComm_t c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->magic = FN_MAGIC;
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->rank = rank;
    c->nranks = nranks;
    c->blocking = blocking;
    atomic_init(&c->state, ncclInProgress);
    atomic_init(&c->refs, 1);
    c->polls_left = blocking ? 0 : fn__env("FAKE_NCCL_INIT_POLLS", 25);
    return c;
}

static void *fn__init_main(void *arg)
{
    ncclComm_t c = arg;
    atomic_store(&c->state, fn__attach(c));
    return NULL;
}

/* ---- the public surface: versions, ids, errors ---- */

ncclResult_t ncclGetVersion(int *version)
{
    fakecuda_count(__func__);
    *version = FN_VERSION;
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t rc)
{
    fakecuda_count(__func__);
    fakecuda_write_calls();
    static const char *const text[] = {"no error", "unhandled cuda error", "unhandled system error",
                                       "internal error", "invalid argument", "invalid usage",
                                       "remote process exited or there was a network error",
                                       "NCCL operation in progress"};
    return (unsigned)rc < sizeof(text) / sizeof(text[0]) ? text[rc] : "unknown result code";
}

const char *ncclGetLastError(ncclComm_t comm)
{
    fakecuda_count(__func__);
    fakecuda_write_calls();
    if (comm != NULL && fn__is_live(comm) && comm->last_error[0] != '\0')
        return comm->last_error;
    return fn__last_error;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    fakecuda_count(__func__);
    memset(id, 0, sizeof(*id));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long r = ((unsigned long long)getpid() << 32) ^ (unsigned long long)ts.tv_nsec ^
                           ((unsigned long long)ts.tv_sec << 20);
    snprintf(id->internal, sizeof(id->internal), "/fakenccl-%016llx", r);
    return ncclSuccess;
}

static int fn__config_blocking(const ncclConfig_t *config, ncclResult_t *rc)
{
    *rc = ncclSuccess;
    if (config == NULL)
        return 1;
    if (config->magic != 0xcafebeef || config->size != sizeof(ncclConfig_t)) {
        *rc = fn__fail(NULL, ncclInvalidArgument,
                       "config not initialised with NCCL_CONFIG_INITIALIZER%s", "");
        return 1;
    }
    return config->blocking == NCCL_CONFIG_UNDEF_INT ? 1 : config->blocking != 0;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t *config)
{
    fakecuda_count(__func__);
    ncclResult_t rc;
    int blocking = fn__config_blocking(config, &rc);
    if (rc != ncclSuccess)
        return rc;
    if (id.internal[0] != '/' || memchr(id.internal, '\0', sizeof(id.internal)) == NULL)
        return fn__fail(NULL, ncclInvalidArgument, "invalid unique id%s", "");
    if (nranks < 1 || nranks > FN_MAX_RANKS || rank < 0 || rank >= nranks)
        return fn__fail(NULL, ncclInvalidArgument, "invalid rank or size%s", "");
    if (cudaGetDeviceCount(&(int){0}) != cudaSuccess)
        return fn__fail(NULL, ncclUnhandledCudaError, "no CUDA device%s", "");
    ncclComm_t c = fn__comm_new(id.internal, rank, nranks, blocking);
    if (c == NULL)
        return ncclSystemError;
    fn__live_add(c);
    *comm = c;
    int expected = -1;
    atomic_compare_exchange_strong(&fn__world_rank, &expected, rank);
    if (blocking) {
        atomic_store(&c->state, fn__attach(c));
        return atomic_load(&c->state);
    }
    c->has_worker = pthread_create(&c->worker, NULL, fn__init_main, c) == 0;
    return c->has_worker ? ncclInProgress : ncclSystemError;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    fakecuda_count(__func__);
    return ncclCommInitRankConfig(comm, nranks, id, rank, NULL);
}

/* The pending launch of a non-blocking communicator goes onto its stream. */
static void fn__launch_pending(ncclComm_t c)
{
    fn_work_t *w = c->pending;
    c->pending = NULL;
    cudaError_t rc = fakecuda_enqueue(c->pending_stream, &w->base);
    atomic_store(&c->state, rc == cudaSuccess ? ncclSuccess
                                              : fn__fail(c, ncclUnhandledCudaError,
                                                         "enqueue on the stream failed%s", ""));
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *async)
{
    fakecuda_count(__func__);
    if (c == NULL || !fn__is_live(c))
        return fn__fail(NULL, ncclInvalidArgument, "invalid communicator%s", "");
    ncclResult_t state = atomic_load(&c->state);
    if (c->polls_left > 0)
        c->polls_left--;
    else if (state == ncclInProgress && c->pending != NULL)
        fn__launch_pending(c);
    else if (state == ncclSuccess && fn__check_abort(c) == ncclRemoteError) {
        int none = ncclSuccess;
        atomic_compare_exchange_strong(&c->error, &none, ncclRemoteError);
    }
    state = atomic_load(&c->error) != ncclSuccess ? atomic_load(&c->error) : atomic_load(&c->state);
    /* an init, split or finalize at work stays in progress until it is polled enough */
    *async = (state == ncclSuccess || state == ncclInProgress) && c->polls_left > 0 ? ncclInProgress
                                                                                    : state;
    return ncclSuccess;
}

/* A call on a communicator: live, and not still in progress. */
static ncclResult_t fn__usable(ncclComm_t c)
{
    if (c == NULL || c->magic != FN_MAGIC || !fn__is_live(c))
        return fn__fail(NULL, ncclInvalidArgument, "invalid communicator%s", "");
    if (atomic_load(&c->error) != ncclSuccess)
        return atomic_load(&c->error);
    ncclResult_t state = atomic_load(&c->state);
    if (state == ncclInProgress || c->polls_left > 0 || c->pending != NULL)
        return fn__fail(c, ncclInvalidUsage,
                        "communicator %s is in progress: poll ncclCommGetAsyncError first", c->name);
    return state == ncclSuccess ? ncclSuccess : state;
}

ncclResult_t ncclCommCount(const ncclComm_t c, int *count)
{
    fakecuda_count(__func__);
    ncclResult_t rc = fn__usable(c);
    if (rc == ncclSuccess)
        *count = c->nranks;
    return rc;
}

ncclResult_t ncclCommUserRank(const ncclComm_t c, int *rank)
{
    fakecuda_count(__func__);
    ncclResult_t rc = fn__usable(c);
    if (rc == ncclSuccess)
        *rank = c->rank;
    return rc;
}

/* ---- ending a communicator ---- */

static void fn__join_worker(ncclComm_t c)
{
    if (c->has_worker)
        pthread_join(c->worker, NULL);
    c->has_worker = 0;
}

/* Waits (at most 10 s) until no stream work of c runs: a stream thread must not touch it after. */
static void fn__drain_running(ncclComm_t c)
{
    for (int i = 0; i < 100000 && atomic_load(&c->running) > 0; i++) {
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
}

ncclResult_t ncclCommFinalize(ncclComm_t c)
{
    fakecuda_count(__func__);
    ncclResult_t rc = fn__usable(c);
    if (rc != ncclSuccess)
        return rc;
    if (!c->blocking) { /* flushes in the background: in progress for a few polls */
        c->polls_left = fn__env("FAKE_NCCL_DEFER_POLLS", 3);
        return ncclInProgress;
    }
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t c)
{
    fakecuda_count(__func__);
    if (c == NULL || !fn__is_live(c))
        return fn__fail(NULL, ncclInvalidArgument, "invalid communicator%s", "");
    fn__live_remove(c);
    fn__join_worker(c);
    fn__drain_running(c);
    c->magic = 0;
    fn__comm_release(c);
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t c)
{
    fakecuda_count(__func__);
    fakecuda_write_calls();
    if (c == NULL)
        return ncclSuccess;
    if (!fn__is_live(c))
        return fn__fail(NULL, ncclInvalidArgument, "invalid communicator%s", "");
    atomic_store(&c->local_abort, 1);
    if (c->shm != NULL) { /* the peers are released: they see a remote error */
        int none = 0;
        atomic_compare_exchange_strong(&c->shm->aborted, &none, c->rank + 1);
    }
    shm_unlink(c->name);
    fn__live_remove(c);
    fn__join_worker(c);
    fn__drain_running(c);
    if (c->pending != NULL)
        fakecuda_work_release(&c->pending->base);
    c->magic = 0;
    fn__comm_release(c);
    return ncclSuccess;
}

/* ---- split ---- */

static void *fn__split_main(void *arg)
{
    ncclComm_t p = arg;
    p->shm->split_color[p->rank] = p->split_color;
    p->shm->split_key[p->rank] = p->split_key;
    ncclResult_t rc = fn__barrier(p, &p->shm->split_count, &p->shm->split_gen);
    int rank = 0, size = 0;
    for (int q = 0; q < p->nranks && rc == ncclSuccess; q++) {
        if (p->shm->split_color[q] != p->split_color)
            continue;
        size++;
        int k = p->shm->split_key[q];
        rank += k < p->split_key || (k == p->split_key && q < p->rank);
    }
    if (rc == ncclSuccess) /* every rank has read the table before the next split writes it */
        rc = fn__barrier(p, &p->shm->split_count, &p->shm->split_gen);
    unsigned seq = ++p->split_seq;
    ncclComm_t child = NULL;
    if (rc == ncclSuccess && p->split_color != NCCL_SPLIT_NOCOLOR) {
        char name[96];
        snprintf(name, sizeof(name), "%.60s.s%u.c%d", p->name, seq, p->split_color);
        child = fn__comm_new(name, rank, size, p->split_blocking);
        rc = child ? fn__attach(child) : ncclSystemError;
        if (child != NULL) {
            atomic_store(&child->state, rc);
            fn__live_add(child);
        }
    }
    /* stored only now, when the split is complete */
    __atomic_store_n(p->split_out, child, __ATOMIC_RELEASE);
    atomic_store(&p->state, rc);
    return NULL;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                           ncclConfig_t *config)
{
    fakecuda_count(__func__);
    ncclResult_t rc = fn__usable(comm);
    if (rc != ncclSuccess)
        return rc;
    int blocking = fn__config_blocking(config, &rc);
    if (rc != ncclSuccess)
        return rc;
    if (color < NCCL_SPLIT_NOCOLOR)
        return fn__fail(comm, ncclInvalidArgument, "invalid colour%s", "");
    comm->split_color = color;
    comm->split_key = key;
    comm->split_blocking = blocking;
    comm->split_out = newcomm;
    if (comm->blocking) {
        fn__split_main(comm);
        return atomic_load(&comm->state);
    }
    fn__join_worker(comm); /* the init's, or the last split's */
    atomic_store(&comm->state, ncclInProgress);
    comm->polls_left = fn__env("FAKE_NCCL_INIT_POLLS", 25);
    comm->has_worker = pthread_create(&comm->worker, NULL, fn__split_main, comm) == 0;
    return comm->has_worker ? ncclInProgress : ncclSystemError;
}

/* ---- element types and reductions ---- */

static int fn__dtype(ncclDataType_t dt, sc_dtype_t *out)
{
    static const int map[] = {
        [ncclInt8] = SC_DTYPE_int8,     [ncclUint8] = SC_DTYPE_uint8,
        [ncclInt32] = SC_DTYPE_int32,   [ncclUint32] = SC_DTYPE_uint32,
        [ncclInt64] = SC_DTYPE_int64,   [ncclUint64] = SC_DTYPE_uint64,
        [ncclFloat16] = SC_DTYPE_fp16,  [ncclFloat32] = SC_DTYPE_float,
        [ncclFloat64] = SC_DTYPE_double, [ncclBfloat16] = SC_DTYPE_bf16,
    };
    if ((unsigned)dt > ncclBfloat16)
        return 0; /* the fp8 types: not emulated */
    *out = (sc_dtype_t)map[dt];
    return 1;
}

static size_t fn__esize(ncclDataType_t dt)
{
    sc_dtype_t t;
    return fn__dtype(dt, &t) ? FAKE_DTYPE_SIZE(t) : 1;
}

/* dst[i] = op over the n sources' element i (sources in rank order). */
static void fn__reduce_into(char *dst, const char *const *src, int n, size_t count,
                            ncclDataType_t dt, ncclRedOp_t op)
{
    sc_dtype_t t = SC_DTYPE_float;
    fn__dtype(dt, &t);
    for (size_t i = 0; i < count; i++) {
        double acc = sc_dtype_load(t, src[0], i);
        for (int r = 1; r < n; r++) {
            double v = sc_dtype_load(t, src[r], i);
            acc = op == ncclProd ? acc * v
                  : op == ncclMin ? (v < acc ? v : acc)
                  : op == ncclMax ? (v > acc ? v : acc)
                                  : acc + v;
        }
        if (op == ncclAvg)
            acc = sc_dtype_core_is_float(t) ? acc / n : trunc(acc / n);
        sc_dtype_store(t, dst, i, acc);
    }
}

/* ---- collectives through the slots: publish, barrier, consume, barrier ---- */

static char *fn__slot(ncclComm_t c, int r)
{
    return c->slots + (size_t)r * FN_SLOT;
}

/* Every rank publishes `blocks` blocks of n elements (block b from src + b * stride elements,
 * at element offset off), then consume(c, op, off, n) reads the slots. */
typedef void (*fn_consume_fn)(ncclComm_t c, const fn_op_t *op, size_t off, size_t n);

static ncclResult_t fn__exchange(ncclComm_t c, const fn_op_t *op, int publishes, int blocks,
                                 size_t stride, size_t count, fn_consume_fn consume)
{
    size_t es = fn__esize(op->dt);
    size_t step = FN_SLOT / es / (size_t)blocks;
    for (size_t off = 0; off < count || (count == 0 && off == 0); off += step) {
        size_t n = count - off < step ? count - off : step;
        if (publishes)
            for (int b = 0; b < blocks; b++)
                memcpy(fn__slot(c, c->rank) + (size_t)b * n * es,
                       op->send + ((size_t)b * stride + off) * es, n * es);
        ncclResult_t rc = fn__barrier(c, &c->shm->bar_count, &c->shm->bar_gen);
        if (rc == ncclSuccess)
            consume(c, op, off, n);
        if (rc == ncclSuccess)
            rc = fn__barrier(c, &c->shm->bar_count, &c->shm->bar_gen);
        if (rc != ncclSuccess)
            return rc;
        if (count == 0)
            break;
    }
    return ncclSuccess;
}

static void fn__consume_reduce(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    if (op->kind == FN_REDUCE && c->rank != op->root)
        return;
    const char *src[FN_MAX_RANKS];
    for (int r = 0; r < c->nranks; r++)
        src[r] = fn__slot(c, r);
    fn__reduce_into(op->recv + off * fn__esize(op->dt), src, c->nranks, n, op->dt, op->op);
}

static void fn__consume_bcast(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    size_t es = fn__esize(op->dt);
    memcpy(op->recv + off * es, fn__slot(c, op->root), n * es);
}

static void fn__consume_gather(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    if (op->kind == FN_GATHER && c->rank != op->root)
        return;
    size_t es = fn__esize(op->dt);
    for (int r = 0; r < c->nranks; r++)
        memcpy(op->recv + ((size_t)r * op->count + off) * es, fn__slot(c, r), n * es);
}

static void fn__consume_reducescatter(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    size_t es = fn__esize(op->dt);
    const char *src[FN_MAX_RANKS];
    for (int r = 0; r < c->nranks; r++)
        src[r] = fn__slot(c, r) + (size_t)c->rank * n * es;
    fn__reduce_into(op->recv + off * es, src, c->nranks, n, op->dt, op->op);
}

static void fn__consume_alltoall(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    size_t es = fn__esize(op->dt);
    for (int r = 0; r < c->nranks; r++)
        memcpy(op->recv + ((size_t)r * op->count + off) * es,
               fn__slot(c, r) + (size_t)c->rank * n * es, n * es);
}

static void fn__consume_scatter(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    size_t es = fn__esize(op->dt);
    memcpy(op->recv + off * es, fn__slot(c, op->root) + (size_t)c->rank * n * es, n * es);
}

static ncclResult_t fn__collective(ncclComm_t c, const fn_op_t *op)
{
    int root = c->rank == op->root, n = c->nranks;
    switch (op->kind) {
    case FN_ALLREDUCE:
    case FN_REDUCE:
        return fn__exchange(c, op, 1, 1, 0, op->count, fn__consume_reduce);
    case FN_BROADCAST:
        return fn__exchange(c, op, root, 1, 0, op->count, fn__consume_bcast);
    case FN_ALLGATHER:
    case FN_GATHER:
        return fn__exchange(c, op, 1, 1, 0, op->count, fn__consume_gather);
    case FN_REDUCESCATTER:
        return fn__exchange(c, op, 1, n, op->count, op->count, fn__consume_reducescatter);
    case FN_ALLTOALL:
        return fn__exchange(c, op, 1, n, op->count, op->count, fn__consume_alltoall);
    case FN_SCATTER:
        return fn__exchange(c, op, root, n, op->count, op->count, fn__consume_scatter);
    default:
        return ncclInternalError;
    }
}

/* ---- send/recv: one channel per (sender, receiver), every operation of a group at once ---- */

typedef struct {
    size_t done; /* bytes moved */
    int finished;
} fn_p2p_t;

static char *fn__chan(ncclComm_t c, int from, int to)
{
    return c->chans + ((size_t)from * c->nranks + to) * FN_CHUNK;
}

/* One step of a send or a receive; returns 1 when it moved something. A receive whose size is
 * not the send's is an error (NCCL: undefined; here ncclInvalidUsage). */
static int fn__p2p_step(ncclComm_t c, const fn_op_t *op, fn_p2p_t *st, ncclResult_t *rc)
{
    size_t bytes = op->count * fn__esize(op->dt);
    int from = op->kind == FN_SEND ? c->rank : op->root;
    int to = op->kind == FN_SEND ? op->root : c->rank;
    size_t ch = (size_t)from * c->nranks + to;
    fn_shm_t *s = c->shm;
    if (op->kind == FN_SEND) {
        if (atomic_load(&s->sent[ch]) != atomic_load(&s->taken[ch]))
            return 0; /* the receiver has not taken the last chunk */
        if (st->done == bytes && (bytes > 0 || st->finished == 1)) {
            st->finished = 2;
            return 1;
        }
        size_t n = bytes - st->done < FN_CHUNK ? bytes - st->done : FN_CHUNK;
        memcpy(fn__chan(c, from, to), op->send + st->done, n);
        s->len[ch] = n;
        s->total[ch] = bytes;
        st->done += n;
        st->finished = 1;
        atomic_fetch_add(&s->sent[ch], 1);
        return 1;
    }
    if (atomic_load(&s->sent[ch]) == atomic_load(&s->taken[ch]))
        return 0;
    if (s->total[ch] != bytes) {
        *rc = fn__fail(c, ncclInvalidUsage, "send/recv size mismatch%s", "");
        return 0;
    }
    memcpy(op->recv + st->done, fn__chan(c, from, to), s->len[ch]);
    st->done += s->len[ch];
    atomic_fetch_add(&s->taken[ch], 1);
    if (st->done == bytes)
        st->finished = 2;
    return 1;
}

static ncclResult_t fn__p2p(ncclComm_t c, const fn_op_t *ops, int nops)
{
    fn_p2p_t *st = calloc((size_t)nops, sizeof(*st));
    if (st == NULL)
        return ncclSystemError;
    ncclResult_t rc = ncclSuccess;
    unsigned spins = 0;
    for (;;) {
        int left = 0, moved = 0;
        for (int i = 0; i < nops && rc == ncclSuccess; i++) {
            if (st[i].finished == 2)
                continue;
            /* operations towards one peer go in issue order */
            int earlier = 0;
            for (int j = 0; j < i && !earlier; j++)
                earlier = st[j].finished != 2 && ops[j].kind == ops[i].kind &&
                          ops[j].root == ops[i].root;
            left++;
            if (!earlier)
                moved |= fn__p2p_step(c, &ops[i], &st[i], &rc);
        }
        if (rc != ncclSuccess || left == 0)
            break;
        if (!moved) {
            rc = fn__check_abort(c);
            fn__backoff(&spins);
        } else {
            spins = 0;
        }
    }
    free(st);
    return rc;
}

/* ---- the work on the stream ---- */

/* Whether this process runs the scalecheck command FAKE_NCCL_FAULT_COMMAND names (its first
 * argument: "run", "coll"), or no command is named. */
static int fn__fault_command(void)
{
    const char *want = getenv("FAKE_NCCL_FAULT_COMMAND");
    if (want == NULL || want[0] == '\0')
        return 1;
    char args[4096] = "";
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f != NULL ? fread(args, 1, sizeof(args) - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    args[n] = '\0';
    size_t first = strlen(args) + 1; /* the program, then its first argument */
    return first < n && strcmp(args + first, want) == 0;
}

static int fn__fault_here(const char *env)
{
    int at = fn__env(env, 0);
    return at > 0 && fn__env("FAKE_NCCL_FAULT_RANK", -1) == atomic_load(&fn__world_rank) &&
           atomic_load(&fn__ops_done) + 1 == (unsigned long long)at && fn__fault_command();
}

static void fn__work_run(fc_work_t *base)
{
    fn_work_t *w = (fn_work_t *)base;
    ncclComm_t c = w->comm;
    atomic_fetch_add(&c->running, 1);
    ncclResult_t rc = fn__check_abort(c);
    if (rc == ncclSuccess && atomic_load(&c->error) != ncclSuccess)
        rc = atomic_load(&c->error); /* a failed communicator runs nothing more */
    if (rc == ncclSuccess && fn__fault_here("FAKE_NCCL_HANG_AT")) {
        fprintf(stderr, "fake NCCL: rank %d hangs in operation %llu (injected)\n", c->rank,
                atomic_load(&fn__ops_done) + 1);
        unsigned spins = 64;
        while (!atomic_load(&c->local_abort))
            fn__backoff(&spins);
        rc = ncclInvalidUsage;
    }
    if (rc == ncclSuccess && fn__fault_here("FAKE_NCCL_ERROR_AT")) {
        rc = fn__fail(c, ncclSystemError, "injected asynchronous error%s", "");
        int none = 0;
        atomic_compare_exchange_strong(&c->shm->aborted, &none, c->rank + 1);
    }
    int p2p = 0;
    for (int i = 0; i < w->nops && rc == ncclSuccess; i++) {
        if (w->ops[i].kind == FN_SEND || w->ops[i].kind == FN_RECV)
            p2p++;
        else
            rc = fn__collective(c, &w->ops[i]);
    }
    if (rc == ncclSuccess && p2p > 0) { /* after the collectives, all at once */
        fn_op_t *ops = malloc((size_t)p2p * sizeof(*ops));
        int k = 0;
        for (int i = 0; i < w->nops && ops != NULL; i++)
            if (w->ops[i].kind == FN_SEND || w->ops[i].kind == FN_RECV)
                ops[k++] = w->ops[i];
        rc = ops ? fn__p2p(c, ops, p2p) : ncclSystemError;
        free(ops);
    }
    atomic_fetch_add(&fn__ops_done, 1);
    if (rc != ncclSuccess && !atomic_load(&c->local_abort)) {
        int none = ncclSuccess;
        atomic_compare_exchange_strong(&c->error, &none, rc);
    }
    atomic_fetch_sub(&c->running, 1);
}

static void fn__work_destroy(fc_work_t *base)
{
    fn_work_t *w = (fn_work_t *)base;
    fn__comm_release(w->comm);
    free(w->ops);
    free(w);
}

/* ---- groups ---- */

static _Thread_local struct {
    int depth;
    fn_op_t *ops;
    int n, cap;
    ncclResult_t error; /* the first error of an operation inside the group */
} fn__group;

ncclResult_t ncclGroupStart(void)
{
    fakecuda_count(__func__);
    fn__group.depth++;
    return ncclSuccess;
}

/* The work of comm's operations in the group (in issue order), on their one stream. */
static ncclResult_t fn__make_work(ncclComm_t comm, fn_work_t **out, cudaStream_t *stream)
{
    fn_work_t *w = calloc(1, sizeof(*w));
    w->ops = calloc((size_t)fn__group.n, sizeof(*w->ops));
    *stream = NULL;
    int have_stream = 0;
    for (int i = 0; i < fn__group.n; i++) {
        if (fn__group.ops[i].comm != comm)
            continue;
        if (have_stream && fn__group.ops[i].stream != *stream) {
            free(w->ops);
            free(w);
            return fn__fail(comm, ncclInvalidUsage,
                            "one communicator's operations in a group on two streams%s", "");
        }
        *stream = fn__group.ops[i].stream;
        have_stream = 1;
        w->ops[w->nops++] = fn__group.ops[i];
    }
    w->base = (fc_work_t){.run = fn__work_run, .destroy = fn__work_destroy, .what = "nccl"};
    atomic_init(&w->base.refs, 1);
    atomic_fetch_add(&comm->refs, 1);
    w->comm = comm;
    *out = w;
    return ncclSuccess;
}

static ncclResult_t fn__launch_group(void)
{
    ncclResult_t rc = fn__group.error, result = ncclSuccess;
    for (int i = 0; i < fn__group.n && rc == ncclSuccess; i++) {
        ncclComm_t comm = fn__group.ops[i].comm;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = fn__group.ops[j].comm == comm;
        if (seen)
            continue;
        fn_work_t *w = NULL;
        cudaStream_t stream;
        rc = fn__make_work(comm, &w, &stream);
        if (rc != ncclSuccess)
            break;
        if (!comm->blocking) { /* launched later, from a poll */
            comm->pending = w;
            comm->pending_stream = stream;
            comm->polls_left = fn__env("FAKE_NCCL_DEFER_POLLS", 3);
            atomic_store(&comm->state, ncclInProgress);
            result = ncclInProgress;
        } else if (fakecuda_enqueue(stream, &w->base) != cudaSuccess) {
            rc = fn__fail(comm, ncclUnhandledCudaError, "enqueue on the stream failed%s", "");
        }
    }
    fn__group.n = 0;
    fn__group.error = ncclSuccess;
    return rc != ncclSuccess ? rc : result;
}

ncclResult_t ncclGroupEnd(void)
{
    fakecuda_count(__func__);
    if (fn__group.depth == 0)
        return fn__fail(NULL, ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart%s", "");
    return --fn__group.depth > 0 ? ncclSuccess : fn__launch_group();
}

/* Checks and queues one operation; outside a group it is a group of its own. */
static ncclResult_t fn__issue(fn_op_t op, size_t send_bytes, size_t recv_bytes)
{
    ncclResult_t rc = fn__usable(op.comm);
    sc_dtype_t t = SC_DTYPE_float;
    if (rc == ncclSuccess && !fn__dtype(op.dt, &t))
        rc = fn__fail(op.comm, ncclInvalidArgument, "data type not emulated%s", "");
    if (rc == ncclSuccess && ((unsigned)op.op >= ncclNumOps))
        rc = fn__fail(op.comm, ncclInvalidArgument, "invalid reduction%s", "");
    if (rc == ncclSuccess && (op.root < 0 || op.root >= op.comm->nranks))
        rc = fn__fail(op.comm, ncclInvalidArgument, "invalid root or peer%s", "");
    if (rc == ncclSuccess && ((send_bytes && !fakecuda_is_device(op.send, send_bytes)) ||
                              (recv_bytes && !fakecuda_is_device(op.recv, recv_bytes))))
        rc = fn__fail(op.comm, ncclInvalidArgument, "invalid device pointer%s", "");
    if (rc != ncclSuccess) {
        if (fn__group.depth > 0 && fn__group.error == ncclSuccess)
            fn__group.error = rc;
        return rc;
    }
    if (fn__group.n == fn__group.cap) {
        int cap = fn__group.cap ? 2 * fn__group.cap : 16;
        fn_op_t *ops = realloc(fn__group.ops, (size_t)cap * sizeof(*ops));
        if (ops == NULL)
            return ncclSystemError;
        fn__group.ops = ops;
        fn__group.cap = cap;
    }
    fn__group.ops[fn__group.n++] = op;
    return fn__group.depth > 0 ? ncclSuccess : fn__launch_group();
}

#define FN_OP(kind, s, r, n, dt, red, root, comm, stream)                                          \
    (fn_op_t){kind, (const char *)(s), (char *)(r), n, dt, red, root, stream, comm}

ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t dt, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    return fn__issue(FN_OP(FN_ALLREDUCE, s, r, n, dt, op, 0, comm, stream), b, b);
}

ncclResult_t ncclReduce(const void *s, void *r, size_t n, ncclDataType_t dt, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    int mine = comm != NULL && fn__is_live(comm) && comm->rank == root;
    return fn__issue(FN_OP(FN_REDUCE, s, r, n, dt, op, root, comm, stream), b, mine ? b : 0);
}

ncclResult_t ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t dt, int root,
                           ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    int mine = comm != NULL && fn__is_live(comm) && comm->rank == root;
    return fn__issue(FN_OP(FN_BROADCAST, s, r, n, dt, ncclSum, root, comm, stream), mine ? b : 0,
                     b);
}

static int fn__size_of(ncclComm_t comm)
{
    return comm != NULL && fn__is_live(comm) ? comm->nranks : 1;
}

ncclResult_t ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t dt, ncclComm_t comm,
                           cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    return fn__issue(FN_OP(FN_ALLGATHER, s, r, n, dt, ncclSum, 0, comm, stream), b,
                     b * (size_t)fn__size_of(comm));
}

ncclResult_t ncclReduceScatter(const void *s, void *r, size_t n, ncclDataType_t dt,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    return fn__issue(FN_OP(FN_REDUCESCATTER, s, r, n, dt, op, 0, comm, stream),
                     b * (size_t)fn__size_of(comm), b);
}

ncclResult_t ncclSend(const void *s, size_t n, ncclDataType_t dt, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    fakecuda_count(__func__);
    return fn__issue(FN_OP(FN_SEND, s, NULL, n, dt, ncclSum, peer, comm, stream),
                     n * fn__esize(dt), 0);
}

ncclResult_t ncclRecv(void *r, size_t n, ncclDataType_t dt, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    fakecuda_count(__func__);
    return fn__issue(FN_OP(FN_RECV, NULL, r, n, dt, ncclSum, peer, comm, stream), 0,
                     n * fn__esize(dt));
}

#ifndef FAKE_NCCL_OLD
ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n, ncclDataType_t dt, ncclComm_t comm,
                          cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt) * (size_t)fn__size_of(comm);
    return fn__issue(FN_OP(FN_ALLTOALL, s, r, n, dt, ncclSum, 0, comm, stream), b, b);
}

ncclResult_t ncclGather(const void *s, void *r, size_t n, ncclDataType_t dt, int root,
                        ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    int mine = comm != NULL && fn__is_live(comm) && comm->rank == root;
    return fn__issue(FN_OP(FN_GATHER, s, r, n, dt, ncclSum, root, comm, stream), b,
                     mine ? b * (size_t)fn__size_of(comm) : 0);
}

ncclResult_t ncclScatter(const void *s, void *r, size_t n, ncclDataType_t dt, int root,
                         ncclComm_t comm, cudaStream_t stream)
{
    fakecuda_count(__func__);
    size_t b = n * fn__esize(dt);
    int mine = comm != NULL && fn__is_live(comm) && comm->rank == root;
    return fn__issue(FN_OP(FN_SCATTER, s, r, n, dt, ncclSum, root, comm, stream),
                     mine ? b * (size_t)fn__size_of(comm) : 0, b);
}
#endif

/* ---- NCCL-allocated and registered buffers (nccl-tests -R) ---- */

ncclResult_t ncclMemAlloc(void **ptr, size_t size)
{
    fakecuda_count(__func__);
    return cudaMalloc(ptr, size) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

ncclResult_t ncclMemFree(void *ptr)
{
    fakecuda_count(__func__);
    return cudaFree(ptr) == cudaSuccess ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle)
{
    fakecuda_count(__func__);
    ncclResult_t rc = fn__usable(comm);
    if (rc == ncclSuccess && !fakecuda_is_device(buff, size))
        rc = fn__fail(comm, ncclInvalidArgument, "registering memory that is not device memory%s",
                      "");
    if (rc == ncclSuccess)
        *handle = buff;
    return rc;
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle)
{
    fakecuda_count(__func__);
    (void)handle;
    return fn__usable(comm);
}
