#include "sc_backend.h"

#include "coll/sc_check.h"
#include "util/sc_memory.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In the order --backend auto tries them: GPU first. */
static const sc_backend_ops_t *const backend__backends[] = {
#if SC_HAVE_NCCL
    &sc_backend_nccl_ops,
#endif
    &sc_backend_rccl_ops,
    &sc_backend_hccl_ops,
    &sc_backend_mpi_ops,
#if SC_HAVE_UCX
    &sc_backend_ucx_ops, /* point-to-point only: never chosen by auto (mpi opens first) */
#endif
    NULL,
};

const sc_backend_ops_t *const *sc_backend_list(void)
{
    return backend__backends;
}

bool sc_backend_runs(const sc_backend_ops_t *ops, sc_coll_id_t id)
{
    return ops != NULL && id >= 0 && id < SC_COLL_COUNT && ops->coll[id] != NULL;
}

bool sc_comm_runs(const sc_comm_t *comm, sc_coll_id_t coll)
{
    return sc_backend_runs(comm->ops, coll);
}

bool sc_comm_supports(const sc_comm_t *comm, sc_coll_id_t coll, sc_dtype_t dtype, bool in_place)
{
    const sc_backend_ops_t *ops = comm->ops;
    return coll >= 0 && coll < SC_COLL_COUNT && ops->coll[coll] != NULL &&
           (ops->supports == NULL || ops->supports(comm, coll, dtype, in_place));
}

sc_status_t sc_comm_istart(sc_comm_t *comm, sc_coll_id_t coll, const sc_coll_args_t *args,
                           sc_err_t *err)
{
    if (comm->ops->istart == NULL)
        return sc_err_set(err, SC_ERR_UNSUPPORTED,
                          "backend %s has no non-blocking collectives (%s overlapped)",
                          comm->ops->name, sc_coll_id_name(coll));
    return comm->ops->istart(comm, coll, args, err);
}

sc_status_t sc_comm_coll(sc_comm_t *comm, sc_coll_id_t coll, const sc_coll_args_t *args,
                         sc_err_t *err)
{
    if (coll < 0 || coll >= SC_COLL_COUNT || comm->ops->coll[coll] == NULL)
        return sc_err_set(err, SC_ERR_UNSUPPORTED, "rank %d (host %s): backend %s has no %s",
                          comm->rte->rank, comm->rte->host, comm->ops->name, sc_coll_id_name(coll));
    return comm->ops->coll[coll](comm, args, err);
}

/* The ops tables of the backends opened in this process (a GPU plugin's own among them), for
 * sc_backend_abort_all. */
static struct {
    pthread_mutex_t lock;
    const sc_backend_ops_t *ops[8];
    int n;
} backend__opened = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void backend__remember_opened(const sc_backend_ops_t *ops)
{
    pthread_mutex_lock(&backend__opened.lock);
    bool known = false;
    for (int i = 0; i < backend__opened.n; i++)
        known = known || backend__opened.ops[i] == ops;
    if (!known &&
        (ops->abort_all != NULL || ops->device_progress != NULL || ops->job_moved != NULL) &&
        backend__opened.n < 8)
        backend__opened.ops[backend__opened.n++] = ops;
    pthread_mutex_unlock(&backend__opened.lock);
}

/* The backends opened in this process, into ops (8 at most): how many. */
static int backend__opened_ops(const sc_backend_ops_t *ops[8])
{
    pthread_mutex_lock(&backend__opened.lock);
    int n = backend__opened.n;
    memcpy(ops, backend__opened.ops, sizeof(*ops) * 8);
    pthread_mutex_unlock(&backend__opened.lock);
    return n;
}

void sc_backend_abort_all(bool owner)
{
    const sc_backend_ops_t *ops[8];
    int n = backend__opened_ops(ops);
    for (int i = 0; i < n; i++)
        if (ops[i]->abort_all != NULL)
            ops[i]->abort_all(owner);
}

void sc_backend_job_moved(void)
{
    const sc_backend_ops_t *ops[8];
    int n = backend__opened_ops(ops);
    for (int i = 0; i < n; i++)
        if (ops[i]->job_moved != NULL)
            ops[i]->job_moved();
}

int sc_backend_device_progress(sc_device_progress_t *out, int max)
{
    const sc_backend_ops_t *ops[8];
    int n = backend__opened_ops(ops);
    int got = 0;
    for (int i = 0; i < n && got < max; i++)
        if (ops[i]->device_progress != NULL)
            got += ops[i]->device_progress(out + got, max - got);
    return got;
}

