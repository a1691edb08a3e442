/* backend_mpi.c - the host path: collectives through MPI on host memory. Runs everywhere.
 * MPI has no average: avg is MPI_SUM followed by a local division, done in the element type. */
#include "sc_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    sc_comm_t base; /* first, so that a sc_comm_t * is a mpi__comm_t * */
    MPI_Comm comm;
    char version[256];
    MPI_Request *pending; /* started non-blocking operations */
    int npending, cap_pending;
} mpi__comm_t;

static MPI_Comm mpi__c(sc_comm_t *comm)
{
    return ((mpi__comm_t *)comm)->comm;
}

static MPI_Datatype mpi__dtype(sc_dtype_t dtype)
{
    switch (dtype) {
    case SC_DTYPE_int8:
        return MPI_INT8_T;
    case SC_DTYPE_uint8:
        return MPI_UINT8_T;
    case SC_DTYPE_int32:
        return MPI_INT32_T;
    case SC_DTYPE_uint32:
        return MPI_UINT32_T;
    case SC_DTYPE_int64:
        return MPI_INT64_T;
    case SC_DTYPE_uint64:
        return MPI_UINT64_T;
    case SC_DTYPE_float:
        return MPI_FLOAT;
    case SC_DTYPE_double:
        return MPI_DOUBLE;
    default:
        return MPI_DATATYPE_NULL;
    }
}

static MPI_Op mpi__op(sc_redop_t op)
{
    switch (op) {
    case SC_REDOP_prod:
        return MPI_PROD;
    case SC_REDOP_min:
        return MPI_MIN;
    case SC_REDOP_max:
        return MPI_MAX;
    case SC_REDOP_sum:
    case SC_REDOP_avg:
    default:
        return MPI_SUM;
    }
}

/* avg, which MPI lacks: count elements of buf, a sum over `ranks` ranks (the communicator's size
 * for a reduction over all of them, fewer for a prefix), divided in the element type. Only the
 * native types reach it: this backend refuses fp16/bf16 (mpi__supports). */
static void mpi__divide(int ranks, sc_dtype_t dtype, void *buf, size_t count)
{
    switch (dtype) {
#define MPI__DIVIDE(n, ctype, fl, sg, mx, conv)                                                    \
    case SC_DTYPE_##n:                                                                             \
        for (size_t i = 0; i < count; i++)                                                         \
            ((ctype *)buf)[i] = (ctype)(((ctype *)buf)[i] / (ctype)ranks);                         \
        break;
        SC_DTYPE_MAP(MPI__DIVIDE)
#undef MPI__DIVIDE
    default:
        break;
    }
}

static sc_status_t mpi__check(sc_comm_t *comm, int rc, const char *what, sc_err_t *err)
{
    return rc == MPI_SUCCESS ? SC_OK : sc_rte_mpi_error(comm->rte, rc, what, err);
}

static int mpi__count(size_t count)
{
    return (int)count; /* sizes are validated against INT_MAX elements by the caller */
}

static sc_status_t mpi__allreduce(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    const void *send = a->in_place ? MPI_IN_PLACE : a->sendbuf;
    int rc = MPI_Allreduce(send, a->recvbuf, mpi__count(a->count), mpi__dtype(a->dtype),
                           mpi__op(a->op), mpi__c(comm));
    if (rc == MPI_SUCCESS && a->op == SC_REDOP_avg)
        mpi__divide(comm->size, a->dtype, a->recvbuf, a->count);
    return mpi__check(comm, rc, "MPI_Allreduce", err);
}

static sc_status_t mpi__allgather(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    const void *send = a->in_place ? MPI_IN_PLACE : a->sendbuf;
    MPI_Datatype dt = mpi__dtype(a->dtype);
    int rc = MPI_Allgather(send, mpi__count(a->count), dt, a->recvbuf, mpi__count(a->count), dt,
                           mpi__c(comm));
    return mpi__check(comm, rc, "MPI_Allgather", err);
}

static sc_status_t mpi__reducescatter(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    size_t esize = sc_dtype_size(a->dtype);
    int rc;
    if (a->in_place) {
        /* MPI leaves the result at offset 0; the convention wants it at rank*count. */
        rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, a->recvbuf, mpi__count(a->count),
                                      mpi__dtype(a->dtype), mpi__op(a->op), mpi__c(comm));
        if (rc == MPI_SUCCESS && comm->rank > 0)
            memmove((char *)a->recvbuf + (size_t)comm->rank * a->count * esize, a->recvbuf,
                    a->count * esize);
    } else {
        rc = MPI_Reduce_scatter_block(a->sendbuf, a->recvbuf, mpi__count(a->count),
                                      mpi__dtype(a->dtype), mpi__op(a->op), mpi__c(comm));
    }
    if (rc == MPI_SUCCESS && a->op == SC_REDOP_avg) {
        size_t offset = a->in_place ? (size_t)comm->rank * a->count * esize : 0;
        mpi__divide(comm->size, a->dtype, (char *)a->recvbuf + offset, a->count);
    }
    return mpi__check(comm, rc, "MPI_Reduce_scatter_block", err);
}

