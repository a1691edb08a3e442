/* backend_nccl_comm.c - NCCL communicators: which GPU a rank takes, the non-blocking creation
 * with the unique id sent over MPI, splits into groups (ncclCommSplit), closing, and what is
 * recorded to reproduce a run. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "comm/backend_nccl.h"
#include "comm/sc_gpu_select.h"
#include "util/sc_clock.h"

/* One line describing this rank's GPU, for messages. */
static void nccl__describe_gpu(nccl__comm_t *c)
{
    struct cudaDeviceProp prop;
    char bus[32] = "?";
    const char *name = cudaGetDeviceProperties(&prop, c->device) == cudaSuccess ? prop.name : "?";
    cudaDeviceGetPCIBusId(bus, sizeof(bus), c->device);
    snprintf(c->gpu, sizeof(c->gpu), "GPU %d %s (%s)", c->device, name, bus);
    snprintf(c->base.device, sizeof(c->base.device), "%.127s", c->gpu);
}

/* This rank's device, or why it has none (sc_gpu_select). */
static sc_status_t nccl__pick_device(const sc_rte_t *rte, int requested, int *device, char *why,
                                     size_t len)
{
    int n = 0;
    char missing[512];
    if (!sc_gpu_libraries_load(missing, sizeof(missing)))
        return sc_gpu_select(requested, 0, rte->local_rank, rte->local_size, rte->host,
                             SC_GPU_RUNTIME_NAME, missing, device, why, len);
    cudaError_t rc = cudaGetDeviceCount(&n);
    return sc_gpu_select(requested, rc == cudaSuccess ? n : 0, rte->local_rank, rte->local_size,
                         rte->host, SC_GPU_RUNTIME_NAME,
                         rc == cudaSuccess ? NULL : cudaGetErrorString(rc), device, why, len);
}

/* Two ranks of one host on one GPU (same PCI bus id) would make NCCL fail or hang: every rank
 * learns its bus id, they are gathered, and the first shared one is named. Collective: every
 * rank calls it, with picked false where it has no device (its id is then empty). */
static sc_status_t nccl__check_shared(const sc_rte_t *rte, bool picked, int device, char *why,
                                      size_t len)
{
    char mine[SC_GPU_BUS_ID_MAX] = "";
    if (picked)
        cudaDeviceGetPCIBusId(mine, sizeof(mine), device);
    char(*all)[SC_GPU_BUS_ID_MAX] = calloc((size_t)rte->size, sizeof(*all));
    if (all == NULL) {
        snprintf(why, len, "rank %d: no memory for the GPU bus ids", rte->rank);
        return SC_ERR_NOMEM;
    }
    MPI_Allgather(mine, SC_GPU_BUS_ID_MAX, MPI_CHAR, all, SC_GPU_BUS_ID_MAX, MPI_CHAR, rte->world);
    int a = -1, b = -1;
    int shared = sc_gpu_find_shared((const char(*)[SC_GPU_BUS_ID_MAX])all, rte->host_index,
                                    rte->size, &a, &b);
    if (shared && (rte->rank == a || rte->rank == b))
        snprintf(why, len,
                 "ranks %d and %d on host %s both use GPU %s: NCCL needs one GPU per rank (launch "
                 "at most one rank per GPU, or give each rank its own: --gpus-per-task=1, "
                 "CUDA_VISIBLE_DEVICES)",
                 a, b, rte->hosts[a], all[a]);
    free(all);
    return shared && (rte->rank == a || rte->rank == b) ? SC_ERR_USAGE : SC_OK;
}

static sc_status_t nccl__resources(nccl__comm_t *c, sc_err_t *err)
{
    sc_status_t status = nccl__cuda(c, cudaSetDevice(c->device), "cudaSetDevice", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking),
                            "cudaStreamCreate", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaEventCreate(&c->ev_start), "cudaEventCreate", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaEventCreate(&c->ev_stop), "cudaEventCreate", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaStreamCreateWithFlags(&c->compute_stream, cudaStreamNonBlocking),
                            "cudaStreamCreate", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaEventCreate(&c->ev_compute_start), "cudaEventCreate", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaEventCreate(&c->ev_compute_stop), "cudaEventCreate", err);
    if (status == SC_OK)
        status = nccl__cuda(c, cudaMalloc((void **)&c->d_wrong, 64), "cudaMalloc", err);
    return status;
}

