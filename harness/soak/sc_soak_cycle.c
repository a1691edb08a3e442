/* sc_soak_cycle.c - a soak cycle: telemetry started on every host's first rank, the sweep, the
 * workload's steps, the pair check, then the telemetry stopped and gathered to rank 0. */
#include "soak/sc_soak_cycle.h"
#include "comm/sc_comm_ops.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/sc_sweep.h"
#include "patterns/sc_pattern.h"
#include "util/sc_clock.h"
#include "util/sc_stats.h"

/* The all-reduce sweep; rank 0's busbw per size into out. */
static sc_status_t soak_cycle__sweep(const sc_soak_ctx_t *x, sc_soak_cycle_t *out, sc_err_t *err)
{
    sc_session_t *ses = x->ses;
    sc_case_rows_t rows = {0};
    sc_status_t status = sc_sweep_ladder(ses->world, ses->rte->world, ses->wd, x->sweep_min,
                                         x->sweep_max, 4, x->sweep_iters, &rows, err);
    for (size_t i = 0; status == SC_OK && i < rows.n && out->nsizes < SC_SOAK_SIZES; i++) {
        out->size_bytes[out->nsizes] = rows.items[i].size_bytes;
        out->busbw_GBps[out->nsizes++] = rows.items[i].busbw_GBps;
    }
    sc_list_free(&rows);
    return status;
}

/* The timed steps on this rank, after the warm-up: each one's time into step_ms. */
static sc_status_t soak_cycle__steps(const sc_soak_ctx_t *x, sc_step_t *step, double *step_ms,
                                     sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (int i = 0; i < x->warmup + x->steps && status == SC_OK; i++) {
        uint64_t t0 = sc_clock_ns();
        status = sc_step_run(step, err);
        if (i >= x->warmup)
            step_ms[i - x->warmup] = (double)(sc_clock_ns() - t0) * 1e-6;
        sc_watchdog_tick(sc_watchdog_progress(x->ses->wd));
    }
    return status;
}

/* The workload's steps on every rank: the median over the steps of the slowest rank's time. */
static sc_status_t soak_cycle__step(const sc_soak_ctx_t *x, double *median_ms, sc_err_t *err)
{
    sc_comm_t *world = x->ses->world;
    sc_step_ready_t r;
    sc_status_t status = sc_step_prepare(world, x->w, x->bytes_scale, x->compute_scale, &r, err);
    if (status != SC_OK)
        return status;
    double *step_ms = calloc((size_t)x->steps, sizeof(double));
    if (step_ms == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for step times",
                            x->ses->rte->rank, x->ses->rte->host);
    if (status == SC_OK) { /* armed: a step waits on every other rank (a cut link hung here) */
        sc_watchdog_arm(x->ses->wd, "soak, the workload's steps", world->world_rank, world->size);
        status = soak_cycle__steps(x, &r.step, step_ms, err);
        sc_watchdog_disarm(x->ses->wd);
    }
    if (status == SC_OK) { /* a step lasts as long as its slowest rank */
        sc_watchdog_arm(x->ses->wd, "soak, the step times", world->world_rank, world->size);
        MPI_Allreduce(MPI_IN_PLACE, step_ms, x->steps, MPI_DOUBLE, MPI_MAX, x->ses->rte->world);
        sc_watchdog_disarm(x->ses->wd);
        sc_stats_t st;
        sc_stats_compute(step_ms, (size_t)x->steps, &st);
        *median_ms = st.median;
    }
    free(step_ms);
    sc_step_release(&r);
    return status;
}

/* The quick pair check between hosts: its matrix into m, the slowest pair into out. */
static sc_status_t soak_cycle__pairs(const sc_soak_ctx_t *x, sc_soak_cycle_t *out,
                                     sc_pairs_matrix_t *m, sc_err_t *err)
{
    if (!x->pair_check || x->pc == NULL)
        return SC_OK;
    sc_pairs_ctx_t ctx = {
        .rte = x->ses->rte, .pc = x->pc, .control = x->pcontrol, .wd = x->ses->wd};
    sc_status_t status = sc_pairs_measure(&ctx, &x->pairs, 0, m, err);
    int n = m->n;
    for (int a = 0; status == SC_OK && m->looks != NULL && a < n; a++)
        for (int b = 0; b < n; b++)
            if (a != b && m->looks[a * n + b] > 0 && !(m->uni[a * n + b] >= out->pair_min_GBps))
                out->pair_min_GBps = m->uni[a * n + b];
    out->pairs_measured = m->measured;
    return status;
}

