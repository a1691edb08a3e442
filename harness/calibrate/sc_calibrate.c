/* sc_calibrate.c - the measurements of `scalecheck calibrate` (sc_calibrate.h); the fit and the
 * file are in sc_calibrate_fit.c. */
#include "calibrate/sc_calibrate.h"
#include "comm/sc_comm_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/sc_sweep.h"
#include "plan/sc_plan.h"
#include "sc_config.h"
#include "util/sc_clock.h"
#include "util/sc_stats.h"

#define SC__LOOKS 5
/* Each look at the probe runs for ~25 ms of 8-byte all-reduces (at most SC__PROBE_MAX_ITERS),
 * longer than the scheduler's time slice, so that its mean sees a core another task takes (a
 * median of short iterations does not: most of them run while the rank holds the core). A
 * window of time, not a count: on a host that lost a core every all-reduce waits out a slice. */
#define SC__PROBE_WINDOW_S  0.025
#define SC__PROBE_MAX_ITERS 30000
#define SC__LADDER_LOOKS    5
#define SC__COPY_BYTES      ((size_t)16 << 20)

_Static_assert(SC__LADDER_LOOKS <= SC__LOOKS, "calibrate__median copies at most SC__LOOKS values");

static double calibrate__median(const double *v, size_t n)
{
    double copy[SC__LOOKS];
    memcpy(copy, v, n * sizeof(double));
    sc_stats_t st;
    sc_stats_compute(copy, n, &st);
    return st.median;
}

/* Per size, the median of the looks' times (looks[k] holds look k's rows) into rows[0]: a look
 * disturbed as a whole is outvoted, and so is one that caught a size in a moment faster than
 * this host's usual state (the best of the looks would hold every later run to that moment). */
static void calibrate__median_of_looks(sc_case_rows_t *looks, int nlooks)
{
    for (size_t i = 0; i < looks[0].n; i++) {
        double t[SC__LADDER_LOOKS] = {0};
        int n = 0;
        for (int k = 0; k < nlooks; k++)
            if (i < looks[k].n)
                t[n++] = looks[k].items[i].time_us;
        sc_case_row_t *row = &looks[0].items[i];
        double median = calibrate__median(t, (size_t)n);
        row->algbw_GBps *= row->time_us / median;
        row->busbw_GBps *= row->time_us / median;
        row->time_us = median;
    }
}

/* The ladder, SC__LADDER_LOOKS times, on the ranks that pass `in` (world rank 0 among them),
 * the others waiting quietly; the fit on rank 0. */
static sc_status_t calibrate__ladder(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd, bool in,
                                     bool tree, const sc_calibrate_opts_t *o,
                                     sc_calibrated_path_t *path, sc_err_t *err)
{
    const sc_rte_t *rte = world->rte;
    sc_comm_t *sub = NULL;
    MPI_Comm ctl = MPI_COMM_NULL;
    sc_case_rows_t looks[SC__LADDER_LOOKS] = {{0}};
    sc_watchdog_arm(wd, "calibrate (splitting)", world->world_rank, world->size);
    sc_status_t status = sc_comm_split_group(world, control, in, rte->rank, &sub, &ctl, err);
    for (int k = 0; k < SC__LADDER_LOOKS && status == SC_OK && sub != NULL; k++) {
        sc_watchdog_arm(wd, "calibrate (all-reduce ladder)", sub->world_rank, sub->size);
        status = sc_sweep_ladder(sub, ctl, wd, 4, o->max_bytes, 2, o->iters, &looks[k], err);
        path->ranks = sub->size;
    }
    sc_comm_group_close(&sub, &ctl);
    sc_watchdog_disarm(wd);
    if (status == SC_OK)
        status = sc_rte_quiet_barrier(rte, control, err);
    if (status == SC_OK && rte->rank == 0) {
        calibrate__median_of_looks(looks, SC__LADDER_LOOKS);
        path->rows = looks[0];
        looks[0] = (sc_case_rows_t){0};
        sc_calibrate_fit(path->rows.items, path->rows.n, path->ranks,
                         tree ? sc_coll_tree_steps(path->ranks)
                              : sc_coll_ring_steps(&sc_coll_allreduce, path->ranks),
                         &path->fit, &path->worst_error);
    }
    for (int k = 0; k < SC__LADDER_LOOKS; k++)
        sc_list_free(&looks[k]);
    return status;
}

