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

/* Divides count elements of buf by the communicator size, in the element type (avg). */
static void mpi__divide(sc_comm_t *comm, sc_dtype_t dtype, void *buf, size_t count)
{
    switch (dtype) {
#define MPI__DIVIDE(n, ctype, fl, sg, mx)                                                          \
    case SC_DTYPE_##n:                                                                             \
        for (size_t i = 0; i < count; i++)                                                         \
            ((ctype *)buf)[i] = (ctype)(((ctype *)buf)[i] / (ctype)comm->size);                    \
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
        mpi__divide(comm, a->dtype, a->recvbuf, a->count);
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
        mpi__divide(comm, a->dtype, (char *)a->recvbuf + offset, a->count);
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
        mpi__divide(comm, a->dtype, a->recvbuf, a->count);
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

static sc_status_t mpi__open(const sc_rte_t *rte, sc_comm_t **world, sc_err_t *err)
{
    mpi__comm_t *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for the MPI backend",
                          rte->rank, rte->host);
    sc_status_t status =
        sc_comm_init_base(&c->base, &sc_backend_mpi_ops, rte, rte->rank, rte->size, err);
    if (status != SC_OK) {
        free(c);
        return status;
    }
    int rc = MPI_Comm_dup(rte->world, &c->comm);
    if (rc != MPI_SUCCESS) {
        sc_comm_fini_base(&c->base);
        free(c);
        return sc_rte_mpi_error(rte, rc, "MPI_Comm_dup", err);
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    snprintf(c->version, sizeof(c->version), "%s", rte->mpi_version);
    *world = &c->base;
    return SC_OK;
}

static void mpi__close(sc_comm_t *comm)
{
    mpi__comm_t *c = (mpi__comm_t *)comm;
    MPI_Comm_free(&c->comm);
    sc_comm_fini_base(comm);
    free(c);
}

static const char *mpi__version(sc_comm_t *comm)
{
    return ((mpi__comm_t *)comm)->version;
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

static sc_status_t mpi__copy(sc_comm_t *comm, void *dst, const void *src, size_t bytes,
                             sc_err_t *err)
{
    (void)comm;
    (void)err;
    memcpy(dst, src, bytes);
    return SC_OK;
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
    .alloc = mpi__alloc,
    .free = mpi__free,
    .to_host = mpi__copy,
    .from_host = mpi__copy,
    .sync = mpi__sync,
    .barrier = mpi__barrier,
    .allreduce = mpi__allreduce,
    .allgather = mpi__allgather,
    .reducescatter = mpi__reducescatter,
    .broadcast = mpi__broadcast,
    .reduce = mpi__reduce,
    .alltoall = mpi__alltoall,
    .sendrecv = mpi__sendrecv,
    .gather = mpi__gather,
    .scatter = mpi__scatter,
};
