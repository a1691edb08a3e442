/* sc_comm_base.c - what every backend's communicator shares (its common part, the host
 * versions of the memory and data-check ops, the MPI half of a split): apart from the registry
 * in sc_backend.c, so that the GPU plugin (sc_gpu_plugin.h) takes these without the list of
 * backends. */
#include "sc_backend.h"

#include "coll/sc_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sc_status_t sc_comm_init_base(sc_comm_t *comm, const sc_backend_ops_t *ops, const sc_rte_t *rte,
                              int rank, int size, const int *world_ranks, sc_err_t *err)
{
    comm->ops = ops;
    comm->rte = rte;
    comm->rank = rank;
    comm->size = size;
    comm->world_rank = malloc((size_t)size * sizeof(int));
    if (comm->world_rank == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for a communicator",
                          rte->rank, rte->host);
    for (int i = 0; i < size; i++)
        comm->world_rank[i] = world_ranks ? world_ranks[i] : i;
    return SC_OK;
}

void sc_comm_fini_base(sc_comm_t *comm)
{
    free(comm->world_rank);
    comm->world_rank = NULL;
}

sc_status_t sc_backend_host_copy(sc_comm_t *comm, void *dst, const void *src, size_t bytes,
                                 sc_err_t *err)
{
    (void)comm;
    (void)err;
    memcpy(dst, src, bytes);
    return SC_OK;
}

sc_status_t sc_backend_host_fill_bytes(sc_comm_t *comm, void *buf, int byte, size_t bytes,
                                       sc_err_t *err)
{
    (void)comm;
    (void)err;
    memset(buf, byte, bytes);
    return SC_OK;
}

sc_status_t sc_backend_host_check_fill(sc_comm_t *comm, void *buf, const sc_check_spec_t *spec,
                                       size_t count, sc_err_t *err)
{
    (void)err;
    sc_check_fill(spec, comm->rank, 0, buf, count);
    return SC_OK;
}

sc_status_t sc_backend_host_check_count(sc_comm_t *comm, const void *buf,
                                        const sc_check_spec_t *spec, const sc_src_t *src,
                                        size_t count, uint64_t *wrong, sc_err_t *err)
{
    (void)comm;
    (void)err;
    *wrong = sc_check_count_wrong(spec, src, buf, count);
    return SC_OK;
}

sc_status_t sc_comm_split_group(sc_comm_t *world, MPI_Comm control, bool in, int key,
                                sc_comm_t **data, MPI_Comm *ctl, sc_err_t *err)
{
    *data = NULL;
    *ctl = MPI_COMM_NULL;
    sc_status_t status = world->ops->split(world, in ? 0 : -1, key, data, err);
    /* the control split is collective too: every rank takes part even when the data one failed */
    int rc = MPI_Comm_split(control, in ? 0 : MPI_UNDEFINED, key, ctl);
    if (status == SC_OK && rc != MPI_SUCCESS)
        status = sc_rte_mpi_error(world->rte, rc, "MPI_Comm_split(control)", err);
    if (status != SC_OK)
        sc_comm_group_close(data, ctl);
    return status;
}

void sc_comm_group_close(sc_comm_t **data, MPI_Comm *ctl)
{
    if (*data != NULL)
        (*data)->ops->close(*data);
    *data = NULL;
    if (*ctl != MPI_COMM_NULL)
        MPI_Comm_free(ctl);
    *ctl = MPI_COMM_NULL;
}

sc_status_t sc_comm_split_mpi(const sc_comm_t *comm, MPI_Comm parent, int color, int key,
                              MPI_Comm *out, int **world_ranks, sc_err_t *err)
{
    const sc_rte_t *rte = comm->rte;
    *world_ranks = NULL;
    int rc = MPI_Comm_split(parent, color < 0 ? MPI_UNDEFINED : color, key, out);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(rte, rc, "MPI_Comm_split", err);
    if (*out == MPI_COMM_NULL)
        return SC_OK;
    int size = 0, me = comm->world_rank[comm->rank];
    MPI_Comm_size(*out, &size);
    *world_ranks = malloc((size_t)size * sizeof(int));
    rc =
        *world_ranks ? MPI_Allgather(&me, 1, MPI_INT, *world_ranks, 1, MPI_INT, *out) : MPI_SUCCESS;
    if (*world_ranks != NULL && rc == MPI_SUCCESS)
        return SC_OK;
    sc_status_t status =
        *world_ranks == NULL
            ? sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for a split of %d ranks",
                         rte->rank, rte->host, size)
            : sc_rte_mpi_error(rte, rc, "MPI_Allgather(split ranks)", err);
    free(*world_ranks);
    *world_ranks = NULL;
    MPI_Comm_free(out);
    return status;
}

/* The host path's burn, for the MPI and UCX backends' tables. */
static sc_status_t comm_base__burn_start(sc_comm_t *comm, const sc_burn_spec_t *spec, sc_err_t *err)
{
    char who[SC_HOST_MAX + 32];
    snprintf(who, sizeof(who), "rank %d (host %s)", comm->rte->rank, comm->rte->host);
    return sc_compute_host_burn_start(spec, who, err);
}

static sc_status_t comm_base__burn_stop(sc_comm_t *comm, sc_burn_result_t *out, sc_err_t *err)
{
    (void)comm, (void)err;
    sc_compute_host_burn_stop(out);
    return SC_OK;
}

const sc_burn_ops_t sc_host_burn = {comm_base__burn_start, comm_base__burn_stop};