sc_status_t sc_backend_open(const char *name, const sc_rte_t *rte, const sc_backend_opts_t *opts,
                            sc_comm_t **world, char *note, size_t note_len, sc_err_t *err)
{
    /* auto: the first compiled-in backend that opens; GPU backends come first in the list. */
    bool pick_first = strcmp(name, "auto") == 0;
    char names[128] = "";
    size_t used = 0, noted = 0;
    if (note_len > 0)
        note[0] = '\0';
    for (const sc_backend_ops_t *const *b = backend__backends; *b != NULL; b++) {
        used += (size_t)snprintf(names + used, sizeof(names) - used, "%s, ", (*b)->name);
        if (!pick_first && strcmp((*b)->name, name) != 0)
            continue;
        sc_backend_opts_t mine = *opts;
        mine.named = !pick_first;
        sc_status_t status = (*b)->open(rte, &mine, world, err);
        if (status == SC_OK)
            backend__remember_opened((*world)->ops);
        if (status == SC_OK || !pick_first || status != SC_ERR_UNSUPPORTED) {
            if (status == SC_OK && pick_first && noted < note_len)
                snprintf(note + noted, note_len - noted, "backend auto: using %s", (*b)->name);
            return status;
        }
        if (noted < note_len)
            noted += (size_t)snprintf(note + noted, note_len - noted, "%s not available (%s); ",
                                      (*b)->name, err ? err->msg : "");
    }
    if (pick_first)
        return sc_err_set(err, SC_ERR_UNSUPPORTED, "--backend auto: no backend could open here");
    return sc_err_set(err, SC_ERR_USAGE, "--backend: unknown backend '%s' (built in: %sauto)", name,
                      names);
}

/* This rank's host's need: the sum over its ranks (rte->size needs gathered). */
static sc_status_t backend__host_need(const sc_rte_t *rte, uint64_t need, uint64_t *host_need,
                                      int *ranks, sc_err_t *err)
{
    uint64_t *all = malloc((size_t)rte->size * sizeof(*all));
    if (all == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory", rte->rank, rte->host);
    int rc = MPI_Allgather(&need, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, rte->world);
    *host_need = 0;
    *ranks = 0;
    for (int r = 0; rc == MPI_SUCCESS && r < rte->size; r++)
        if (rte->host_index[r] == rte->host_index[rte->rank]) {
            *host_need += all[r];
            ++*ranks;
        }
    free(all);
    return rc == MPI_SUCCESS ? SC_OK : sc_rte_mpi_error(rte, rc, "MPI_Allgather(memory)", err);
}

/* "31.5 GiB": a figure read, where sc_size_format would keep every byte of a measured one. */
static const char *backend__gib(uint64_t bytes, char *buf, size_t len)
{
    double gib = (double)bytes / (double)(1ull << 30);
    if (gib >= 1.0)
        snprintf(buf, len, "%.1f GiB", gib);
    else
        snprintf(buf, len, "%.1f MiB", (double)bytes / (double)(1ull << 20));
    return buf;
}

sc_status_t sc_comm_check_memory(sc_comm_t *world, uint64_t need, const char *flag, sc_err_t *err)
{
    const sc_rte_t *rte = world->rte;
    uint64_t free_bytes = 0, total = need;
    int ranks = 1;
    char where[64] = "device memory", why[SC_ERR_MSG_MAX] = "";
    sc_status_t status = world->ops->memory != NULL
                             ? world->ops->memory(world, &free_bytes, err)
                             : backend__host_need(rte, need, &total, &ranks, err);
    if (status != SC_OK)
        return status;
    if (world->ops->memory == NULL)
        free_bytes = sc_memory_host_available(where, sizeof(where));
    sc_status_t mine = SC_OK;
    if (free_bytes > 0 && (double)total > 0.9 * (double)free_bytes) {
        char a[32], b[32], c[32];
        snprintf(why, sizeof(why),
                 "%s: the buffers need %s a rank, %s for the %d rank%s of host %s, more than "
                 "90 %% of the %s it has available (%s)",
                 flag, backend__gib(need, a, sizeof(a)), backend__gib(total, b, sizeof(b)), ranks,
                 ranks == 1 ? "" : "s", rte->host, backend__gib(free_bytes, c, sizeof(c)), where);
        mine = SC_ERR_USAGE;
    }
    return sc_rte_agree(rte, mine, why, sizeof(why), err);
}
