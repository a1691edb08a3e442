/* backend_nccl.h - what the two files of the NCCL backend share: the communicator record and
 * the error helpers. backend_nccl.c holds the operations and the ops table,
 * backend_nccl_comm.c creating, splitting and closing communicators, backend_nccl_time.c the
 * device timer and the compute phase. Not a public header. */
#ifndef SC_BACKEND_NCCL_H
#define SC_BACKEND_NCCL_H

#include <cuda_runtime.h>
#include <nccl.h>
#include <stdbool.h>
#include <stdio.h>

#include "comm/sc_async.h"
#include "comm/sc_backend.h"
#include "comm/sc_nccl_prof_abi.h"

/* The module is built three times from these sources: for NVIDIA (CUDA, NCCL, cuBLAS, and
 * kernels built by nvcc); with SC_GPU_ROCM for AMD (comm/rocm/: the same names served by HIP, RCCL
 * and rocBLAS, loaded at run time); with SC_GPU_ASCEND for Huawei's Ascend (comm/ascend/: the
 * names adapted to ACL, HCCL and the operator API's aclnn, loaded at run time). The last two have
 * no kernels: the data check runs on the host. */
#ifdef SC_GPU_ROCM
#include "comm/rocm/sc_rocm_api.h"
#define SC_GPU_CCL          "rccl"
#define SC_GPU_CCL_NAME     "RCCL"
#define SC_GPU_NCCL_LOG     true
#define SC_GPU_RUNTIME      "hip runtime"
#define SC_GPU_RUNTIME_NAME "HIP"
#define SC_GPU_DRIVER       "hip driver"
#define SC_GPU_LIBRARIES                                                                           \
    {                                                                                              \
        "librccl.so", "libamdhip64.so", "librocblas.so"                                            \
    }
#define SC_GPU_HAS_KERNELS   0
#define SC_GPU_CALL_NAME_MAX 128
static inline bool sc_gpu_libraries_load(char *why, size_t len)
{
    return sc_rocm_load(why, len);
}
static inline const char *sc_gpu_call_name(const char *what, char *buf, size_t len)
{
    return sc_rocm_call_name(what, buf, len);
}
#elif defined(SC_GPU_ASCEND)
#include "comm/ascend/sc_ascend_api.h"
#define SC_GPU_CCL          "hccl"
#define SC_GPU_CCL_NAME     "HCCL (CANN)"
#define SC_GPU_NCCL_LOG     false
#define SC_GPU_RUNTIME      "acl runtime"
#define SC_GPU_RUNTIME_NAME "ACL"
#define SC_GPU_DRIVER       "acl driver"
#define SC_GPU_LIBRARIES                                                                           \
    {                                                                                              \
        "libhccl.so", "libascendcl.so", "libopapi.so", "libnnopbase.so"                            \
    }
#define SC_GPU_HAS_KERNELS   0
#define SC_GPU_CALL_NAME_MAX 128
static inline bool sc_gpu_libraries_load(char *why, size_t len)
{
    return sc_ascend_load(why, len);
}
static inline const char *sc_gpu_call_name(const char *what, char *buf, size_t len)
{
    return sc_ascend_call_name(what, buf, len);
}
#else
#define SC_GPU_CCL          "nccl"
#define SC_GPU_CCL_NAME     "NCCL"
#define SC_GPU_NCCL_LOG     true
#define SC_GPU_RUNTIME      "cuda runtime"
#define SC_GPU_RUNTIME_NAME "CUDA"
#define SC_GPU_DRIVER       "cuda driver"
#define SC_GPU_LIBRARIES                                                                           \
    {                                                                                              \
        "libnccl.so", "libcudart.so", "libcublas.so", "libcuda.so"                                 \
    }
#define SC_GPU_HAS_KERNELS   1
#define SC_GPU_CALL_NAME_MAX 1
static inline bool sc_gpu_libraries_load(char *why, size_t len)
{
    (void)why;
    (void)len;
    return true; /* linked */
}
static inline const char *sc_gpu_call_name(const char *what, char *buf, size_t len)
{
    (void)buf;
    (void)len;
    return what;
}
#endif

typedef struct sc_nccl_compute sc_nccl_compute_t; /* backend_nccl_gemm.c */

