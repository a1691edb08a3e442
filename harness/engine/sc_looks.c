/* sc_looks.c - the look-again loop (sc_looks.h). */
#include "sc_looks.h"

#include <stdlib.h>
#include <string.h>

sc_status_t sc_looks_run(const sc_looks_t *l, sc_watchdog_t *wd, const sc_rte_t *rte,
                         MPI_Comm control, sc_err_t *err)
{
    if (l->n <= 0 || l->max_looks <= 1)
        return SC_OK;
    unsigned char *again = calloc((size_t)l->n, 1);
    if (again == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "no memory to choose %d figures to look at again",
                          l->n);
    sc_status_t status = SC_OK;
    for (int look = 1; look < l->max_looks && status == SC_OK; look++) {
        memset(again, 0, (size_t)l->n);
        if (rte->rank == 0)
            l->off(l->ctx, again);
        status = sc_watchdog_bcast(wd, rte, control, l->what, again, l->n, err);
        bool any = false;
        for (int i = 0; i < l->n && status == SC_OK; i++)
            if (again[i]) {
                any = true;
                status = l->again(l->ctx, i, err);
            }
        if (!any)
            break;
    }
    free(again);
    return status;
}