/* One timed look at a started all-reduce beside `spin_us` of compute (0: blocking), us. */
static sc_status_t calibrate__timed(sc_comm_t *c, const sc_coll_args_t *args, double spin_us,
                                    double *us, sc_err_t *err)
{
    sc_status_t status = sc_comm_barrier(c, err);
    uint64_t t0 = sc_clock_ns();
    if (status == SC_OK && spin_us <= 0)
        status = sc_comm_coll(c, SC_COLL_allreduce, args, err);
    if (status == SC_OK && spin_us > 0) {
        double spun;
        status = sc_comm_istart(c, SC_COLL_allreduce, args, err);
        if (status == SC_OK)
            status = sc_comm_compute_spin(c, spin_us, &spun, err);
        if (status == SC_OK)
            status = sc_comm_iwait(c, err);
    }
    if (status == SC_OK)
        status = sc_comm_sync(c, err);
    *us = (double)(sc_clock_ns() - t0) * 1e-3;
    return status;
}

/* How much of a started all-reduce moves on while the rank computes: blocking time d, then
 * started beside d us of compute. Full overlap takes d, none 2d: overlap = 2 - both/d. */
static sc_status_t calibrate__overlap(sc_comm_t *c, uint64_t bytes, double *overlap, sc_err_t *err)
{
    size_t count = bytes / sizeof(float);
    void *send = sc_comm_alloc(c, count * sizeof(float)), *recv = sc_comm_alloc(c, count * 4);
    sc_status_t status = send && recv ? SC_OK
                                      : sc_err_set(err, SC_ERR_NOMEM,
                                                   "calibrate: no memory for "
                                                   "two %llu-byte buffers",
                                                   (unsigned long long)bytes);
    sc_coll_args_t a = {.sendbuf = send,
                        .recvbuf = recv,
                        .count = count,
                        .dtype = SC_DTYPE_float,
                        .op = SC_REDOP_sum};
    double alone[SC__LOOKS] = {0}, beside[SC__LOOKS] = {0}, warm;
    for (int i = 0; i < 2 && status == SC_OK; i++)
        status = calibrate__timed(c, &a, 0, &warm, err);
    for (int i = 0; i < SC__LOOKS && status == SC_OK; i++)
        status = calibrate__timed(c, &a, 0, &alone[i], err);
    double d = status == SC_OK ? calibrate__median(alone, SC__LOOKS) : 0;
    for (int i = 0; i < SC__LOOKS && status == SC_OK; i++)
        status = calibrate__timed(c, &a, d, &beside[i], err);
    if (status == SC_OK) {
        double o = 2.0 - calibrate__median(beside, SC__LOOKS) / d;
        *overlap = o < 0 ? 0 : o > 1 ? 1 : o;
    }
    if (send)
        sc_comm_free(c, send);
    if (recv)
        sc_comm_free(c, recv);
    return status;
}

/* The best of a few 16 MiB copies in host memory, GB/s. */
static double calibrate__memory_GBps(void)
{
    char *a = malloc(SC__COPY_BYTES), *b = malloc(SC__COPY_BYTES);
    double best = 0;
    if (a != NULL && b != NULL) {
        memset(a, 1, SC__COPY_BYTES);
        memset(b, 2, SC__COPY_BYTES);
        for (int i = 0; i < SC__LOOKS; i++) {
            uint64_t t0 = sc_clock_ns();
            memcpy(b, a, SC__COPY_BYTES);
            double s = (double)(sc_clock_ns() - t0) * 1e-9;
            double GBps = (double)SC__COPY_BYTES / s / 1e9;
            best = GBps > best ? GBps : best;
            a[i] = b[SC__COPY_BYTES - 1 - (size_t)i]; /* the copy is used: not optimised away */
        }
    }
    free(a);
    free(b);
    return best;
}