typedef struct {
    sc_comm_t base; /* first, so that a sc_comm_t * is a nccl__comm_t * */
    ncclComm_t nccl;
    cudaStream_t stream;         /* communication */
    cudaStream_t compute_stream; /* the compute phase, so that it overlaps communication */
    cudaEvent_t ev_start, ev_stop, ev_compute_start, ev_compute_stop;
    struct {
        void *buf;
        size_t count;
        sc_dtype_t dtype;
        int peer;
        bool recv;
    } p2p[128]; /* isend, irecv: deferred, issued in one group with the next recv or iwait */
    int np2p;
    unsigned long long *d_wrong;
    ncclComm_t split_child; /* where a non-blocking ncclCommSplit stores its child, later */
    cudaEvent_t *marks;     /* the device timer's marks (backend_nccl_time.c), made on demand */
    int nmarks;
    sc_nccl_compute_t *compute; /* cuBLAS, the products' matrices, the burn: made on first use */
    int device;
    int lib_version;       /* ncclGetVersion at run time: what the loaded libnccl.so.2 can do */
    bool register_buffers; /* -R 1: ncclMemAlloc, ncclCommRegister (backend_nccl.c) */
    /* set by sc_nccl_abort_all on another thread: the owner's next poll aborts the communicator
     * and sets aborted (only the owner touches nccl, so no call ever runs on a freed one) */
    int abort_requested, aborted;
    int in_wait; /* the owner is in one of the backend's waits (where it sees abort_requested) */
    struct {
        void *buf, *handle;
    } registered[16];
    double timeout_s;
    char gpu[320]; /* "GPU 0 NVIDIA H200 (0000:1b:00.0)" for messages */
    char version[128];
    char label[48]; /* its commName, under which NCCL reports it to the profiler plugin */
} nccl__comm_t;

static inline nccl__comm_t *nccl__of(sc_comm_t *comm)
{
    return (nccl__comm_t *)comm;
}

static inline sc_status_t nccl__fail(const nccl__comm_t *c, sc_status_t status, const char *what,
                                     const char *detail, sc_err_t *err)
{
    char name[SC_GPU_CALL_NAME_MAX], said[SC_GPU_CALL_NAME_MAX * 4];
    return sc_err_set(err, status, "rank %d (host %s, %s): %s: %s", c->base.rte->rank,
                      c->base.rte->host, c->gpu, sc_gpu_call_name(what, name, sizeof(name)),
                      sc_gpu_call_name(detail, said, sizeof(said)));
}

static inline sc_status_t nccl__cuda(const nccl__comm_t *c, cudaError_t rc, const char *what,
                                     sc_err_t *err)
{
    return rc == cudaSuccess ? SC_OK
                             : nccl__fail(c, SC_ERR_RUNTIME, what, cudaGetErrorString(rc), err);
}

/* Aborts c's communicator (where it still has one) and says so to sc_nccl_abort_all. */
void sc_nccl_abort(nccl__comm_t *c);
/* Whether another thread asked for c to be aborted (the job is ending); if so it is aborted
 * now, on this, its owner's, thread, and the error says so. */
sc_status_t sc_nccl_abort_if_asked(nccl__comm_t *c, const char *what, sc_err_t *err);
/* Waits (bounded by the communicator's timeout) while rc is ncclInProgress; aborts the
 * communicator on timeout or asynchronous error. */
sc_status_t sc_nccl_settle(nccl__comm_t *c, ncclResult_t rc, const char *what, sc_err_t *err);
/* Bounded wait for the communication stream. */
sc_status_t sc_nccl_sync(sc_comm_t *comm, sc_err_t *err);
/* NCCL's entry points that an older libnccl.so.2 lacks, resolved at run time from the library
 * loaded (referenced directly, they would keep the plugin from loading at all: it is opened
 * RTLD_NOW); NULL where absent. Resolved once per process. */
typedef ncclResult_t (*sc_nccl_a2a_fn)(const void *send, void *recv, size_t count,
                                       ncclDataType_t dt, ncclComm_t comm, cudaStream_t stream);
typedef ncclResult_t (*sc_nccl_rooted_fn)(const void *send, void *recv, size_t count,
                                          ncclDataType_t dt, int root, ncclComm_t comm,
                                          cudaStream_t stream);
typedef struct {
    sc_nccl_a2a_fn alltoall;           /* 2.28 */
    sc_nccl_rooted_fn gather, scatter; /* 2.28 */
    /* buffer registration (-R 1): 2.19 */
    ncclResult_t (*mem_alloc)(void **ptr, size_t size);
    ncclResult_t (*mem_free)(void *ptr);
    ncclResult_t (*comm_register)(ncclComm_t comm, void *buf, size_t size, void **handle);
    ncclResult_t (*comm_deregister)(ncclComm_t comm, void *handle);
} sc_nccl_optional_t;
const sc_nccl_optional_t *sc_nccl_optional(void);