/* This process's communicators, for sc_nccl_abort_all (the watchdog's way out). */
static struct {
    pthread_mutex_t lock;
    nccl__comm_t *list[256];
    int n;
} nccl__live = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void nccl__live_add(nccl__comm_t *c)
{
    pthread_mutex_lock(&nccl__live.lock);
    if (nccl__live.n < 256)
        nccl__live.list[nccl__live.n++] = c;
    pthread_mutex_unlock(&nccl__live.lock);
}

static void nccl__live_remove(const nccl__comm_t *c)
{
    pthread_mutex_lock(&nccl__live.lock);
    for (int i = 0; i < nccl__live.n; i++)
        if (nccl__live.list[i] == c)
            nccl__live.list[i] = nccl__live.list[--nccl__live.n];
    pthread_mutex_unlock(&nccl__live.lock);
}

/* When the job's work last moved, as the watchdog tells (ops->job_moved). */
static _Atomic uint64_t nccl__job_moved_ns;

void sc_nccl_job_moved(void)
{
    atomic_store(&nccl__job_moved_ns, sc_clock_ns());
}

uint64_t sc_nccl_job_moved_ns(void)
{
    return atomic_load(&nccl__job_moved_ns);
}

/* NCCL's way out of a hang, ncclCommAbort on every communicator, so that the peers' operations
 * end too - done by each communicator's owner: this marks them, and the main thread's polls
 * (every wait of the backend is one) abort them. Waits, at most 2.5 s, until each one in a
 * wait is aborted (the process ends right after). From the owner's thread: at once. */
void sc_nccl_abort_all(bool owner)
{
    pthread_mutex_lock(&nccl__live.lock);
    for (int i = 0; i < nccl__live.n; i++) {
        nccl__comm_t *c = nccl__live.list[i];
        __atomic_store_n(&c->abort_requested, 1, __ATOMIC_RELEASE);
        if (owner) { /* this thread uses them: at once */
            sc_err_t ignored;
            sc_nccl_abort_if_asked(c, "ending the job", &ignored);
        }
    }
    pthread_mutex_unlock(&nccl__live.lock);
    for (int waited_ms = 0; !owner && waited_ms < 2500; waited_ms += 10) {
        bool pending = false;
        pthread_mutex_lock(&nccl__live.lock);
        for (int i = 0; i < nccl__live.n && !pending; i++)
            pending = __atomic_load_n(&nccl__live.list[i]->in_wait, __ATOMIC_ACQUIRE) &&
                      !__atomic_load_n(&nccl__live.list[i]->aborted, __ATOMIC_ACQUIRE);
        pthread_mutex_unlock(&nccl__live.lock);
        if (!pending)
            return;
        struct timespec nap = {0, 10000000L};
        nanosleep(&nap, NULL);
    }
}

/* A name for a new communicator, unique in this process: NCCL hands it to the profiler plugin
 * (backend_nccl_prof.c), which files what NCCL chose under it. */
static void nccl__label(char *buf, size_t len)
{
    static atomic_uint made;
    snprintf(buf, len, "scalecheck-%d-%u", (int)getpid(), atomic_fetch_add(&made, 1));
}

static nccl__comm_t *nccl__new(const sc_rte_t *rte, int device, double timeout_s,
                               bool register_buffers)
{
    nccl__comm_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->base.rte = rte;
    c->device = device;
    c->timeout_s = timeout_s > 0 ? timeout_s : 1e9;
    c->register_buffers = register_buffers;
    int lib = 0;
    ncclGetVersion(&lib);
    c->lib_version = lib;
    nccl__live_add(c);
    snprintf(c->version, sizeof(c->version), SC_GPU_CCL_NAME " %d.%d.%d", lib / 10000,
             lib / 100 % 100, lib % 100);
    nccl__describe_gpu(c);
    return c;
}