static sc_status_t mpi__broadcast(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    /* MPI broadcasts in place; out of place the root's own copy is a local memcpy. */
    if (!a->in_place && comm->rank == a->root)
        memcpy(a->recvbuf, a->sendbuf, a->count * sc_dtype_size(a->dtype));
    int rc =
        MPI_Bcast(a->recvbuf, mpi__count(a->count), mpi__dtype(a->dtype), a->root, mpi__c(comm));
    return mpi__check(comm, rc, "MPI_Bcast", err);
}

static sc_status_t mpi__reduce(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    bool is_root = comm->rank == a->root;
    const void *send = (a->in_place && is_root) ? MPI_IN_PLACE : a->sendbuf;
    int rc = MPI_Reduce(send, a->recvbuf, mpi__count(a->count), mpi__dtype(a->dtype),
                        mpi__op(a->op), a->root, mpi__c(comm));
    if (rc == MPI_SUCCESS && is_root && a->op == SC_REDOP_avg)
        mpi__divide(comm->size, a->dtype, a->recvbuf, a->count);
    return mpi__check(comm, rc, "MPI_Reduce", err);
}

static sc_status_t mpi__alltoall(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    const void *send = a->in_place ? MPI_IN_PLACE : a->sendbuf;
    MPI_Datatype dt = mpi__dtype(a->dtype);
    int rc = MPI_Alltoall(send, mpi__count(a->count), dt, a->recvbuf, mpi__count(a->count), dt,
                          mpi__c(comm));
    return mpi__check(comm, rc, "MPI_Alltoall", err);
}

static sc_status_t mpi__sendrecv(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    MPI_Datatype dt = mpi__dtype(a->dtype);
    int n = mpi__count(a->count);
    int rc;
    if (a->in_place)
        rc = MPI_Sendrecv_replace(a->recvbuf, n, dt, a->send_peer, 0, a->recv_peer, 0, mpi__c(comm),
                                  MPI_STATUS_IGNORE);
    else
        rc = MPI_Sendrecv(a->sendbuf, n, dt, a->send_peer, 0, a->recvbuf, n, dt, a->recv_peer, 0,
                          mpi__c(comm), MPI_STATUS_IGNORE);
    return mpi__check(comm, rc, "MPI_Sendrecv", err);
}

static sc_status_t mpi__gather(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    bool is_root = comm->rank == a->root;
    const void *send = (a->in_place && is_root) ? MPI_IN_PLACE : a->sendbuf;
    MPI_Datatype dt = mpi__dtype(a->dtype);
    int n = mpi__count(a->count);
    int rc = MPI_Gather(send, n, dt, a->recvbuf, n, dt, a->root, mpi__c(comm));
    return mpi__check(comm, rc, "MPI_Gather", err);
}

static sc_status_t mpi__scatter(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    bool is_root = comm->rank == a->root;
    const void *send = a->sendbuf;
    void *recv = (a->in_place && is_root) ? MPI_IN_PLACE : a->recvbuf;
    MPI_Datatype dt = mpi__dtype(a->dtype);
    int n = mpi__count(a->count);
    int rc = MPI_Scatter(send, n, dt, recv, n, dt, a->root, mpi__c(comm));
    return mpi__check(comm, rc, "MPI_Scatter", err);
}

/* Wraps an MPI communicator (owned from now on) whose ranks are world_ranks. */
static sc_status_t mpi__wrap(const sc_rte_t *rte, MPI_Comm mc, const int *world_ranks,
                             sc_comm_t **out, sc_err_t *err)
{
    int rank = 0, size = 0;
    MPI_Comm_rank(mc, &rank);
    MPI_Comm_size(mc, &size);
    mpi__comm_t *c = calloc(1, sizeof(*c));
    sc_status_t status = c == NULL ? sc_err_set(err, SC_ERR_NOMEM,
                                                "rank %d (host %s): no memory for the MPI "
                                                "backend",
                                                rte->rank, rte->host)
                                   : sc_comm_init_base(&c->base, &sc_backend_mpi_ops, rte, rank,
                                                       size, world_ranks, err);
    if (status != SC_OK) {
        free(c);
        MPI_Comm_free(&mc);
        return status;
    }
    MPI_Comm_set_errhandler(mc, MPI_ERRORS_RETURN);
    c->comm = mc;
    snprintf(c->version, sizeof(c->version), "%s", rte->mpi_version);
    *out = &c->base;
    return SC_OK;
}

