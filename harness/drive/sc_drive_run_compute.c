/* sc_drive_run_compute.c - what `run` reports of a step's products where they ran (compute.mode
 * flops on a GPU): every rank's TFLOP/s, the step's compute and communication each alone and
 * how much of the shorter the overlap hid, and the check that names a GPU slower than its
 * peers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive/sc_drive_run.h"
#include "judge/sc_peers.h"
#include "util/sc_defaults.h"

/* What each rank of a point sends its rank 0. */
typedef struct {
    double tflops, compute_alone_ms, comm_alone_ms;
    int world_rank;
    char device[128];
} run_compute__rank_t;

static void run_compute__name(const sc_rte_t *rte, const run_compute__rank_t *r, char *out,
                              size_t len)
{
    snprintf(out, len, "host %s, rank %d: %s", rte->hosts[r->world_rank], r->world_rank,
             r->device[0] ? r->device : "its CPU");
}

/* The point's figures from every rank's (rank 0 of the point). */
static void run_compute__summary(const sc_rte_t *rte, const run_compute__rank_t *all, int n,
                                 sc_point_t *p)
{
    sc_peer_t *peers = calloc((size_t)n, sizeof(*peers));
    int slowest = -1;
    double c = 0, m = 0;
    for (int i = 0; i < n; i++) {
        if (peers != NULL)
            peers[i].value = all[i].tflops;
        slowest = slowest < 0 || all[i].tflops < all[slowest].tflops ? i : slowest;
        c = all[i].compute_alone_ms > c ? all[i].compute_alone_ms : c;
        m = all[i].comm_alone_ms > m ? all[i].comm_alone_ms : m;
        for (int g = 0; g < p->ngrid; g++)
            if (p->grid[g].rank == all[i].world_rank) {
                p->grid[g].compute_tflops = all[i].tflops;
                snprintf(p->grid[g].device, sizeof(p->grid[g].device), "%s", all[i].device);
            }
    }
    double median = peers != NULL ? sc_peers_median(peers, n) : NAN;
    p->compute_tflops = n == 1 ? all[0].tflops : median;
    p->compute_tflops_min = all[slowest].tflops;
    p->slowest_compute_rank = all[slowest].world_rank;
    run_compute__name(rte, &all[slowest], p->slowest_compute_device,
                      sizeof(p->slowest_compute_device));
    p->compute_alone_ms = c;
    p->comm_alone_ms = m;
    double shorter = c < m ? c : m, hidden = c + m - p->step_time_ms;
    p->overlap_efficiency = shorter > 0 ? (hidden < 0         ? 0
                                           : hidden > shorter ? 1
                                                              : hidden / shorter)
                                        : SC_ABSENT;
    free(peers);
}

void sc_run_compute_combine(sc_run_t *run, const sc_step_t *step, sc_comm_t *pc, double alone_c,
                            double alone_m, MPI_Comm control, sc_point_t *p)
{
    if (!step->kernels)
        return;
    run_compute__rank_t mine = {
        .tflops = step->compute_us > 0 ? step->compute_flops / step->compute_us / 1e6 : NAN,
        .compute_alone_ms = alone_c,
        .comm_alone_ms = alone_m,
        .world_rank = run->rte->rank};
    snprintf(mine.device, sizeof(mine.device), "%s", pc->device);
    run_compute__rank_t *all = pc->rank == 0 ? calloc((size_t)pc->size, sizeof(*all)) : NULL;
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0, control);
    if (pc->rank == 0 && all != NULL)
        run_compute__summary(run->rte, all, pc->size, p);
    free(all);
}

void sc_run_compute_checks(const sc_run_t *run, sc_checks_t *checks)
{
    const sc_band_t band = {SC_DEFAULT_PEER_TOLERANCE, SC_DEFAULT_PEER_FAIL_TOLERANCE, false};
    const sc_points_t *points = &run->doc.points;
    for (size_t i = 0; i < points->n; i++) {
        const sc_point_t *p = &points->items[i];
        if (p->ngrid < 2 || isnan(p->compute_tflops))
            continue;
        sc_peer_t *peers = calloc((size_t)p->ngrid, sizeof(*peers));
        for (int g = 0; peers != NULL && g < p->ngrid; g++) {
            const sc_grid_row_t *row = &p->grid[g];
            run_compute__rank_t r = {.world_rank = row->rank};
            snprintf(r.device, sizeof(r.device), "%s", row->device);
            run_compute__name(run->rte, &r, peers[g].who, sizeof(peers[g].who));
            peers[g].value = row->compute_tflops;
        }
        char what[96];
        snprintf(what, sizeof(what), "products at %d GPUs x %d nodes, TFLOP/s", p->gpus, p->nodes);
        if (peers != NULL)
            sc_verdict_peers(checks, what, "compute_tflops", peers, p->ngrid, &band,
                             "peers (median)");
        free(peers);
    }
}