void sc_nccl_close(sc_comm_t *comm)
{
    nccl__comm_t *c = nccl__of(comm);
    nccl__live_remove(c);
    if (c->nccl != NULL) {
        ncclResult_t rc = ncclCommFinalize(c->nccl);
        sc_err_t ignored;
        if (sc_nccl_settle(c, rc, "ncclCommFinalize", &ignored) == SC_OK)
            ncclCommDestroy(c->nccl);
        else
            sc_nccl_abort(c);
    }
    sc_nccl_compute_free(c);
    if (c->d_wrong)
        cudaFree(c->d_wrong);
    if (c->ev_start)
        cudaEventDestroy(c->ev_start);
    if (c->ev_stop)
        cudaEventDestroy(c->ev_stop);
    if (c->ev_compute_start)
        cudaEventDestroy(c->ev_compute_start);
    if (c->ev_compute_stop)
        cudaEventDestroy(c->ev_compute_stop);
    if (c->compute_stream)
        cudaStreamDestroy(c->compute_stream);
    if (c->stream)
        cudaStreamDestroy(c->stream);
    sc_nccl_free_marks(c);
    sc_comm_fini_base(comm);
    free(c);
}

sc_status_t sc_nccl_open(const sc_rte_t *rte, const sc_backend_opts_t *opts, sc_comm_t **world,
                         sc_err_t *err)
{
    char why[512] = "";
    int device = -1;
    sc_nccl_prof_arm(); /* before NCCL's first communicator loads its plugins */
    sc_status_t status = nccl__pick_device(rte, opts->device, &device, why, sizeof(why));
    sc_status_t shared = nccl__check_shared(rte, status == SC_OK, device, why, sizeof(why));
    status = sc_rte_agree(rte, status == SC_OK ? shared : status, why, sizeof(why), err);
    if (status != SC_OK)
        return status;
    nccl__comm_t *c = nccl__new(rte, device, opts->timeout_s, opts->register_buffers);
    if (c == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d: no memory for the NCCL backend", rte->rank);
    status = sc_comm_init_base(&c->base, &sc_nccl_ops, rte, rte->rank, rte->size, NULL, err);
    if (status == SC_OK)
        status = nccl__resources(c, err);
    ncclUniqueId id;
    memset(&id, 0, sizeof(id));
    if (rte->rank == 0 && ncclGetUniqueId(&id) != ncclSuccess)
        memset(&id, 0, sizeof(id)); /* every rank then fails the init below, together */
    MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, rte->world);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0; /* so that a stuck init can be bounded and aborted */
    nccl__label(c->label, sizeof(c->label));
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    config.commName = c->label; /* NCCL 2.27's field: where the profiler reports it */
#endif
    if (status == SC_OK)
        status =
            sc_nccl_settle(c, ncclCommInitRankConfig(&c->nccl, rte->size, id, rte->rank, &config),
                           "ncclCommInitRankConfig", err);
    if (status != SC_OK) {
        sc_nccl_close(&c->base);
        return status;
    }
    *world = &c->base;
    return SC_OK;
}

/* (color, key) of every parent rank, gathered with NCCL itself over the parent, so that the
 * child knows its members' world ranks without a matching MPI communicator. */
static sc_status_t nccl__gather_members(nccl__comm_t *c, int color, int key, int *all,
                                        sc_err_t *err)
{
    int mine[3] = {color, key, c->base.world_rank[c->base.rank]};
    int *d_all = NULL;
    size_t bytes = 3 * sizeof(int) * (size_t)c->base.size;
    sc_status_t status =
        nccl__cuda(c, cudaMalloc((void **)&d_all, bytes + sizeof(mine)), "cudaMalloc", err);
    int *d_mine = d_all ? d_all + 3 * c->base.size : NULL;
    if (status == SC_OK) /* the backend's copies: on the stream NCCL uses, waited for */
        status = sc_nccl_ops.from_host(&c->base, d_mine, mine, sizeof(mine), err);
    if (status == SC_OK)
        status = sc_nccl_settle(c, ncclAllGather(d_mine, d_all, 3, ncclInt32, c->nccl, c->stream),
                                "ncclAllGather(split members)", err);
    if (status == SC_OK)
        status = sc_nccl_sync(&c->base, err);
    if (status == SC_OK)
        status = sc_nccl_ops.to_host(&c->base, all, d_all, bytes, err);
    cudaFree(d_all);
    return status;
}

