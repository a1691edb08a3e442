/* backend_ucx.c - point-to-point over UCX (UCP tagged messages): context, worker and endpoints
 * to every rank, worker addresses exchanged over MPI, buffers registered once when allocated,
 * one-sided puts to exposed buffers (RMA), every wait bounded by the timeout. Collectives are not
 * this backend's job (it has no collective entries): it serves `pairs` and pipeline send/recv. */
#include "sc_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

#include "util/sc_clock.h"

#define UCX__MAX_PENDING 256
#define UCX__MAX_REGIONS 16

typedef struct {
    int refs;
    ucp_context_h context;
    ucp_worker_h worker;
    ucp_ep_h *eps; /* by world rank */
    int nranks;
    double timeout_s;
    char version[64];
} ucx__shared_t;

typedef struct {
    sc_comm_t base; /* first, so that a sc_comm_t * is a ucx__comm_t * */
    ucx__shared_t *sh;
    MPI_Comm mpi; /* bootstrap and barrier */
    void *pending[UCX__MAX_PENDING];
    int npending;
    struct {
        void *ptr;
        ucp_mem_h memh;
    } regions[UCX__MAX_REGIONS];
    uint64_t *remote_addr; /* RMA: each rank's exposed buffer (by comm rank) */
    ucp_rkey_h *rkeys;
} ucx__comm_t;

static ucx__comm_t *ucx__of(sc_comm_t *comm)
{
    return (ucx__comm_t *)comm;
}

static sc_status_t ucx__fail(const sc_comm_t *comm, ucs_status_t st, const char *what,
                             sc_err_t *err)
{
    return sc_err_set(err, st == UCS_ERR_TIMED_OUT ? SC_ERR_TIMEOUT : SC_ERR_RUNTIME,
                      "rank %d (host %s): %s: %s", comm->rte->rank, comm->rte->host, what,
                      ucs_status_string(st));
}

/* Waits, bounded, for one request; frees it. */
static sc_status_t ucx__wait(sc_comm_t *comm, void *req, const char *what, sc_err_t *err)
{
    ucx__shared_t *sh = ucx__of(comm)->sh;
    if (req == NULL)
        return SC_OK;
    if (UCS_PTR_IS_ERR(req))
        return ucx__fail(comm, UCS_PTR_STATUS(req), what, err);
    uint64_t start = sc_clock_ns();
    ucs_status_t st;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        ucp_worker_progress(sh->worker);
        if ((double)(sc_clock_ns() - start) * 1e-9 > sh->timeout_s) {
            ucp_request_cancel(sh->worker, req);
            ucp_request_free(req);
            return ucx__fail(comm, UCS_ERR_TIMED_OUT, what, err);
        }
    }
    ucp_request_free(req);
    return st == UCS_OK ? SC_OK : ucx__fail(comm, st, what, err);
}

/* Tags carry the sender's world rank, so that a receive names its source. */
static ucp_tag_t ucx__tag(int world_src)
{
    return ((ucp_tag_t)(unsigned)world_src << 32) | 1u;
}

static sc_status_t ucx__isend(sc_comm_t *comm, const void *buf, size_t count, sc_dtype_t dtype,
                              int peer, sc_err_t *err)
{
    ucx__comm_t *c = ucx__of(comm);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    int me = comm->world_rank[comm->rank], to = comm->world_rank[peer];
    void *req =
        ucp_tag_send_nbx(c->sh->eps[to], buf, count * sc_dtype_size(dtype), ucx__tag(me), &prm);
    if (UCS_PTR_IS_ERR(req))
        return ucx__fail(comm, UCS_PTR_STATUS(req), "ucp_tag_send_nbx", err);
    if (req != NULL) {
        if (c->npending == UCX__MAX_PENDING) {
            sc_status_t status = ucx__wait(comm, req, "ucp_tag_send_nbx", err);
            return status;
        }
        c->pending[c->npending++] = req;
    }
    return SC_OK;
}

static sc_status_t ucx__recv(sc_comm_t *comm, void *buf, size_t count, sc_dtype_t dtype, int peer,
                             sc_err_t *err)
{
    ucx__comm_t *c = ucx__of(comm);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    void *req = ucp_tag_recv_nbx(c->sh->worker, buf, count * sc_dtype_size(dtype),
                                 ucx__tag(comm->world_rank[peer]), (ucp_tag_t)-1, &prm);
    return ucx__wait(comm, req, "ucp_tag_recv_nbx", err);
}

static sc_status_t ucx__iwait(sc_comm_t *comm, sc_err_t *err)
{
    ucx__comm_t *c = ucx__of(comm);
    sc_status_t status = SC_OK;
    for (int i = 0; i < c->npending; i++) {
        sc_status_t s = ucx__wait(comm, c->pending[i], "waiting for sends", err);
        status = status == SC_OK ? s : status;
    }
    c->npending = 0;
    return status;
}

