/* sc_backend.h - the one ops table every communication backend (mpi, ucx, and nccl in its GPU
 * module: sc_backend_list) fills - its core entries always (tests/unit/test_backends.c), the
 * optional ones where the backend has them - and the communicator handle patterns and
 * collectives run on.
 *
 * Buffer conventions (the same for every backend, NCCL's): `count` is the per-rank element
 * count the library takes (allgather/gather: elements each rank contributes; reducescatter and
 * scatter: elements each rank receives; alltoall: elements sent to each peer). In place means
 * one buffer, recvbuf, with this rank's input where NCCL puts it: allgather/gather at
 * rank*count, reducescatter input is the whole buffer and the result lands at rank*count,
 * scatter's root keeps its own block at root*count. A backend whose library lays things out
 * otherwise translates inside its own file. */
#ifndef SC_BACKEND_H
#define SC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/sc_check_core.h"
#include "util/sc_dtype.h"
#include "compute/sc_compute.h"
#include "record/sc_record.h"
#include "rte/sc_rte.h"
#include "sc_config.h"
#include "util/sc_coll_id.h"

typedef struct {
    const void *sendbuf;
    void *recvbuf;
    size_t count;
    sc_dtype_t dtype;
    sc_redop_t op;
    int root;      /* broadcast, reduce, gather, scatter */
    int send_peer; /* sendrecv: rank this rank sends to */
    int recv_peer; /* sendrecv: rank this rank receives from */
    bool in_place;
} sc_coll_args_t;

typedef struct sc_comm sc_comm_t;

/* Copies inside one node (`scalecheck node`), as nvbandwidth measures them: pinned host memory
 * to each device and back (alone, and every device at once: a shared PCIe switch shows only
 * then), within each device (its memory), and between every pair of devices by copy engine
 * (one way, and both ways at once) and by the SMs (a kernel on the reading GPU, and one on the
 * writing GPU; peers with peer access only). */
typedef enum { SC_COPY_H2D, SC_COPY_D2H, SC_COPY_HBM, SC_COPY_PEER } sc_copy_kind_t;
typedef enum { SC_COPY_BY_CE, SC_COPY_BY_SM_READ, SC_COPY_BY_SM_WRITE } sc_copy_by_t;
typedef struct {
    size_t bytes;    /* each copy's */
    int trials;      /* copies timed, back to back */
    bool pcie_alone; /* only host to each device and back, each alone (a NUMA node's memory) */
} sc_copy_opts_t;
typedef struct {
    sc_copy_kind_t kind;
    int src, dst;     /* devices (-1: the host's pinned memory) */
    bool together;    /* H2D, D2H: with every device at once; peer: both ways at once */
    bool direct;      /* peer: by peer access (else through the host) */
    sc_copy_by_t by;  /* peer: the copy engine, or the SMs of the destination (reading) or the
                         source (writing) GPU */
    double GBps;      /* bytes moved a second (HBM, both ways: read and written, both sums) */
    double peak_GBps; /* HBM: the device's peak (memory clock x 2 x bus width); 0: unknown */
    char src_bus[16], dst_bus[16];
} sc_copy_row_t;

/* How far a device got on one communicator: the id its ranks share (NCCL's commHash), the
 * operations enqueued on it, how many of them the device started and how many it ended (0
 * where the library reports no ends). */
typedef struct {
    uint64_t comm, enqueued, started, ended;
} sc_device_progress_t;

/* What the library chose for the last collective on a communicator (NCCL: as it reported to
 * its profiler plugin). */
typedef struct {
    char algo[16], proto[16]; /* "RING", "LL128", ... ("" unknown) */
    int channels;             /* 0: unknown */
} sc_lib_choice_t;

/* What a backend is opened with. */
typedef struct {
    int device;       /* GPU backends: device index, -1 = the rank's index on its host */
    double timeout_s; /* bound on every wait inside the backend (<= 0: none) */
    bool named;       /* set by sc_backend_open: asked for by name, not tried by auto */
    /* NCCL: buffers from ncclMemAlloc, registered with each communicator (nccl-tests -R 1) */
    bool register_buffers;
} sc_backend_opts_t;
typedef sc_status_t (*sc_coll_fn_t)(sc_comm_t *comm, const sc_coll_args_t *args, sc_err_t *err);

