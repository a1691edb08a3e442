#include "sc_backend.h"

#include "coll/sc_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In the order --backend auto tries them: GPU first. */
static const sc_backend_ops_t *const sc__backends[] = {
#if SC_HAVE_NCCL
    &sc_backend_nccl_ops,
#endif
    &sc_backend_mpi_ops,
#if SC_HAVE_UCX
    &sc_backend_ucx_ops, /* point-to-point only: never chosen by auto (mpi opens first) */
#endif
    NULL,
};

const sc_backend_ops_t *const *sc_backend_list(void)
{
    return sc__backends;
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

sc_status_t sc_backend_open(const char *name, const sc_rte_t *rte, const sc_backend_opts_t *opts,
                            sc_comm_t **world, char *note, size_t note_len, sc_err_t *err)
{
    /* auto: the first compiled-in backend that opens; GPU backends come first in the list. */
    bool pick_first = strcmp(name, "auto") == 0;
    char names[128] = "";
    size_t used = 0, noted = 0;
    if (note_len > 0)
        note[0] = '\0';
    for (const sc_backend_ops_t *const *b = sc__backends; *b != NULL; b++) {
        used += (size_t)snprintf(names + used, sizeof(names) - used, "%s, ", (*b)->name);
        if (!pick_first && strcmp((*b)->name, name) != 0)
            continue;
        sc_backend_opts_t mine = *opts;
        mine.named = !pick_first;
        sc_status_t status = (*b)->open(rte, &mine, world, err);
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