static sc_status_t ucx__barrier(sc_comm_t *comm, sc_err_t *err)
{
    int rc = MPI_Barrier(ucx__of(comm)->mpi);
    return rc == MPI_SUCCESS ? SC_OK : sc_rte_mpi_error(comm->rte, rc, "MPI_Barrier", err);
}

static sc_status_t ucx__sync(sc_comm_t *comm, sc_err_t *err)
{
    (void)comm;
    (void)err;
    return SC_OK;
}

/* Buffers are registered with UCX once, here, not at every send. */
static void *ucx__alloc(sc_comm_t *comm, size_t bytes)
{
    ucx__comm_t *c = ucx__of(comm);
    void *ptr = NULL;
    if (posix_memalign(&ptr, 4096, bytes ? bytes : 1) != 0)
        return NULL;
    for (int i = 0; i < UCX__MAX_REGIONS; i++) {
        if (c->regions[i].ptr != NULL)
            continue;
        ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                                 UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                                   .address = ptr,
                                   .length = bytes ? bytes : 1};
        if (ucp_mem_map(c->sh->context, &mp, &c->regions[i].memh) == UCS_OK)
            c->regions[i].ptr = ptr;
        break;
    }
    return ptr;
}

static void ucx__free(sc_comm_t *comm, void *ptr)
{
    ucx__comm_t *c = ucx__of(comm);
    for (int i = 0; i < UCX__MAX_REGIONS; i++)
        if (c->regions[i].ptr == ptr) {
            ucp_mem_unmap(c->sh->context, c->regions[i].memh);
            c->regions[i].ptr = NULL;
        }
    free(ptr);
}

static sc_status_t ucx__compute_spin(sc_comm_t *comm, double us, double *measured_us, sc_err_t *err)
{
    (void)err;
    uint64_t start = sc_clock_ns(), end = start + (uint64_t)(us * 1e3);
    while (sc_clock_ns() < end)
        ucp_worker_progress(ucx__of(comm)->sh->worker); /* started sends keep moving */
    *measured_us = (double)(sc_clock_ns() - start) * 1e-3;
    return SC_OK;
}

static void ucx__rma_release(ucx__comm_t *c)
{
    for (int r = 0; c->rkeys && r < c->base.size; r++)
        if (c->rkeys[r] != NULL)
            ucp_rkey_destroy(c->rkeys[r]);
    free(c->rkeys);
    free(c->remote_addr);
    c->rkeys = NULL;
    c->remote_addr = NULL;
}

/* Packs this buffer's remote key, gathers everyone's over MPI, unpacks them on our endpoints. */
static sc_status_t ucx__rma_expose(sc_comm_t *comm, void *buf, size_t bytes, sc_err_t *err)
{
    ucx__comm_t *c = ucx__of(comm);
    (void)bytes;
    ucp_mem_h memh = NULL;
    for (int i = 0; i < UCX__MAX_REGIONS; i++)
        if (c->regions[i].ptr == buf)
            memh = c->regions[i].memh;
    void *packed = NULL;
    size_t len = 0;
    ucs_status_t st = memh ? ucp_rkey_pack(c->sh->context, memh, &packed, &len) : UCS_ERR_NO_ELEM;
    int mylen = st == UCS_OK ? (int)len : 0, n = comm->size;
    int *lens = calloc((size_t)n, sizeof(int)), *offs = calloc((size_t)n, sizeof(int));
    ucx__rma_release(c);
    c->remote_addr = calloc((size_t)n, sizeof(uint64_t));
    c->rkeys = calloc((size_t)n, sizeof(ucp_rkey_h));
    uint64_t addr = (uint64_t)(uintptr_t)buf;
    MPI_Allgather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, c->mpi);
    MPI_Allgather(&addr, 1, MPI_UINT64_T, c->remote_addr, 1, MPI_UINT64_T, c->mpi);
    size_t total = 0;
    for (int r = 0; r < n; r++) {
        offs[r] = (int)total;
        total += (size_t)lens[r];
    }
    char *all = malloc(total ? total : 1);
    MPI_Allgatherv(packed, mylen, MPI_BYTE, all, lens, offs, MPI_BYTE, c->mpi);
    if (packed != NULL)
        ucp_rkey_buffer_release(packed);
    for (int r = 0; r < n && st == UCS_OK; r++)
        st = lens[r]
                 ? ucp_ep_rkey_unpack(c->sh->eps[comm->world_rank[r]], all + offs[r], &c->rkeys[r])
                 : UCS_ERR_NO_ELEM;
    free(all);
    free(lens);
    free(offs);
    return st == UCS_OK ? SC_OK : ucx__fail(comm, st, "exposing a buffer for RMA", err);
}