/* The optional features, each a table of its own that a backend has whole or not at all. */
typedef struct {
    /* Device time as nccl-tests takes it: marks (events) recorded in stream order between
     * operations issued back to back, never a wait on the host between them. mark records
     * mark `index` (0, 1, 2 ...) on the communication stream; after sync, interval gives the
     * microseconds between marks index - 1 and index. reserve makes marks 0 .. count - 1
     * before a timed batch, so that none is made between the operations it times (an event
     * created inside the loop is host time the device then waits for). */
    sc_status_t (*reserve)(sc_comm_t *comm, int count, sc_err_t *err);
    sc_status_t (*mark)(sc_comm_t *comm, int index, sc_err_t *err);
    sc_status_t (*interval)(sc_comm_t *comm, int index, double *us, sc_err_t *err);
} sc_timer_ops_t;

typedef struct {
    /* Operations issued between begin and end are recorded, not run; launch runs the recording
     * once. */
    sc_status_t (*begin)(sc_comm_t *comm, sc_err_t *err);
    sc_status_t (*end)(sc_comm_t *comm, void **graph, sc_err_t *err);
    sc_status_t (*launch)(sc_comm_t *comm, void *graph, sc_err_t *err);
    void (*destroy)(sc_comm_t *comm, void *graph);
} sc_graph_ops_t;

typedef struct {
    /* Operations issued between begin and end are fused into one launch (NCCL groups): what
     * nccl-tests' -m aggregates. */
    sc_status_t (*begin)(sc_comm_t *comm, sc_err_t *err);
    sc_status_t (*end)(sc_comm_t *comm, sc_err_t *err);
} sc_group_ops_t;

typedef struct {
    /* expose makes buf (from alloc) writable by every rank of comm (collective); put writes
     * bytes from src into peer's exposed buffer at offset; flush waits until the puts to peer
     * are complete there. */
    sc_status_t (*expose)(sc_comm_t *comm, void *buf, size_t bytes, sc_err_t *err);
    sc_status_t (*put)(sc_comm_t *comm, int peer, const void *src, size_t offset, size_t bytes,
                       sc_err_t *err);
    sc_status_t (*flush)(sc_comm_t *comm, int peer, sc_err_t *err);
} sc_rma_ops_t;

typedef struct {
    /* iters timed square products (`compute --mode gemm`) */
    sc_status_t (*run)(sc_comm_t *comm, const sc_gemm_spec_t *spec, sc_gemm_result_t *result,
                       sc_err_t *err);
    /* A layer's products (the step's compute phase) at `scale` of their FLOPs (sc_gemm_dim_at),
     * on the compute stream, waited for: *measured_us their device time, *flops what ran. */
    sc_status_t (*run_set)(sc_comm_t *comm, const sc_gemm_set_t *set, double scale,
                           double *measured_us, double *flops, sc_err_t *err);
    /* The silent-data-corruption check (sc_compute.h). */
    sc_status_t (*check)(sc_comm_t *comm, sc_gemm_type_t type, int size, sc_gemm_check_t *out,
                         sc_err_t *err);
} sc_gemm_ops_t;

/* A burn (sc_compute.h): the device kept at full load on a thread (and stream) of its own until
 * stopped - bounded: it stops after the work in flight - with what it did. GPU: products and a
 * device memory stream; host: fp32 products on a core and a memory stream. */
typedef struct {
    sc_status_t (*start)(sc_comm_t *comm, const sc_burn_spec_t *spec, sc_err_t *err);
    sc_status_t (*stop)(sc_comm_t *comm, sc_burn_result_t *out, sc_err_t *err);
} sc_burn_ops_t;

