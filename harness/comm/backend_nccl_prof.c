/* backend_nccl_prof.c - the GPU module is also an NCCL profiler plugin (sc_nccl_prof_abi.h):
 * before the first communicator, NCCL_PROFILER_PLUGIN is pointed at this module (unless the
 * user named another plugin), and NCCL then reports to it, per communicator, each collective
 * as it is enqueued - with the algorithm, protocol and channel count NCCL chose - and each
 * kernel channel as the GPU starts and ends it. From that the backend knows what NCCL chose
 * for the operation it just timed, and the watchdog how far this rank's GPU got: a rank whose
 * GPU never started an operation its peers' GPUs started is the one that holds them. NCCL may
 * call from its proxy thread: everything here is atomics and short locks; no event is freed
 * (handles are slots of rings, reused long after their operation ended). */
#include "comm/backend_nccl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROF__CONTEXTS 256
#define PROF__RING     4096
#define PROF__TIMES    1024 /* the last operations' times, per communicator */

typedef struct {
    char name[64]; /* the communicator's commName (the backend's label) */
    pthread_mutex_t lock;
    sc_nccl_choice_t last; /* the last collective enqueued */
    atomic_bool used;
    /* when each of the last operations' kernels started and ended on this GPU (the host's
     * monotonic clock as NCCL reported them; 0: not yet), by operation number */
    struct {
        atomic_uint_fast64_t start_ns, stop_ns;
    } times[PROF__TIMES];
    atomic_uint ops;
    uint64_t hash; /* NCCL's commHash: the same on every rank */
    /* its operations, those its GPU started and those whose every kernel channel ended */
    atomic_uint_fast64_t enqueued, started, ended;
} prof__context_t;

typedef struct prof__event prof__event_t;
struct prof__event {
    uint8_t kind; /* SC_NCCL_PROF_COLL, _P2P or _KERNEL_CH */
    atomic_bool started;
    atomic_int running;       /* an operation's kernel channels started and not ended */
    prof__context_t *context; /* an operation's: its communicator and number there */
    unsigned number;
    prof__event_t *parent; /* a kernel channel's operation */
};

static uint64_t prof__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct {
    prof__context_t contexts[PROF__CONTEXTS];
    prof__event_t ops[PROF__RING], kernels[PROF__RING];
    atomic_uint next_op, next_kernel;
    atomic_bool loaded; /* NCCL called init at least once */
    char note[256];     /* why NCCL's choices are not known, or "" */
} prof__state;

static prof__context_t *prof__context_named(const char *name)
{
    for (int i = 0; i < PROF__CONTEXTS; i++) {
        prof__context_t *c = &prof__state.contexts[i];
        if (atomic_load(&c->used) && strncmp(c->name, name, sizeof(c->name)) == 0)
            return c;
    }
    return NULL;
}

ncclResult_t sc_nccl_prof_init(void **context, int *mask, const char *comm_name, uint64_t comm_hash,
                               int nodes, int ranks, int rank, void *logger)
{
    (void)nodes, (void)ranks, (void)rank, (void)logger;
    for (int i = 0; i < PROF__CONTEXTS; i++) {
        prof__context_t *c = &prof__state.contexts[i];
        bool free_slot = false;
        if (!atomic_compare_exchange_strong(&c->used, &free_slot, true))
            continue;
        pthread_mutex_lock(&c->lock);
        snprintf(c->name, sizeof(c->name), "%s", comm_name != NULL ? comm_name : "");
        c->hash = comm_hash;
        atomic_store(&c->enqueued, 0);
        atomic_store(&c->started, 0);
        atomic_store(&c->ended, 0);
        memset(&c->last, 0, sizeof(c->last));
        pthread_mutex_unlock(&c->lock);
        *context = c;
        *mask = SC_NCCL_PROF_COLL | SC_NCCL_PROF_P2P | SC_NCCL_PROF_KERNEL_CH;
        atomic_store(&prof__state.loaded, true);
        return ncclSuccess;
    }
    return ncclInternalError; /* NCCL then runs this communicator without the plugin */
}