static sc_status_t ucx__rma_put(sc_comm_t *comm, int peer, const void *src, size_t offset,
                                size_t bytes, sc_err_t *err)
{
    ucx__comm_t *c = ucx__of(comm);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    void *req = ucp_put_nbx(c->sh->eps[comm->world_rank[peer]], src, bytes,
                            c->remote_addr[peer] + offset, c->rkeys[peer], &prm);
    if (UCS_PTR_IS_ERR(req))
        return ucx__fail(comm, UCS_PTR_STATUS(req), "ucp_put_nbx", err);
    if (req != NULL && c->npending < UCX__MAX_PENDING)
        c->pending[c->npending++] = req;
    else if (req != NULL)
        return ucx__wait(comm, req, "ucp_put_nbx", err);
    return SC_OK;
}

static sc_status_t ucx__rma_flush(sc_comm_t *comm, int peer, sc_err_t *err)
{
    ucx__comm_t *c = ucx__of(comm);
    ucp_request_param_t prm = {.op_attr_mask = 0};
    sc_status_t status = ucx__iwait(comm, err);
    void *req = ucp_ep_flush_nbx(c->sh->eps[comm->world_rank[peer]], &prm);
    return status == SC_OK ? ucx__wait(comm, req, "ucp_ep_flush_nbx", err) : status;
}

static const char *ucx__version(sc_comm_t *comm)
{
    return ucx__of(comm)->sh->version;
}

static void ucx__describe(sc_comm_t *comm, sc_kvs_t *out)
{
    sc_kvs_text(out, "ucx_library", ucx__of(comm)->sh->version);
}

static sc_status_t ucx__wrap(const sc_rte_t *rte, ucx__shared_t *sh, MPI_Comm mpi,
                             const int *world_ranks, sc_comm_t **out, sc_err_t *err);

/* Endpoints to every rank, from worker addresses gathered over MPI. */
static sc_status_t ucx__connect(const sc_rte_t *rte, ucx__shared_t *sh, sc_err_t *err)
{
    ucp_address_t *addr = NULL;
    size_t len = 0;
    ucs_status_t st = ucp_worker_get_address(sh->worker, &addr, &len);
    if (st != UCS_OK)
        return sc_err_set(err, SC_ERR_RUNTIME, "rank %d (host %s): ucp_worker_get_address: %s",
                          rte->rank, rte->host, ucs_status_string(st));
    int mylen = (int)len, *lens = calloc((size_t)rte->size, sizeof(int));
    int *offs = calloc((size_t)rte->size, sizeof(int));
    MPI_Allgather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, rte->world);
    size_t total = 0;
    for (int r = 0; r < rte->size; r++) {
        offs[r] = (int)total;
        total += (size_t)lens[r];
    }
    char *all = malloc(total);
    MPI_Allgatherv(addr, mylen, MPI_BYTE, all, lens, offs, MPI_BYTE, rte->world);
    ucp_worker_release_address(sh->worker, addr);
    sh->eps = calloc((size_t)rte->size, sizeof(ucp_ep_h));
    sh->nranks = rte->size;
    for (int r = 0; r < rte->size && st == UCS_OK; r++) {
        ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                              .address = (const ucp_address_t *)(all + offs[r])};
        st = ucp_ep_create(sh->worker, &ep, &sh->eps[r]);
    }
    free(all);
    free(lens);
    free(offs);
    return st == UCS_OK ? SC_OK
                        : sc_err_set(err, SC_ERR_RUNTIME, "rank %d (host %s): ucp_ep_create: %s",
                                     rte->rank, rte->host, ucs_status_string(st));
}

static sc_status_t ucx__open(const sc_rte_t *rte, const sc_backend_opts_t *opts, sc_comm_t **world,
                             sc_err_t *err)
{
    ucx__shared_t *sh = calloc(1, sizeof(*sh));
    ucp_config_t *config = NULL;
    if (sh == NULL || ucp_config_read(NULL, NULL, &config) != UCS_OK)
        return sc_err_set(err, SC_ERR_UNSUPPORTED, "UCX is not usable on host %s", rte->host);
    ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                           .features = UCP_FEATURE_TAG | UCP_FEATURE_RMA};
    ucs_status_t st = ucp_init(&params, config, &sh->context);
    ucp_config_release(config);
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_SINGLE};
    if (st == UCS_OK)
        st = ucp_worker_create(sh->context, &wp, &sh->worker);
    /* every rank must agree before endpoints are made */
    int ok = st == UCS_OK, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, rte->world);
    if (!all_ok)
        return sc_err_set(err, SC_ERR_UNSUPPORTED, "UCX could not start on host %s: %s", rte->host,
                          ucs_status_string(st));
    unsigned major, minor, release;
    ucp_get_version(&major, &minor, &release);
    snprintf(sh->version, sizeof(sh->version), "UCX %u.%u.%u", major, minor, release);
    sh->timeout_s = opts->timeout_s > 0 ? opts->timeout_s : 1e9;
    sc_status_t status = ucx__connect(rte, sh, err);
    MPI_Comm mpi;
    MPI_Comm_dup(rte->world, &mpi);
    return status == SC_OK ? ucx__wrap(rte, sh, mpi, NULL, world, err) : status;
}