/* World ranks of the members of `color` in child rank order: by key, then parent rank (NCCL's
 * and MPI's rule). all holds (color, key, world rank) per parent rank. */
static void nccl__order_members(const int *all, int parent_size, int color, int *members)
{
    int n = 0;
    for (int p = 0; p < parent_size; p++)
        if (all[3 * p] == color)
            members[n++] = p;
    /* Insertion sort by key: stable, so equal keys keep parent order. */
    for (int i = 1; i < n; i++) {
        int p = members[i], j = i;
        while (j > 0 && all[3 * members[j - 1] + 1] > all[3 * p + 1]) {
            members[j] = members[j - 1];
            j--;
        }
        members[j] = p;
    }
    for (int i = 0; i < n; i++)
        members[i] = all[3 * members[i] + 2];
}

/* sc_split_wait's view of a split in progress: the parent's and the child's asynchronous state,
 * and the slot where NCCL stores the child (in the parent's record, which outlives any late
 * store: a split that times out must not have NCCL write into a dead stack frame). */
static sc_async_state_t nccl__async_state(ncclComm_t comm)
{
    ncclResult_t state = ncclInProgress;
    if (ncclCommGetAsyncError(comm, &state) != ncclSuccess)
        return SC_ASYNC_FAILED;
    return state == ncclSuccess      ? SC_ASYNC_DONE
           : state == ncclInProgress ? SC_ASYNC_PENDING
                                     : SC_ASYNC_FAILED;
}

static sc_async_state_t nccl__split_parent(void *ctx)
{
    return nccl__async_state(((nccl__comm_t *)ctx)->nccl);
}

static void *nccl__split_child(void *ctx)
{
    return __atomic_load_n(&((nccl__comm_t *)ctx)->split_child, __ATOMIC_ACQUIRE);
}

static sc_async_state_t nccl__split_child_state(void *ctx, void *child)
{
    (void)ctx;
    return nccl__async_state((ncclComm_t)child);
}

/* Starts a non-blocking split and waits (bounded) until it is complete; *child is NULL for a
 * rank without a colour. On failure the parent (and a half-made child) are aborted. */
static sc_status_t nccl__split_comm(nccl__comm_t *parent, int color, int key, ncclComm_t *child,
                                    const char *label, sc_err_t *err)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    config.commName = label;
#else
    (void)label;
#endif
    parent->split_child = NULL;
    *child = NULL;
    ncclResult_t rc = ncclCommSplit(parent->nccl, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key,
                                    &parent->split_child, &config);
    if (rc != ncclSuccess && rc != ncclInProgress)
        return sc_nccl_settle(parent, rc, "ncclCommSplit", err);
    sc_split_probe_t probe = {nccl__split_parent, nccl__split_child, nccl__split_child_state,
                              parent};
    void *made = NULL;
    sc_split_outcome_t outcome = sc_split_wait(&probe, color >= 0, parent->timeout_s, &made);
    if (outcome == SC_SPLIT_READY || outcome == SC_SPLIT_NO_CHILD) {
        *child = (ncclComm_t)made;
        return SC_OK;
    }
    if (made != NULL)
        ncclCommAbort((ncclComm_t)made);
    sc_nccl_abort(parent);
    const char *why = outcome == SC_SPLIT_TIMEOUT        ? "timed out; communicator aborted"
                      : outcome == SC_SPLIT_CHILD_FAILED ? "the new communicator failed"
                                                         : "the parent communicator failed";
    return nccl__fail(parent, outcome == SC_SPLIT_TIMEOUT ? SC_ERR_TIMEOUT : SC_ERR_RUNTIME,
                      "ncclCommSplit", why, err);
}