static void prof__note_choice(prof__context_t *c, const sc_nccl_prof_descr_t *d)
{
    pthread_mutex_lock(&c->lock);
    sc_nccl_choice_t *last = &c->last;
    snprintf(last->func, sizeof(last->func), "%s", d->coll.func ? d->coll.func : "");
    snprintf(last->algo, sizeof(last->algo), "%s", d->coll.algo ? d->coll.algo : "");
    snprintf(last->proto, sizeof(last->proto), "%s", d->coll.proto ? d->coll.proto : "");
    last->channels = d->coll.channels;
    last->seq = d->coll.seq;
    last->known = true;
    pthread_mutex_unlock(&c->lock);
}

static prof__event_t *prof__take(prof__event_t *ring, atomic_uint *next, uint8_t kind)
{
    prof__event_t *e = &ring[atomic_fetch_add(next, 1) % PROF__RING];
    e->kind = kind;
    atomic_store(&e->started, false);
    atomic_store(&e->running, 0);
    e->context = NULL;
    e->parent = NULL;
    return e;
}

ncclResult_t sc_nccl_prof_start(void *context, void **handle, sc_nccl_prof_descr_t *d)
{
    *handle = NULL;
    if (d->type == SC_NCCL_PROF_COLL || d->type == SC_NCCL_PROF_P2P) {
        if (d->type == SC_NCCL_PROF_COLL && context != NULL && d->coll.func != NULL)
            prof__note_choice(context, d);
        prof__event_t *op = prof__take(prof__state.ops, &prof__state.next_op, d->type);
        prof__context_t *c = context;
        if (c != NULL) {
            op->context = c;
            atomic_fetch_add(&c->enqueued, 1);
            op->number = atomic_fetch_add(&c->ops, 1);
            atomic_store(&c->times[op->number % PROF__TIMES].start_ns, 0);
            atomic_store(&c->times[op->number % PROF__TIMES].stop_ns, 0);
        }
        *handle = op;
    } else if (d->type == SC_NCCL_PROF_KERNEL_CH) {
        /* the first channel of an operation to start is its start on this GPU */
        prof__event_t *op = d->parent;
        if (op != NULL)
            atomic_fetch_add(&op->running, 1);
        if (op != NULL && !atomic_exchange(&op->started, true)) {
            if (op->context != NULL)
                atomic_fetch_add(&op->context->started, 1);
            if (op->context != NULL)
                atomic_store(&op->context->times[op->number % PROF__TIMES].start_ns,
                             prof__now_ns());
        }
        prof__event_t *k = prof__take(prof__state.kernels, &prof__state.next_kernel, d->type);
        k->parent = op;
        *handle = k;
    }
    return ncclSuccess;
}

ncclResult_t sc_nccl_prof_stop(void *handle)
{
    prof__event_t *e = handle;
    /* a collective's stop says only that it was enqueued; a kernel channel's that it ended */
    if (e != NULL && e->kind == SC_NCCL_PROF_KERNEL_CH) {
        prof__event_t *op = e->parent; /* the last channel to end is the operation's end */
        if (op != NULL && op->context != NULL)
            atomic_store(&op->context->times[op->number % PROF__TIMES].stop_ns, prof__now_ns());
        if (op != NULL && op->context != NULL && atomic_fetch_sub(&op->running, 1) == 1)
            atomic_fetch_add(&op->context->ended, 1);
    }
    return ncclSuccess;
}

ncclResult_t sc_nccl_prof_state(void *handle, int state, void *args)
{
    (void)handle, (void)state, (void)args;
    return ncclSuccess;
}

ncclResult_t sc_nccl_prof_finalize(void *context)
{
    prof__context_t *c = context;
    if (c != NULL)
        atomic_store(&c->used, false);
    return ncclSuccess;
}

/* Points NCCL at this module, once, where the module is the plugin (the program's own tests
 * link the backend without it). */