/* Every host's health over the cycle to rank 0 (collective). */
static void soak_cycle__health(const sc_soak_ctx_t *x, sc_telemetry_t *t, sc_soak_cycle_t *out)
{
    sc_health_t mine = {0}, *hosts = NULL;
    int nhosts = 0;
    if (t != NULL)
        sc_telemetry_finish(t, &mine);
    sc_watchdog_arm(x->ses->wd, "soak, gathering the hosts' health", x->ses->world->world_rank,
                    x->ses->world->size);
    sc_health_gather(x->ses->rte, t != NULL ? &mine : NULL, &hosts, &nhosts);
    sc_watchdog_disarm(x->ses->wd);
    out->hosts = hosts != NULL ? calloc((size_t)nhosts + 1, sizeof(sc_soak_host_t)) : NULL;
    for (int k = 0; out->hosts != NULL && k < nhosts; k++)
        sc_soak_host_from(&hosts[k], &out->hosts[out->nhosts++]);
    sc_health_free(hosts, nhosts);
}

/* The rest of the cycle's time, sleeping while the hosts' health is sampled (no rank waits on
 * another here: the watchdog is not armed). */
static void soak_cycle__rest(const sc_soak_ctx_t *x, uint64_t t0)
{
    double left = x->cycle_s - (double)(sc_clock_ns() - t0) * 1e-9;
    while (left > 0) {
        double nap = left < 0.5 ? left : 0.5;
        nanosleep(&(struct timespec){(time_t)nap, (long)((nap - (time_t)nap) * 1e9)}, NULL);
        left = x->cycle_s - (double)(sc_clock_ns() - t0) * 1e-9;
    }
}

/* The burn stopped, and the least TFLOP/s any rank's reached to rank 0 (collective). */
static sc_status_t soak_cycle__burn_stop(const sc_soak_ctx_t *x, sc_soak_cycle_t *out,
                                         sc_err_t *err)
{
    sc_burn_result_t r;
    sc_status_t status = sc_comm_burn_stop(x->ses->world, &r, err);
    double least = status == SC_OK ? r.tflops : 0;
    MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_DOUBLE, MPI_MIN, x->ses->rte->world);
    out->burn_tflops = least;
    return status;
}

sc_status_t sc_soak_cycle_run(const sc_soak_ctx_t *x, sc_soak_cycle_t *out, sc_pairs_matrix_t *m,
                              sc_err_t *err)
{
    const sc_rte_t *rte = x->ses->rte;
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(out->start_utc, sizeof(out->start_utc), "%Y-%m-%dT%H:%M:%SZ", &utc);
    uint64_t t0 = sc_clock_ns();
    sc_telemetry_t *t = rte->local_rank == 0 ? sc_telemetry_start(x->telemetry_s, rte->host) : NULL;
    sc_status_t status = x->burn ? sc_comm_burn_start(x->ses->world, &x->burn_spec, err) : SC_OK;
    bool burning = status == SC_OK && x->burn;
    if (status == SC_OK)
        status = soak_cycle__sweep(x, out, err);
    if (status == SC_OK)
        status = soak_cycle__step(x, &out->step_ms, err);
    if (status == SC_OK)
        status = soak_cycle__pairs(x, out, m, err);
    if (status == SC_OK)
        soak_cycle__rest(x, t0);
    if (burning && status == SC_OK) {
        status = soak_cycle__burn_stop(x, out, err);
    } else if (burning) { /* a fault stops it too, alone: no thread outlives the cycle */
        sc_burn_result_t ignored;
        sc_err_t stop_err;
        sc_comm_burn_stop(x->ses->world, &ignored, &stop_err);
    }
    if (status == SC_OK) {
        soak_cycle__health(x, t, out);
    } else if (t != NULL) { /* a fault: the sampler stops, nothing is gathered */
        sc_health_t ignored;
        sc_telemetry_finish(t, &ignored);
        sc_health_clear(&ignored);
    }
    out->wall_s = (double)(sc_clock_ns() - t0) * 1e-9;
    return status;
}