sc_status_t sc_nccl_split(sc_comm_t *comm, int color, int key, sc_comm_t **out, sc_err_t *err)
{
    nccl__comm_t *parent = nccl__of(comm);
    *out = NULL;
    int *all = malloc(3 * sizeof(int) * (size_t)comm->size);
    int *members = malloc(sizeof(int) * (size_t)comm->size);
    sc_status_t status = (all && members) ? nccl__gather_members(parent, color, key, all, err)
                                          : sc_err_set(err, SC_ERR_NOMEM, "no memory for a split");
    ncclComm_t child = NULL;
    char label[48];
    nccl__label(label, sizeof(label));
    if (status == SC_OK)
        status = nccl__split_comm(parent, color, key, &child, label, err);
    nccl__comm_t *c = NULL;
    if (status == SC_OK && child != NULL) {
        int rank = 0, size = 0;
        ncclCommUserRank(child, &rank);
        ncclCommCount(child, &size);
        nccl__order_members(all, comm->size, color, members);
        c = nccl__new(comm->rte, parent->device, parent->timeout_s, parent->register_buffers);
        if (c != NULL)
            snprintf(c->label, sizeof(c->label), "%s", label);
        status = c ? sc_comm_init_base(&c->base, &sc_nccl_ops, comm->rte, rank, size, members, err)
                   : sc_err_set(err, SC_ERR_NOMEM, "no memory for a split");
        if (c == NULL)
            ncclCommAbort(child);
        else {
            c->nccl = child;
            if (status == SC_OK)
                status = nccl__resources(c, err);
            if (status != SC_OK)
                sc_nccl_close(&c->base);
            else
                *out = &c->base;
        }
    }
    free(all);
    free(members);
    return status;
}

const char *sc_nccl_version(sc_comm_t *comm)
{
    return nccl__of(comm)->version;
}

extern char **environ;

void sc_nccl_describe(sc_comm_t *comm, sc_kvs_t *out)
{
    nccl__comm_t *c = nccl__of(comm);
    int lib = 0, runtime = 0, driver = 0;
    ncclGetVersion(&lib);
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    sc_kvs_number(out, "nccl_version_header", NCCL_VERSION_CODE);
    sc_kvs_number(out, "nccl_version_library", lib);
    sc_kvs_number(out, "cuda_runtime", runtime);
    sc_kvs_number(out, "cuda_driver", driver);
    sc_kvs_text(out, "gpu", c->gpu);
    /* whether NCCL's choices (algorithm, protocol, channels) are in the rows, and why not */
    const char *prof = sc_nccl_prof_note();
    sc_kvs_text(out, "nccl_profiler",
                prof[0] != '\0' ? prof : "scalecheck (NCCL's choices recorded)");
    sc_kvs_number(out, "device", c->device);
    struct cudaDeviceProp prop;
    char bus[32] = "";
    if (cudaGetDeviceProperties(&prop, c->device) == cudaSuccess)
        sc_kvs_text(out, "gpu_name", prop.name);
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), c->device) == cudaSuccess)
        sc_kvs_text(out, "gpu_bus", bus);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "NCCL_", 5) == 0 && eq != NULL) {
            char name[128];
            snprintf(name, sizeof(name), "nccl_env/%.*s", (int)(eq - *e), *e);
            sc_kvs_text(out, name, eq + 1);
        }
    }
}

/* ---- the libraries loaded ---- */

static struct {
    pthread_once_t once;
    sc_nccl_optional_t fns;
} nccl__optional = {.once = PTHREAD_ONCE_INIT};