static void prof__arm_once(void)
{
    for (int i = 0; i < PROF__CONTEXTS; i++)
        pthread_mutex_init(&prof__state.contexts[i].lock, NULL);
#ifdef SC_GPU_ASCEND
    snprintf(prof__state.note, sizeof(prof__state.note),
             "HCCL has no profiler plugin: its algorithm and its devices' progress are not "
             "recorded");
    return;
#endif
    const char *named = getenv("NCCL_PROFILER_PLUGIN");
    if (named != NULL && named[0] != '\0') {
        snprintf(prof__state.note, sizeof(prof__state.note),
                 "NCCL_PROFILER_PLUGIN=%s is the user's: NCCL's algorithm and protocol are not "
                 "recorded",
                 named);
        return;
    }
    Dl_info self;
    void *module = NULL;
    if (dladdr((void *)sc_nccl_prof_init, &self) != 0 && self.dli_fname != NULL)
        module = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (module == NULL || dlsym(module, "ncclProfiler_v4") == NULL) {
        snprintf(prof__state.note, sizeof(prof__state.note),
                 "this build is not the GPU module: NCCL's choices are not recorded");
    } else {
        setenv("NCCL_PROFILER_PLUGIN", self.dli_fname, 0);
    }
    if (module != NULL)
        dlclose(module);
}

void sc_nccl_prof_arm(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, prof__arm_once);
}

const char *sc_nccl_prof_note(void)
{
    if (prof__state.note[0] == '\0' && !atomic_load(&prof__state.loaded))
        return "NCCL did not load its profiler plugin (an NCCL older than its v4 interface?): "
               "NCCL's algorithm "
               "and protocol are not recorded";
    return prof__state.note;
}

bool sc_nccl_prof_last(const char *comm_name, sc_nccl_choice_t *out)
{
    memset(out, 0, sizeof(*out));
    prof__context_t *c = prof__context_named(comm_name);
    if (c == NULL)
        return false;
    pthread_mutex_lock(&c->lock);
    *out = c->last;
    pthread_mutex_unlock(&c->lock);
    return out->known;
}

int sc_nccl_prof_progress(sc_device_progress_t *out, int max)
{
    int n = 0;
    for (int i = 0; i < PROF__CONTEXTS && n < max; i++) {
        prof__context_t *c = &prof__state.contexts[i];
        if (!atomic_load(&c->used) || atomic_load(&c->enqueued) == 0)
            continue;
        out[n++] = (sc_device_progress_t){.comm = c->hash,
                                          .enqueued = atomic_load(&c->enqueued),
                                          .started = atomic_load(&c->started),
                                          .ended = atomic_load(&c->ended)};
    }
    return n;
}

bool sc_nccl_last_choice(sc_comm_t *comm, sc_lib_choice_t *out)
{
    sc_nccl_choice_t last;
    memset(out, 0, sizeof(*out));
    if (!sc_nccl_prof_last(nccl__of(comm)->label, &last))
        return false;
    snprintf(out->algo, sizeof(out->algo), "%s", last.algo);
    snprintf(out->proto, sizeof(out->proto), "%s", last.proto);
    out->channels = last.channels;
    return true;
}

static int prof__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bool sc_nccl_own_time(sc_comm_t *comm, int nops, double *median_us)
{
    prof__context_t *c = prof__context_named(nccl__of(comm)->label);
    if (c == NULL || nops < 2)
        return false;
    unsigned last = atomic_load(&c->ops);
    if (nops > PROF__TIMES - 1)
        nops = PROF__TIMES - 1;
    if ((unsigned)nops > last)
        nops = (int)last;
    double gaps[PROF__TIMES];
    int n = 0;
    for (unsigned k = last - (unsigned)nops + 1; k < last; k++) {
        uint64_t end = atomic_load(&c->times[(k - 1) % PROF__TIMES].stop_ns);
        uint64_t start = atomic_load(&c->times[k % PROF__TIMES].start_ns);
        if (end > 0 && start > 0)
            gaps[n++] = start > end ? (double)(start - end) * 1e-3 : 0.0;
    }
    if (n == 0)
        return false;
    qsort(gaps, (size_t)n, sizeof(gaps[0]), prof__cmp_double);
    *median_us = n % 2 ? gaps[n / 2] : 0.5 * (gaps[n / 2 - 1] + gaps[n / 2]);
    return true;
}