/* Device time and the compute phase (backend_nccl_time.c). */
extern const sc_timer_ops_t sc_nccl_timer;
/* The matrix products (backend_nccl_gemm.c); sc_nccl_compute_free stops a burn and frees. */
extern const sc_gemm_ops_t sc_nccl_gemm;
extern const sc_burn_ops_t sc_nccl_burn;
void sc_nccl_compute_free(nccl__comm_t *c);
sc_status_t sc_nccl_compute_spin(sc_comm_t *comm, double us, double *measured_us, sc_err_t *err);
/* A compute phase timed on the compute stream: begin records its start; end (given the status
 * of what was enqueued between) records its stop, waits for it and gives the device time. */
sc_status_t sc_nccl_compute_begin(nccl__comm_t *c, sc_err_t *err);
sc_status_t sc_nccl_compute_end(nccl__comm_t *c, sc_status_t status, double *measured_us,
                                sc_err_t *err);
void sc_nccl_free_marks(nccl__comm_t *c);
/* What NCCL chose for a collective, as it reported it to its profiler plugin. */
typedef struct {
    char func[24], algo[16], proto[16];
    int channels;
    uint64_t seq; /* NCCL's sequence number of the collective in its communicator */
    bool known;
} sc_nccl_choice_t;
/* The profiler plugin (backend_nccl_prof.c): arm points NCCL at this module before the first
 * communicator (once; not where the user named a plugin); the entry points are the ones
 * sc_gpu_entry.c exports as `ncclProfiler_v4`. */
void sc_nccl_prof_arm(void);
ncclResult_t sc_nccl_prof_init(void **context, int *mask, const char *comm_name, uint64_t comm_hash,
                               int nodes, int ranks, int rank, void *logger);
ncclResult_t sc_nccl_prof_start(void *context, void **handle, sc_nccl_prof_descr_t *descr);
ncclResult_t sc_nccl_prof_stop(void *handle);
ncclResult_t sc_nccl_prof_state(void *handle, int state, void *args);
ncclResult_t sc_nccl_prof_finalize(void *context);
/* Why NCCL's choices are not recorded in this process, or "". */
const char *sc_nccl_prof_note(void);
/* The last collective NCCL enqueued on the communicator named comm_name; false when unknown. */
bool sc_nccl_prof_last(const char *comm_name, sc_nccl_choice_t *out);
/* Per communicator the plugin hears of (at most max): operations enqueued, and how many of
 * them its GPU started; how many communicators (0 while NCCL has not loaded the plugin). */
int sc_nccl_prof_progress(sc_device_progress_t *out, int max);
/* The last collective's choice on comm, and its GPU's own time between operations, for the
 * ops table. */
bool sc_nccl_last_choice(sc_comm_t *comm, sc_lib_choice_t *out);
bool sc_nccl_own_time(sc_comm_t *comm, int nops, double *median_us);
/* ops->copies: the copies inside the node (backend_nccl_copy.c). */
sc_status_t sc_nccl_copies(sc_comm_t *comm, const sc_copy_opts_t *o, sc_copy_row_t *rows, int max,
                           int *n, sc_err_t *err);
/* The backend's table (backend_nccl.c), handed to the program by sc_gpu_entry.c. */
extern const sc_backend_ops_t sc_nccl_ops;
/* The loaded NCCL's and CUDA's versions, in words; needs no GPU (backend_nccl_comm.c). */
void sc_backend_nccl_versions(char *buf, size_t len);
/* Lifecycle (backend_nccl_comm.c). */
sc_status_t sc_nccl_open(const sc_rte_t *rte, const sc_backend_opts_t *opts, sc_comm_t **world,
                         sc_err_t *err);
void sc_nccl_close(sc_comm_t *comm);
void sc_nccl_abort_all(bool owner);
/* ops->job_moved, and when the job's work last moved (sc_clock_ns; 0: never told). */
void sc_nccl_job_moved(void);
uint64_t sc_nccl_job_moved_ns(void);
sc_status_t sc_nccl_split(sc_comm_t *comm, int color, int key, sc_comm_t **out, sc_err_t *err);
const char *sc_nccl_version(sc_comm_t *comm);
void sc_nccl_describe(sc_comm_t *comm, sc_kvs_t *out);

#endif