typedef struct {
    const char *name;
    /* A GPU vendor's collective library (nccl, rccl, hccl): device buffers, device time, the
     * library's own algorithms; false on the host path (mpi, ucx). */
    bool gpu;
    /* The library writes NCCL's INFO log (NCCL_DEBUG: NCCL, RCCL), in which node reads the NIC
     * each peer was reached through. */
    bool nccl_log;
    /* Opens the backend's world communicator. A backend that cannot run here (no GPU, library
     * missing) returns SC_ERR_UNSUPPORTED with a one-line reason; it never crashes. */
    sc_status_t (*open)(const sc_rte_t *rte, const sc_backend_opts_t *opts, sc_comm_t **world,
                        sc_err_t *err);
    void (*close)(sc_comm_t *comm);
    /* Library version for the header and the results ("Open MPI v4.1.4"). */
    const char *(*version)(sc_comm_t *comm);
    /* What a user needs to reproduce this rank's run (library versions, device, environment),
     * appended to out as named values ("a/b": b inside a group a). */
    void (*describe)(sc_comm_t *comm, sc_kvs_t *out);
    /* Buffers the collectives use (device memory for GPU backends). NULL on failure. */
    void *(*alloc)(sc_comm_t *comm, size_t bytes);
    void (*free)(sc_comm_t *comm, void *ptr);
    /* Host <-> buffer copies (small: the data check works on the buffers themselves). */
    sc_status_t (*to_host)(sc_comm_t *comm, void *host, const void *buf, size_t bytes,
                           sc_err_t *err);
    sc_status_t (*from_host)(sc_comm_t *comm, void *buf, const void *host, size_t bytes,
                             sc_err_t *err);
    /* Sets bytes of buf to byte (zeroing, poisoning before a check). */
    sc_status_t (*fill_bytes)(sc_comm_t *comm, void *buf, int byte, size_t bytes, sc_err_t *err);
    /* The data check where the data lives (GPU: kernels; host: sc_check.c): writes count input
     * elements of this rank into buf; counts result elements of buf that differ from
     * expected. Both use the arithmetic of sc_check_core.h. */
    sc_status_t (*check_fill)(sc_comm_t *comm, void *buf, const sc_check_spec_t *spec, size_t count,
                              sc_err_t *err);
    sc_status_t (*check_count)(sc_comm_t *comm, const void *buf, const sc_check_spec_t *spec,
                               const sc_src_t *src, size_t count, uint64_t *wrong, sc_err_t *err);
    /* Optional: whether this backend runs collective `coll` on dtype, in place or not, beyond
     * having an entry for it (NULL: every entry runs every type). Ask sc_comm_supports. */
    bool (*supports)(const sc_comm_t *comm, sc_coll_id_t coll, sc_dtype_t dtype, bool in_place);
    /* Optional features: a NULL table means the backend has none of it (see the tables). */
    const sc_timer_ops_t *timer; /* device time around one operation (GPU) */
    const sc_graph_ops_t *graph; /* CUDA-graph capture (GPU) */
    const sc_group_ops_t *group; /* fused launches (NCCL) */
    const sc_rma_ops_t *rma;     /* one-sided puts (UCX) */
    const sc_gemm_ops_t *gemm;   /* timed matrix multiplies (GPU) */
    const sc_burn_ops_t *burn;   /* a device kept at full load (soak --load burn) */
    /* Non-blocking operations, for overlap and pipelines. istart (optional: call it through
     * sc_comm_istart) begins allreduce, reducescatter, allgather or alltoall (the
     * sc_coll_args_t convention) and returns at once; isend starts a send; recv receives
     * (blocking). iwait completes everything started. The compute phase keeps started
     * operations progressing. */
    sc_status_t (*istart)(sc_comm_t *comm, sc_coll_id_t coll, const sc_coll_args_t *args,
                          sc_err_t *err);
    sc_status_t (*isend)(sc_comm_t *comm, const void *buf, size_t count, sc_dtype_t dtype, int peer,
                         sc_err_t *err);
    sc_status_t (*recv)(sc_comm_t *comm, void *buf, size_t count, sc_dtype_t dtype, int peer,
                        sc_err_t *err);
    /* Optional: a receive that completes at iwait, for backends that match sends and receives
     * only within one group (NCCL: the sends and receives started are issued together). NULL:
     * recv is used, which such a backend cannot complete while the peer's matching receives
     * wait behind it. */
    sc_status_t (*irecv)(sc_comm_t *comm, void *buf, size_t count, sc_dtype_t dtype, int peer,
                         sc_err_t *err);
    sc_status_t (*iwait)(sc_comm_t *comm, sc_err_t *err);
    /* Optional: whether everything started on comm has completed (*done), without waiting;
     * once it has, the operations are finished as iwait finishes them. NULL: sc_comm_itest
     * waits with iwait and says done. */
    sc_status_t (*itest)(sc_comm_t *comm, bool *done, sc_err_t *err);
    /* The compute phase (compute/sc_compute.h): a spin of `us` microseconds (*measured_us: what
     * it took). */
    sc_status_t (*compute_spin)(sc_comm_t *comm, double us, double *measured_us, sc_err_t *err);
    /* A sub-communicator of the ranks that pass the same color, ordered by key (MPI_Comm_split,
     * ncclCommSplit). color < 0: this rank joins none and gets NULL. Collective over comm. */
    sc_status_t (*split)(sc_comm_t *comm, int color, int key, sc_comm_t **out, sc_err_t *err);
    /* Waits until every operation issued on comm has completed (GPU: stream sync). */
    sc_status_t (*sync)(sc_comm_t *comm, sc_err_t *err);
    sc_status_t (*barrier)(sc_comm_t *comm, sc_err_t *err);
    /* Optional: free bytes where this rank's buffers live, when that is not host memory (GPU:
     * the device's free memory). NULL: buffers are host memory. */
    sc_status_t (*memory)(sc_comm_t *comm, uint64_t *free_bytes, sc_err_t *err);
    /* Optional: aborts every communicator of this backend in the process, so that peers
     * waiting on them are released (NCCL: ncclCommAbort) before the process ends; returns
     * within a few seconds whatever the communicators do. Called by sc_backend_abort_all on
     * the watchdog's way out (owner false: another thread than the one that uses the
     * communicators) and before MPI_Abort (owner true). */
    void (*abort_all)(bool owner);
    /* Optional: how far this process's device got on each of its communicators (at most max,
     * into out; how many) - operations its library enqueued, and how many of them the device
     * started (NCCL: as its profiler plugin hears); 0 when the library does not say. Any thread
     * (the watchdog's). */
    int (*device_progress)(sc_device_progress_t *out, int max);
    /* Optional: the job's work moved just now (sc_backend_job_moved: a rank completed an
     * operation, or a device started or ended one): a backend's own bound on a wait counts
     * from the later of the wait's start and this, as the watchdog's --timeout does. Any
     * thread (the watchdog's). */
    void (*job_moved)(void);
    /* Optional: what the library chose for the last collective issued on comm; false when it
     * does not say. */
    bool (*last_choice)(sc_comm_t *comm, sc_lib_choice_t *out);
    /* Optional: the median time this rank's device spent in its own work between the last nops
     * operations on comm (the gap between one's end and the next one's start, as the library
     * saw them); false when it does not say. */
    bool (*own_time)(sc_comm_t *comm, int nops, double *median_us);
    /* Optional: the copies inside this node (sc_copy_row_t), on every device this process sees,
     * into rows (at most max; *n of them); the host memory pinned where the calling thread's
     * memory policy puts it. NULL: the backend has no devices of its own. */
    sc_status_t (*copies)(sc_comm_t *comm, const sc_copy_opts_t *o, sc_copy_row_t *rows, int max,
                          int *n, sc_err_t *err);
    /* The collectives the backend runs, by id; NULL where it has none (UCX: point to point
     * only). */
    sc_coll_fn_t coll[SC_COLL_COUNT];
} sc_backend_ops_t;