static void ucx__close(sc_comm_t *comm)
{
    ucx__comm_t *c = ucx__of(comm);
    sc_err_t ignored;
    ucx__iwait(comm, &ignored);
    for (int i = 0; i < UCX__MAX_REGIONS; i++)
        if (c->regions[i].ptr != NULL)
            ucp_mem_unmap(c->sh->context, c->regions[i].memh);
    ucx__shared_t *sh = c->sh;
    ucx__rma_release(c);
    MPI_Barrier(c->mpi); /* nobody closes endpoints a peer still sends on */
    MPI_Comm_free(&c->mpi);
    sc_comm_fini_base(comm);
    free(c);
    if (--sh->refs > 0)
        return;
    ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                               .flags = UCP_EP_CLOSE_FLAG_FORCE};
    uint64_t start = sc_clock_ns(); /* a forced close is local, but bounded all the same */
    for (int r = 0; r < sh->nranks; r++)
        if (sh->eps[r] != NULL) {
            void *req = ucp_ep_close_nbx(sh->eps[r], &prm);
            while (req != NULL && UCS_PTR_IS_PTR(req) &&
                   ucp_request_check_status(req) == UCS_INPROGRESS &&
                   (double)(sc_clock_ns() - start) * 1e-9 < sh->timeout_s)
                ucp_worker_progress(sh->worker);
            if (req != NULL && UCS_PTR_IS_PTR(req))
                ucp_request_free(req);
        }
    free(sh->eps);
    ucp_worker_destroy(sh->worker);
    ucp_cleanup(sh->context);
    free(sh);
}

static sc_status_t ucx__split(sc_comm_t *comm, int color, int key, sc_comm_t **out, sc_err_t *err)
{
    ucx__comm_t *c = ucx__of(comm);
    *out = NULL;
    MPI_Comm mpi;
    int *world_ranks = NULL;
    sc_status_t status = sc_comm_split_mpi(comm, c->mpi, color, key, &mpi, &world_ranks, err);
    if (status == SC_OK && mpi != MPI_COMM_NULL)
        status = ucx__wrap(comm->rte, c->sh, mpi, world_ranks, out, err);
    free(world_ranks);
    return status;
}

static const sc_rma_ops_t ucx__rma = {ucx__rma_expose, ucx__rma_put, ucx__rma_flush};

const sc_backend_ops_t sc_backend_ucx_ops = {
    .name = "ucx",
    .open = ucx__open,
    .close = ucx__close,
    .version = ucx__version,
    .describe = ucx__describe,
    .alloc = ucx__alloc,
    .free = ucx__free,
    .to_host = sc_backend_host_copy,
    .from_host = sc_backend_host_copy,
    .fill_bytes = sc_backend_host_fill_bytes,
    .check_fill = sc_backend_host_check_fill,
    .check_count = sc_backend_host_check_count,
    .split = ucx__split,
    .burn = &sc_host_burn,
    .compute_spin = ucx__compute_spin,
    .isend = ucx__isend,
    .recv = ucx__recv,
    .iwait = ucx__iwait,
    .rma = &ucx__rma,
    .sync = ucx__sync,
    .barrier = ucx__barrier,
};

static sc_status_t ucx__wrap(const sc_rte_t *rte, ucx__shared_t *sh, MPI_Comm mpi,
                             const int *world_ranks, sc_comm_t **out, sc_err_t *err)
{
    int rank = 0, size = 0;
    MPI_Comm_rank(mpi, &rank);
    MPI_Comm_size(mpi, &size);
    ucx__comm_t *c = calloc(1, sizeof(*c));
    sc_status_t status =
        c ? sc_comm_init_base(&c->base, &sc_backend_ucx_ops, rte, rank, size, world_ranks, err)
          : sc_err_set(err, SC_ERR_NOMEM, "no memory for the UCX backend");
    if (status != SC_OK) {
        free(c);
        MPI_Comm_free(&mpi);
        return status;
    }
    c->sh = sh;
    c->mpi = mpi;
    sh->refs++;
    *out = &c->base;
    return SC_OK;
}