sc_status_t sc_probe(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd, double *us,
                     double *spread, sc_err_t *err)
{
    sc_engine_opts_t eo;
    sc_engine_opts_default(&eo);
    eo.iters = 0; /* auto, stopped by the window alone: no confidence target is met below 0 */
    eo.target_ci = -1;
    eo.size_budget_s = SC__PROBE_WINDOW_S;
    eo.max_iters = SC__PROBE_MAX_ITERS;
    eo.warmup = 3;
    eo.check_iters = 0;
    sc_engine_t *eng = NULL;
    sc_watchdog_arm(wd, "reference probe", world->world_rank, world->size);
    sc_status_t status = sc_engine_create(world, control, &eo, wd, &eng, err);
    sc_case_t c = {.coll = &sc_coll_allreduce, .dtype = SC_DTYPE_float, .op = SC_REDOP_sum};
    if (status == SC_OK && !sc_engine_shape_case(eng, &c, 8))
        status = sc_err_set(err, SC_ERR_RUNTIME, "probe: cannot shape an 8-byte all-reduce");
    double looks[SC__LOOKS] = {0};
    for (int i = 0; i < SC__LOOKS && status == SC_OK; i++) {
        sc_case_result_t r;
        status = sc_engine_run_case(eng, &c, &r, err);
        looks[i] = r.time_us.mean;
    }
    sc_engine_destroy(eng);
    sc_watchdog_disarm(wd);
    if (status == SC_OK) {
        double lo = looks[0], hi = looks[0];
        for (int i = 1; i < SC__LOOKS; i++) {
            lo = looks[i] < lo ? looks[i] : lo;
            hi = looks[i] > hi ? looks[i] : hi;
        }
        *us = calibrate__median(looks, SC__LOOKS);
        *spread = lo > 0 ? hi / lo - 1.0 : 0.0;
    }
    return status;
}

/* Timed passes over the layer's products, after one untimed (kernels load on first use). */
#define CALIBRATE__COMPUTE_PASSES 3

/* This rank's TFLOP/s on a layer's forward and backward products of w (its own layout's tp). */
static sc_status_t calibrate__products(sc_comm_t *c, const sc_workload_t *w, double scale,
                                       double *tflops, sc_err_t *err)
{
    sc_layout_t l = {
        .dp = 1, .tp = (int)w->tp, .pp = 1, .micro_batches = 1, .micro_batch = w->micro_batch};
    sc_gemm_set_t sets[SC_PHASE_COUNT];
    sc_plan_gemm_sets(w, &l, sets);
    double us = 0, flops = 0;
    sc_status_t status = SC_OK;
    for (int pass = 0; pass <= CALIBRATE__COMPUTE_PASSES && status == SC_OK; pass++)
        for (int ph = SC_PHASE_FORWARD; ph <= SC_PHASE_BACKWARD && status == SC_OK; ph++) {
            double took = 0, ran = 0;
            status = sc_comm_gemm_set(c, &sets[ph], scale, &took, &ran, err);
            us += pass > 0 ? took : 0;
            flops += pass > 0 ? ran : 0;
        }
    *tflops = us > 0 ? flops / us / 1e6 : 0;
    return status;
}