/* What every backend's communicator starts with; backends embed it first in their own struct. */
struct sc_comm {
    const sc_backend_ops_t *ops;
    const sc_rte_t *rte;
    int rank;         /* rank in this communicator */
    int size;         /* ranks in this communicator */
    int *world_rank;  /* world_rank[i]: world rank of this communicator's rank i */
    char device[128]; /* the rank's device in words ("GPU 0 NVIDIA H200 (0000:1b:00.0)"), ""
                         on the host path */
};

/* Whether comm runs collective coll on dtype (in place or not): it has the entry, and the
 * backend's supports() agrees. */
bool sc_comm_supports(const sc_comm_t *comm, sc_coll_id_t coll, sc_dtype_t dtype, bool in_place);
/* Whether comm's backend runs collective coll at all (sc_backend_runs). */
bool sc_comm_runs(const sc_comm_t *comm, sc_coll_id_t coll);
/* Starts collective coll on comm without waiting; SC_ERR_UNSUPPORTED naming the backend where
 * it has no non-blocking collectives. */
sc_status_t sc_comm_istart(sc_comm_t *comm, sc_coll_id_t coll, const sc_coll_args_t *args,
                           sc_err_t *err);
/* Runs collective coll on comm; SC_ERR_UNSUPPORTED naming the backend and the collective where
 * it has no entry. */
sc_status_t sc_comm_coll(sc_comm_t *comm, sc_coll_id_t coll, const sc_coll_args_t *args,
                         sc_err_t *err);

/* Whether buffers of need bytes on every rank of world fit, checked before they are made (a
 * huge -e or --sweep-max would otherwise run until the allocation fails mid-run, or the OOM
 * killer comes): host memory takes the needs of all ranks of a host, a device the need of its
 * rank; at most 90 % of what is available (the rest for the libraries). SC_ERR_USAGE naming
 * flag, the figures and the first host short of memory, on every rank. Collective. */
sc_status_t sc_comm_check_memory(sc_comm_t *world, uint64_t need, const char *flag, sc_err_t *err);

/* Backends compiled into this build, NULL-terminated. */
const sc_backend_ops_t *const *sc_backend_list(void);
/* Whether a backend's table runs collective id (a collective it lacks: coll refuses it by name
 * and leaves it out of `--collective all`, saying so). */
