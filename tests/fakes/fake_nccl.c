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
 * Built three times: as 2.28.9; with -DFAKE_NCCL_OLD as 2.19.3, which lacks ncclAlltoAll,
 * ncclGather and ncclScatter (symbols added in 2.28) - the plugin must load and fall back; and
 * with -DFAKE_RCCL as RCCL 2.27.7 (soname librccl.so.1, the emulated AMD device's: RCCL keeps
 * NCCL's API), on the HIP streams of fake_hip.c, which are the emulated CUDA runtime's. */
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

#include "fake_nccl.h"

static _Thread_local char fn__last_error[256];
atomic_ullong fn__ops_done;
atomic_int fn__world_rank = -1;

int fn__env(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? atoi(v) : fallback;
}

ncclResult_t fn__fail(ncclComm_t c, ncclResult_t rc, const char *fmt, const char *arg)
{
    snprintf(fn__last_error, sizeof(fn__last_error), fmt, arg ? arg : "");
    if (c != NULL) {
        pthread_mutex_lock(&c->error_lock);
        snprintf(c->last_error, sizeof(c->last_error), "%s", fn__last_error);
        pthread_mutex_unlock(&c->error_lock);
    }
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

static void fn__live_remove(const struct ncclComm *c)
{
    pthread_mutex_lock(&fn__live.lock);
    for (int i = 0; i < fn__live.n; i++)
        if (fn__live.list[i] == c)
            fn__live.list[i] = fn__live.list[--fn__live.n];
    pthread_mutex_unlock(&fn__live.lock);
}

int fn__is_live(const struct ncclComm *c)
{
    int live = 0;
    pthread_mutex_lock(&fn__live.lock);
    for (int i = 0; i < fn__live.n && !live; i++)
        live = fn__live.list[i] == c;
    pthread_mutex_unlock(&fn__live.lock);
    return live;
}

void fn__comm_release(ncclComm_t c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    if (c->shm != NULL)
        munmap(c->shm, c->shm_bytes);
    pthread_mutex_destroy(&c->error_lock);
    free(c);
}

/* ---- waiting: only an abort (here or at a peer) ends a wait ---- */

ncclResult_t fn__check_abort(ncclComm_t c)
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

void fn__backoff(unsigned *spins)
{
    if (++*spins < 64) {
        sched_yield();
        return;
    }
    struct timespec nap = {0, 20000};
    nanosleep(&nap, NULL);
}

ncclResult_t fn__barrier(ncclComm_t c, atomic_uint *count, atomic_uint *gen)
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
    fn__prof_init(c);
    fn__net_init(c);
    return ncclSuccess;
}

static ncclComm_t fn__comm_new(const char *name, int rank, int nranks, int blocking)
{
    ncclComm_t c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->magic = FN_MAGIC;
    pthread_mutex_init(&c->error_lock, NULL);
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
    static const char *const text[] = {"no error",
                                       "unhandled cuda error",
                                       "unhandled system error",
                                       "internal error",
                                       "invalid argument",
                                       "invalid usage",
                                       "remote process exited or there was a network error",
                                       "NCCL operation in progress"};
    return (unsigned)rc < sizeof(text) / sizeof(text[0]) ? text[rc] : "unknown result code";
}

const char *ncclGetLastError(ncclComm_t comm)
{
    fakecuda_count(__func__);
    fakecuda_write_calls();
    if (comm != NULL && fn__is_live(comm)) { /* a copy for this thread: the stream's may write */
        pthread_mutex_lock(&comm->error_lock);
        if (comm->last_error[0] != '\0')
            snprintf(fn__last_error, sizeof(fn__last_error), "%s", comm->last_error);
        pthread_mutex_unlock(&comm->error_lock);
    }
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
    if (config->magic != 0xcafebeef || !FN_CONFIG_HAS(config, blocking, 21400)) {
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
    if (config != NULL && FN_CONFIG_HAS(config, commName, 22700) && config->commName != NULL)
        snprintf(c->user_name, sizeof(c->user_name), "%s", config->commName);
    cudaGetDevice(&c->cuda_dev);
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
ncclResult_t fn__usable(ncclComm_t c)
{
    if (c == NULL || c->magic != FN_MAGIC || !fn__is_live(c))
        return fn__fail(NULL, ncclInvalidArgument, "invalid communicator%s", "");
    if (atomic_load(&c->error) != ncclSuccess)
        return atomic_load(&c->error);
    ncclResult_t state = atomic_load(&c->state);
    if (state == ncclInProgress || c->polls_left > 0 || c->pending != NULL)
        return fn__fail(c, ncclInvalidUsage,
                        "communicator %s is in progress: poll ncclCommGetAsyncError first",
                        c->name);
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
    fn__prof_finalize(c);
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
    fn__prof_finalize(c);
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
        if (child != NULL) {
            snprintf(child->user_name, sizeof(child->user_name), "%s", p->split_user_name);
            child->cuda_dev = p->cuda_dev; /* the parent's device, as NCCL's split keeps it */
        }
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
    snprintf(comm->split_user_name, sizeof(comm->split_user_name), "%s",
             config != NULL && FN_CONFIG_HAS(config, commName, 22700) && config->commName != NULL
                 ? config->commName
                 : "");
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