/* The collective library the module is bound to, and whether the caller must dlclose it. */
static void *nccl__library(bool *close_it)
{
#ifdef SC_GPU_ROCM
    *close_it = false; /* the handle sc_rocm_load opened, kept */
    return sc_rocm_rccl_handle();
#elif defined(SC_GPU_ASCEND)
    *close_it = false; /* HCCL has none of NCCL's optional names: all-to-all and the rooted ones
                        * run as grouped send/recv (sc_ascend_hccl.c batches them) */
    return NULL;
#else
    Dl_info info;
    void *probe = NULL;
    ncclResult_t (*get_version)(int *) = ncclGetVersion;
    memcpy(&probe, &get_version, sizeof(probe)); /* ISO C: no function-to-object cast */
    /* the libnccl.so.2 this module was bound to: a dependency of an RTLD_LOCAL module is not
     * in the global scope, so it is asked for by its path */
    *close_it = true; /* NOLOAD took a reference of its own; the library stays */
    if (dladdr(probe, &info) != 0 && info.dli_fname != NULL)
        return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    return NULL;
#endif
}

static void nccl__resolve_optional(void)
{
    bool close_it = false;
    void *lib = nccl__library(&close_it);
    if (lib == NULL)
        return;
    *(void **)&nccl__optional.fns.alltoall = dlsym(lib, "ncclAlltoAll");
    *(void **)&nccl__optional.fns.gather = dlsym(lib, "ncclGather");
    *(void **)&nccl__optional.fns.scatter = dlsym(lib, "ncclScatter");
    *(void **)&nccl__optional.fns.mem_alloc = dlsym(lib, "ncclMemAlloc");
    *(void **)&nccl__optional.fns.mem_free = dlsym(lib, "ncclMemFree");
    *(void **)&nccl__optional.fns.comm_register = dlsym(lib, "ncclCommRegister");
    *(void **)&nccl__optional.fns.comm_deregister = dlsym(lib, "ncclCommDeregister");
    if (close_it)
        dlclose(lib);
}

const sc_nccl_optional_t *sc_nccl_optional(void)
{
    pthread_once(&nccl__optional.once, nccl__resolve_optional);
    return &nccl__optional.fns;
}

typedef struct {
    char *buf;
    size_t len, used;
} nccl__lib_list_t;

/* Appends "name: path" for each loaded object of the vendor's libraries. */
static int nccl__list_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    nccl__lib_list_t *out = arg;
    static const char *const wanted[] = SC_GPU_LIBRARIES;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    for (size_t i = 0; base != NULL && i < sizeof(wanted) / sizeof(wanted[0]); i++)
        if (strncmp(base + 1, wanted[i], strlen(wanted[i])) == 0 && out->used < out->len)
            out->used += (size_t)snprintf(out->buf + out->used, out->len - out->used,
                                          "\nloaded: %s", info->dlpi_name);
    return 0;
}

void sc_backend_nccl_versions(char *buf, size_t len)
{
    char why[512];
    if (!sc_gpu_libraries_load(why, sizeof(why))) {
        snprintf(buf, len, SC_GPU_CCL ": not loadable: %s", why);
        return;
    }
    int lib = 0, runtime = 0, driver = 0;
    ncclGetVersion(&lib);
    cudaRuntimeGetVersion(&runtime);
    cudaError_t rc = cudaDriverGetVersion(&driver);
    char header[32] = " (CANN's)"; /* HCCL has CANN's version, and no header of NCCL's */
#ifndef SC_CCL_IS_HCCL
    snprintf(header, sizeof(header), " (header %d)", NCCL_VERSION_CODE);
#endif
    int n = snprintf(buf, len,
                     SC_GPU_CCL ": %d.%d.%d%s\n" SC_GPU_RUNTIME ": %d\n" SC_GPU_DRIVER ": %d%s",
                     lib / 10000, lib / 100 % 100, lib % 100, header, runtime, driver,
                     rc != cudaSuccess || driver == 0 ? " (no driver)" : "");
    const sc_nccl_optional_t *opt = sc_nccl_optional();
    if (n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "\n" SC_GPU_CCL " all-to-all, gather, scatter: %s",
                      opt->alltoall && opt->gather && opt->scatter && lib >= NCCL_VERSION(2, 28, 0)
                          ? "the library's own"
                          : "grouped send/recv (this library has none of its own)");
    nccl__lib_list_t list = {buf, len, n > 0 && (size_t)n < len ? (size_t)n : len};
    dl_iterate_phdr(nccl__list_lib, &list);
}