bool sc_backend_runs(const sc_backend_ops_t *ops, sc_coll_id_t id);

/* Opens the backend called name ("mpi", "nccl", "auto"). Unknown names: SC_ERR_USAGE naming
 * the flag --backend and the compiled-in backends. With auto, note receives what was tried and
 * what was chosen ("nccl not available (no CUDA device on host x: ...); backend auto: using
 * mpi"). Collective over rte->world: every rank reaches the same choice. */
sc_status_t sc_backend_open(const char *name, const sc_rte_t *rte, const sc_backend_opts_t *opts,
                            sc_comm_t **world, char *note, size_t note_len, sc_err_t *err);

/* Aborts the communicators of every backend opened in this process that can abort them
 * (ops->abort_all, bounded by the backend itself). owner: called from the thread that uses
 * them (an error ending the job), else from another (the watchdog). */
void sc_backend_abort_all(bool owner);
/* The device progress (ops->device_progress) of the backends opened in this process, at most
 * max communicators into out; how many (0: none says). */
int sc_backend_device_progress(sc_device_progress_t *out, int max);
/* Tells the backends opened in this process that the job's work moved (ops->job_moved). */
void sc_backend_job_moved(void);

/* Fills the common part of a communicator. world_ranks (size entries) maps its ranks to world
 * ranks; NULL means the identity (the world communicator). */
sc_status_t sc_comm_init_base(sc_comm_t *comm, const sc_backend_ops_t *ops, const sc_rte_t *rte,
                              int rank, int size, const int *world_ranks, sc_err_t *err);

/* Host implementations of the data-check and memory ops, for backends whose buffers are host
 * memory (to_host, from_host and copy are all sc_backend_host_copy). */
sc_status_t sc_backend_host_copy(sc_comm_t *comm, void *dst, const void *src, size_t bytes,
                                 sc_err_t *err);
sc_status_t sc_backend_host_fill_bytes(sc_comm_t *comm, void *buf, int byte, size_t bytes,
                                       sc_err_t *err);
sc_status_t sc_backend_host_check_fill(sc_comm_t *comm, void *buf, const sc_check_spec_t *spec,
                                       size_t count, sc_err_t *err);
sc_status_t sc_backend_host_check_count(sc_comm_t *comm, const void *buf,
                                        const sc_check_spec_t *spec, const sc_src_t *src,
                                        size_t count, uint64_t *wrong, sc_err_t *err);
void sc_comm_fini_base(sc_comm_t *comm);
/* The host path's burn (compute/sc_compute.h), for backends whose device is the host. */
extern const sc_burn_ops_t sc_host_burn;

/* The ranks with `in` set, split off world as a measured group: a communicator of world's
 * backend (*data; NULL on the others) and, beside it, its MPI control communicator split off
 * control (*ctl; MPI_COMM_NULL on the others), both ranked by key - the pair every group a
 * command measures alone needs (a run's point, calibrate's ladder, a pair search's, a soak's
 * pair checks). Collective over world and control; on failure nothing is left to free. */
sc_status_t sc_comm_split_group(sc_comm_t *world, MPI_Comm control, bool in, int key,
                                sc_comm_t **data, MPI_Comm *ctl, sc_err_t *err);
/* Closes what sc_comm_split_group made (either may be absent); both end NULL. */
void sc_comm_group_close(sc_comm_t **data, MPI_Comm *ctl);

/* The MPI half of split for backends whose communicator is an MPI one (mpi, ucx): splits
 * parent by color and key; on the ranks that join, *out is the new communicator and
 * *world_ranks (malloc'd, *size entries) its members' world ranks; elsewhere *out is
 * MPI_COMM_NULL. On failure nothing is left to free. */
sc_status_t sc_comm_split_mpi(const sc_comm_t *comm, MPI_Comm parent, int color, int key,
                              MPI_Comm *out, int **world_ranks, sc_err_t *err);

extern const sc_backend_ops_t sc_backend_mpi_ops;
#if SC_HAVE_UCX
extern const sc_backend_ops_t sc_backend_ucx_ops;
#endif
/* The GPU paths' entries in the list: each loads its vendor's module (comm/sc_gpu_plugin.h) when
 * it is opened, and the communicator it returns carries the module's own table. */
#if SC_HAVE_NCCL
extern const sc_backend_ops_t sc_backend_nccl_ops;
#endif
extern const sc_backend_ops_t sc_backend_rccl_ops;
extern const sc_backend_ops_t sc_backend_hccl_ops;

#endif
