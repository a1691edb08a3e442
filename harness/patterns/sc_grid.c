/* sc_grid.c - the (dp, pp, tp) grid: TP innermost (neighbouring ranks, inside a node), then PP,
 * then DP; each group is its own communicator, made by splitting the point's communicator. */
#include "sc_pattern.h"
#include "comm/sc_comm_ops.h"

#include <string.h>

/* Splits comm by color (key: position in the group); keeps the result only for groups of more
 * than one rank. Every rank calls it for every group kind, so the splits stay collective. */
static sc_status_t grid__group(sc_comm_t *comm, int size, int color, int key, sc_comm_t **out,
                               sc_err_t *err)
{
    *out = NULL;
    if (size <= 1)
        return SC_OK;
    return sc_comm_split(comm, color, key, out, err);
}

sc_status_t sc_grid_create(sc_comm_t *comm, const sc_layout_t *layout, sc_grid_t *grid,
                           sc_err_t *err)
{
    memset(grid, 0, sizeof(*grid));
    grid->layout = *layout;
    int r = comm->rank, tp = layout->tp, pp = layout->pp;
    grid->t = r % tp;
    grid->p = (r / tp) % pp;
    grid->d = r / (tp * pp);
    sc_status_t status = grid__group(comm, tp, grid->d * pp + grid->p, grid->t, &grid->tp, err);
    if (status == SC_OK)
        status = grid__group(comm, pp, grid->d * tp + grid->t, grid->p, &grid->pp, err);
    if (status == SC_OK)
        status = grid__group(comm, layout->dp, grid->p * tp + grid->t, grid->d, &grid->dp, err);
    if (status != SC_OK)
        sc_grid_destroy(grid);
    return status;
}

void sc_grid_destroy(sc_grid_t *grid)
{
    sc_comm_t *groups[] = {grid->tp, grid->pp, grid->dp};
    for (size_t i = 0; i < 3; i++)
        if (groups[i] != NULL)
            sc_comm_close(groups[i]);
    grid->tp = grid->pp = grid->dp = NULL;
}
