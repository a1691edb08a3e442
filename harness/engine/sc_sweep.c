/* sc_sweep.c - a measured case as a record; `run --sweep`: the all-reduce bandwidth sweep
 * beside the training step. */
#include "sc_sweep.h"

#include <stdio.h>

#include "util/sc_defaults.h"

/* The rank that held the others up (rank 0's view), into the row. */
static void sweep__straggler(sc_case_row_t *row, const sc_case_result_t *r)
{
    const sc_straggler_t *s = &r->straggler;
    /* named only when it came measurably late: a healthy run's ranks differ by noise */
    if (r->straggler_rank < 0 || s->index < 0 ||
        !(s->lag >= SC_DEFAULT_STRAGGLER_MIN_LAG * row->time_us && s->lag >= 1.0))
        return;
    snprintf(row->slowest, sizeof(row->slowest), "rank %d (host %s)", r->straggler_rank,
             r->straggler_host);
    row->slowest_lag_us = s->lag;
    double without = row->time_us - s->cost;
    row->time_without_slowest_us = without > 0 ? without : 0;
}

void sc_case_row_fill(const sc_case_t *c, const sc_case_result_t *r, int nranks, sc_case_row_t *row)
{
    const sc_stats_t *t = &r->time_us;
    *row = (sc_case_row_t){
        .size_bytes = c->size_bytes,
        .count = c->size_bytes / sc_dtype_size(c->dtype),
        .count_per_rank = c->count,
        .root = c->coll->has_root ? c->root : -1,
        .in_place = c->in_place,
        .time_us = t->median,
        .time_us_min = t->min,
        .time_us_max = t->max,
        .time_us_p99 = t->p99,
        .time_us_mean = t->mean,
        .cv = t->cv,
        .ci95_lo_us = t->ci_lo,
        .ci95_hi_us = t->ci_hi,
        .ci95_rel = t->ci_rel,
        .algbw_GBps = r->algbw_GBps,
        .busbw_GBps = r->busbw_GBps,
        .busbw_factor = c->coll->busbw_factor(nranks),
        .checked = r->checked,
        .wrong = r->wrong,
        .iterations = r->iterations,
        .host_time_us = r->host_time_us.median,
        .host_time_us_p99 = r->host_time_us.p99,
        .expected_time_us = SC_ABSENT,
        .expected_busbw_GBps = SC_ABSENT,
        .looks = 1,
        .slowest_look_us = SC_ABSENT,
        .cycle = 1,
        .slowest_lag_us = SC_ABSENT,
        .time_without_slowest_us = SC_ABSENT,
    };
    snprintf(row->collective, sizeof(row->collective), "%s", c->coll->name);
    snprintf(row->dtype, sizeof(row->dtype), "%s", sc_dtype_name(c->dtype));
    snprintf(row->op, sizeof(row->op), "%s", c->coll->has_op ? sc_redop_name(c->op) : "none");
    snprintf(row->timer, sizeof(row->timer), "%s", r->device_timed ? "device" : "host");
    snprintf(row->nccl_algo, sizeof(row->nccl_algo), "%s", r->choice.algo);
    snprintf(row->nccl_proto, sizeof(row->nccl_proto), "%s", r->choice.proto);
    row->nccl_channels = r->choice.channels;
    sweep__straggler(row, r);
}

sc_status_t sc_sweep_ladder(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd,
                            uint64_t min_bytes, uint64_t max_bytes, unsigned factor, int iters,
                            sc_case_rows_t *rows, sc_err_t *err)
{
    sc_engine_opts_t eo;
    sc_engine_opts_default(&eo);
    eo.iters = iters;
    eo.warmup = 3;
    sc_engine_t *eng = NULL;
    sc_status_t status = sc_engine_create(world, control, &eo, wd, &eng, err);
    for (uint64_t size = min_bytes; status == SC_OK && size <= max_bytes; size *= factor) {
        sc_case_t c = {.coll = &sc_coll_allreduce, .dtype = SC_DTYPE_float, .op = SC_REDOP_sum};
        if (!sc_engine_shape_case(eng, &c, size))
            continue;
        sc_case_result_t r;
        status = sc_engine_run_case(eng, &c, &r, err);
        sc_case_row_t *row = status == SC_OK ? SC_LIST_PUSH(rows) : NULL;
        if (row != NULL)
            sc_case_row_fill(&c, &r, world->size, row);
    }
    sc_engine_destroy(eng);
    return status;
}

sc_status_t sc_run_sweep(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd, uint64_t max_bytes,
                         sc_case_rows_t *rows, sc_err_t *err)
{
    return sc_sweep_ladder(world, control, wd, 4, max_bytes, 4, SC_SWEEP_ITERS, rows, err);
}

sc_status_t sc_sweep_again(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd,
                           sc_case_row_t *row, sc_err_t *err)
{
    sc_case_rows_t look = {0};
    sc_watchdog_arm(wd, "all-reduce sweep (another look)", world->world_rank, world->size);
    sc_status_t status = sc_sweep_ladder(world, control, wd, row->size_bytes, row->size_bytes, 2,
                                         SC_SWEEP_ITERS, &look, err);
    sc_watchdog_disarm(wd);
    if (status == SC_OK && look.n == 1) {
        int looks = row->looks + 1;
        if (look.items[0].time_us < row->time_us)
            *row = look.items[0];
        row->looks = looks;
    }
    sc_list_free(&look);
    return status;
}