static sc_status_t mpi__open(const sc_rte_t *rte, const sc_backend_opts_t *opts, sc_comm_t **world,
                             sc_err_t *err)
{
    (void)opts;
    MPI_Comm mc;
    int rc = MPI_Comm_dup(rte->world, &mc);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(rte, rc, "MPI_Comm_dup", err);
    return mpi__wrap(rte, mc, NULL, world, err);
}

static sc_status_t mpi__split(sc_comm_t *comm, int color, int key, sc_comm_t **out, sc_err_t *err)
{
    *out = NULL;
    MPI_Comm mc;
    int *world_ranks = NULL;
    sc_status_t status = sc_comm_split_mpi(comm, mpi__c(comm), color, key, &mc, &world_ranks, err);
    if (status == SC_OK && mc != MPI_COMM_NULL)
        status = mpi__wrap(comm->rte, mc, world_ranks, out, err);
    free(world_ranks);
    return status;
}

static bool mpi__supports(const sc_comm_t *comm, sc_coll_id_t coll, sc_dtype_t dtype, bool in_place)
{
    (void)comm;
    (void)coll;
    (void)in_place;
    return mpi__dtype(dtype) != MPI_DATATYPE_NULL; /* MPI has no fp16/bf16 */
}

static sc_status_t mpi__track(sc_comm_t *comm, MPI_Request req, int rc, const char *what,
                              sc_err_t *err)
{
    mpi__comm_t *c = (mpi__comm_t *)comm;
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(comm->rte, rc, what, err);
    if (c->npending == c->cap_pending) {
        int cap = c->cap_pending ? 2 * c->cap_pending : 64;
        MPI_Request *grown = realloc(c->pending, (size_t)cap * sizeof(MPI_Request));
        if (grown == NULL)
            return sc_err_set(err, SC_ERR_NOMEM, "rank %d: no memory for requests",
                              comm->rte->rank);
        c->pending = grown;
        c->cap_pending = cap;
    }
    c->pending[c->npending++] = req;
    return SC_OK;
}

static sc_status_t mpi__istart(sc_comm_t *comm, sc_coll_id_t coll, const sc_coll_args_t *a,
                               sc_err_t *err)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Datatype dt = mpi__dtype(a->dtype);
    int n = mpi__count(a->count), rc;
    switch (coll) {
    case SC_COLL_allreduce:
        rc = MPI_Iallreduce(a->sendbuf, a->recvbuf, n, dt, mpi__op(a->op), mpi__c(comm), &req);
        return mpi__track(comm, req, rc, "MPI_Iallreduce", err);
    case SC_COLL_reducescatter:
        rc = MPI_Ireduce_scatter_block(a->sendbuf, a->recvbuf, n, dt, mpi__op(a->op), mpi__c(comm),
                                       &req);
        return mpi__track(comm, req, rc, "MPI_Ireduce_scatter_block", err);
    case SC_COLL_allgather:
        rc = MPI_Iallgather(a->sendbuf, n, dt, a->recvbuf, n, dt, mpi__c(comm), &req);
        return mpi__track(comm, req, rc, "MPI_Iallgather", err);
    case SC_COLL_alltoall:
        rc = MPI_Ialltoall(a->sendbuf, n, dt, a->recvbuf, n, dt, mpi__c(comm), &req);
        return mpi__track(comm, req, rc, "MPI_Ialltoall", err);
    default:
        return sc_err_set(err, SC_ERR_UNSUPPORTED, "backend mpi: %s cannot be started",
                          sc_coll_id_name(coll));
    }
}

static sc_status_t mpi__isend(sc_comm_t *comm, const void *buf, size_t count, sc_dtype_t dtype,
                              int peer, sc_err_t *err)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_Isend(buf, mpi__count(count), mpi__dtype(dtype), peer, 1, mpi__c(comm), &req);
    return mpi__track(comm, req, rc, "MPI_Isend", err);
}