/* Every GPU times the workload's products; the median and the least on rank 0. */
static sc_status_t calibrate__compute(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd,
                                      const sc_calibrate_opts_t *o, sc_calibration_t *out,
                                      sc_err_t *err)
{
    double mine = 0;
    sc_watchdog_arm(wd, "calibrate (the workload's products)", world->world_rank, world->size);
    sc_status_t status = calibrate__products(world, o->w, o->compute_scale, &mine, err);
    sc_watchdog_disarm(wd);
    int n = world->size;
    double *all = world->rank == 0 ? calloc((size_t)n, sizeof(double)) : NULL;
    MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, control);
    if (status == SC_OK && all != NULL) {
        snprintf(out->compute_workload, sizeof(out->compute_workload), "%s", o->w->name);
        out->compute_scale = o->compute_scale;
        out->compute_gpus = n;
        out->compute_tflops_min = all[0];
        for (int i = 1; i < n; i++)
            out->compute_tflops_min =
                all[i] < out->compute_tflops_min ? all[i] : out->compute_tflops_min;
        sc_stats_t st; /* sorts all: after the least is taken */
        sc_stats_compute(all, (size_t)n, &st);
        out->compute_tflops = st.median;
    }
    free(all);
    return status;
}

sc_status_t sc_calibrate_measure(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd,
                                 const sc_calibrate_opts_t *o, sc_calibration_t *out, sc_err_t *err)
{
    const sc_rte_t *rte = world->rte;
    memset(out, 0, sizeof(*out));
    out->overlap = -1;
    /* inside one host: the ranks of rank 0's host */
    bool on_first_host = rte->host_index[rte->rank] == rte->host_index[0];
    sc_status_t status = SC_OK;
    if (rte->local_size > 1)
        status = calibrate__ladder(world, control, wd, on_first_host, false, o, &out->intra, err);
    /* the probe right after the ladder: the reference for the same state of the machine */
    if (status == SC_OK)
        status = sc_probe(world, control, wd, &out->probe_us, &out->probe_spread, err);
    snprintf(out->intra.where, sizeof(out->intra.where), "%d ranks on %s", out->intra.ranks,
             rte->hosts[0]);
    /* between hosts: one rank each */
    if (status == SC_OK && rte->nhosts > 1)
        status =
            calibrate__ladder(world, control, wd, rte->local_rank == 0, true, o, &out->inter, err);
    snprintf(out->inter.where, sizeof(out->inter.where), "%d hosts, one rank each",
             out->inter.ranks);
    /* overlap and memory: on the ranks of one host, where the host path computes */
    sc_comm_t *host = NULL;
    if (status == SC_OK && rte->local_size > 1) {
        sc_watchdog_arm(wd, "calibrate (overlap)", world->world_rank, world->size);
        status = sc_comm_split(world, on_first_host ? 0 : -1, rte->rank, &host, err);
        if (status == SC_OK && host != NULL)
            status = calibrate__overlap(host, o->max_bytes, &out->overlap, err);
        if (host != NULL)
            sc_comm_close(host);
        sc_watchdog_disarm(wd);
        if (status == SC_OK)
            status = sc_rte_quiet_barrier(rte, control, err);
    }
    if (status == SC_OK && o->w != NULL && o->w->compute_mode == SC_COMPUTE_FLOPS &&
        sc_comm_has_gemm(world))
        status = calibrate__compute(world, control, wd, o, out, err);
    /* GPU backends keep buffers in device memory, which a host copy says nothing about */
    if (status == SC_OK && rte->rank == 0 && !sc_comm_on_gpu(world))
        out->memory_GBps = calibrate__memory_GBps();
    return status;
}

void sc_calibration_free(sc_calibration_t *c)
{
    sc_list_free(&c->intra.rows);
    sc_list_free(&c->inter.rows);
}

void sc_calibrate_by(sc_comm_t *world, char *by, size_t len)
{
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    const sc_rte_t *rte = world->rte;
    snprintf(by, len, "scalecheck %s calibrate: %d ranks on %d host%s (%s), %s, %s", SC_VERSION,
             rte->size, rte->nhosts, rte->nhosts == 1 ? "" : "s", rte->hosts[0],
             sc_comm_version(world), stamp);
    for (char *c = by; *c; c++) /* the line goes between double quotes in YAML */
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
            *c = ' ';
}