static sc_status_t mpi__recv(sc_comm_t *comm, void *buf, size_t count, sc_dtype_t dtype, int peer,
                             sc_err_t *err)
{
    int rc = MPI_Recv(buf, mpi__count(count), mpi__dtype(dtype), peer, 1, mpi__c(comm),
                      MPI_STATUS_IGNORE);
    return mpi__check(comm, rc, "MPI_Recv", err);
}

static sc_status_t mpi__iwait(sc_comm_t *comm, sc_err_t *err)
{
    mpi__comm_t *c = (mpi__comm_t *)comm;
    int rc = sc_rte_waitall(c->npending, c->pending);
    c->npending = 0;
    return mpi__check(comm, rc, "MPI_Waitall", err);
}

static sc_status_t mpi__itest(sc_comm_t *comm, bool *done, sc_err_t *err)
{
    mpi__comm_t *c = (mpi__comm_t *)comm;
    int flag = 1, rc = MPI_SUCCESS;
    if (c->npending > 0)
        rc = sc_rte_testall(c->npending, c->pending, &flag); /* MPICH: sc_rte.c says why */
    *done = rc == MPI_SUCCESS && flag;
    if (*done)
        c->npending = 0;
    return mpi__check(comm, rc, "MPI_Testall", err);
}

static sc_status_t mpi__compute_spin(sc_comm_t *comm, double us, double *measured_us, sc_err_t *err)
{
    (void)err;
    mpi__comm_t *c = (mpi__comm_t *)comm;
    /* Started operations progress while we "compute": libnbc advances only when tested. */
    *measured_us = sc_compute_host_spin(mpi__c(comm), c->pending, c->npending, us);
    return SC_OK;
}

static void mpi__close(sc_comm_t *comm)
{
    mpi__comm_t *c = (mpi__comm_t *)comm;
    if (c->npending > 0)
        sc_rte_waitall(c->npending, c->pending);
    free(c->pending);
    MPI_Comm_free(&c->comm);
    sc_comm_fini_base(comm);
    free(c);
}

static const char *mpi__version(sc_comm_t *comm)
{
    return ((mpi__comm_t *)comm)->version;
}

static void mpi__describe(sc_comm_t *comm, sc_kvs_t *out)
{
    sc_kvs_text(out, "mpi_library", ((mpi__comm_t *)comm)->version);
}

static void *mpi__alloc(sc_comm_t *comm, size_t bytes)
{
    (void)comm;
    void *ptr = NULL;
    /* Page alignment, as registration caches and NICs like it; at least one byte. */
    if (posix_memalign(&ptr, 4096, bytes ? bytes : 1) != 0)
        return NULL;
    return ptr;
}

static void mpi__free(sc_comm_t *comm, void *ptr)
{
    (void)comm;
    free(ptr);
}

static sc_status_t mpi__sync(sc_comm_t *comm, sc_err_t *err)
{
    (void)comm;
    (void)err;
    return SC_OK; /* MPI calls are complete when they return */
}

static sc_status_t mpi__barrier(sc_comm_t *comm, sc_err_t *err)
{
    return mpi__check(comm, MPI_Barrier(mpi__c(comm)), "MPI_Barrier", err);
}

const sc_backend_ops_t sc_backend_mpi_ops = {
    .name = "mpi",
    .open = mpi__open,
    .close = mpi__close,
    .version = mpi__version,
    .describe = mpi__describe,
    .alloc = mpi__alloc,
    .free = mpi__free,
    .to_host = sc_backend_host_copy,
    .from_host = sc_backend_host_copy,
    .fill_bytes = sc_backend_host_fill_bytes,
    .check_fill = sc_backend_host_check_fill,
    .check_count = sc_backend_host_check_count,
    .supports = mpi__supports,
    .split = mpi__split,
    .burn = &sc_host_burn,
    .compute_spin = mpi__compute_spin,
    .istart = mpi__istart,
    .isend = mpi__isend,
    .recv = mpi__recv,
    .iwait = mpi__iwait,
    .itest = mpi__itest,
    .sync = mpi__sync,
    .barrier = mpi__barrier,
    .coll =
        {
            [SC_COLL_allreduce] = mpi__allreduce,
            [SC_COLL_allgather] = mpi__allgather,
            [SC_COLL_reducescatter] = mpi__reducescatter,
            [SC_COLL_broadcast] = mpi__broadcast,
            [SC_COLL_reduce] = mpi__reduce,
            [SC_COLL_alltoall] = mpi__alltoall,
            [SC_COLL_sendrecv] = mpi__sendrecv,
            [SC_COLL_gather] = mpi__gather,
            [SC_COLL_scatter] = mpi__scatter,
        },
};
