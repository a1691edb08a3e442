#include "sc_engine.h"
#include "comm/sc_comm_ops.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/sc_check.h"
#include "util/sc_clock.h"
#include "util/sc_names.h"
#include "util/sc_size.h"
#include "util/sc_test_fault.h"

#define SC__AUTO_BATCH_MAX 1024

struct sc_engine {
    sc_comm_t *comm;
    MPI_Comm control;
    sc_engine_opts_t opts;
    sc_watchdog_t *wd;
    atomic_uint_fast64_t *progress;
    int *all_ranks; /* world ranks of comm, for "waiting on" messages */
    void *sendbuf, *recvbuf;
    size_t buf_bytes;  /* capacity of each of sendbuf and recvbuf */
    bool device_timer; /* the backend times operations on the device too */
    double *samples;   /* combined per-iteration host times of the current case */
    double *dev_samples;
    size_t samples_cap;
    double *batch;     /* this rank's host times of the current batch, then the elapsed time */
    double *dev_batch; /* this rank's device times of the current batch */
    /* this rank's time in its own work before each operation of the batch (NaN: unknown), on
     * its own clock: what the straggler analysis compares between ranks */
    double *own_batch;
    /* Test-only fault switch, read once from SCALECHECK_TEST_FAULT (sc_test_fault.h):
     * "hang:RANK:SIZE" - world rank RANK stops answering, unwatched, at the first case of at
     * least SIZE bytes (a peer lost without dying); "corrupt:RANK" - rank RANK flips one
     * element of every result it checks (the data check must count it). */
    int fault_hang_rank;
    uint64_t fault_hang_size;
    int fault_corrupt_rank;
    /* "slow-rank:RANK:US" - world rank RANK spends US microseconds in its own work before
     * every timed operation (a slow host or GPU: the others wait for it) */
    int fault_slow_rank;
    double fault_slow_us;
};

static void engine__read_faults(sc_engine_t *eng);

static const char *const engine__combine_names[] = {
#define SC__COMBINE_NAME(name) #name,
    SC_COMBINE_MAP(SC__COMBINE_NAME)
#undef SC__COMBINE_NAME
};

static const char *const engine__stat_names[] = {
#define SC__STAT_NAME(name) #name,
    SC_STAT_MAP(SC__STAT_NAME)
#undef SC__STAT_NAME
};

const char *sc_stat_name(sc_stat_t stat)
{
    return engine__stat_names[stat];
}

sc_status_t sc_stat_parse(const char *text, const char *flag, sc_stat_t *out, sc_err_t *err)
{
    int found = sc_names_find(engine__stat_names, SC_STAT_COUNT, text);
    if (found >= 0) {
        *out = (sc_stat_t)found;
        return SC_OK;
    }
    return sc_names_unknown(engine__stat_names, SC_STAT_COUNT, flag, "statistic", text, NULL, err);
}

const char *sc_combine_name(sc_combine_t combine)
{
    return engine__combine_names[combine];
}

sc_status_t sc_combine_parse(const char *text, const char *flag, sc_combine_t *out, sc_err_t *err)
{
    /* a name, or its index as nccl-tests' -a takes it */
    int found = sc_names_find(engine__combine_names, SC_COMBINE_COUNT, text);
    if (found < 0 && text[0] >= '0' && text[0] < '0' + SC_COMBINE_COUNT && text[1] == '\0')
        found = text[0] - '0';
    if (found >= 0) {
        *out = (sc_combine_t)found;
        return SC_OK;
    }
    return sc_err_set(err, SC_ERR_USAGE,
                      "%s: unknown way to combine rank times '%s' (valid: 0|rank0, 1|avg, 2|min, "
                      "3|max)",
                      flag, text);
}

void sc_engine_opts_default(sc_engine_opts_t *opts)
{
    *opts = (sc_engine_opts_t){
        .iters = 20,
        .warmup = 5,
        .check_iters = 1,
        .target_ci = 0.02,
        .size_budget_s = 2.0,
        .min_iters = 10,
        .max_iters = 100000,
        .combine = SC_COMBINE_max,
        .statistic = SC_STAT_median,
        .seed = 0x5ca1ec4eull,
        .agg_ops = 1,
    };
}

void sc_engine_opts_nccl_tests(sc_engine_opts_t *opts)
{
    opts->combine = SC_COMBINE_avg; /* nccl-tests' -a 1 */
    opts->statistic = SC_STAT_mean; /* it divides the elapsed time by the iterations */
}

static sc_status_t engine__nomem(const sc_engine_t *eng, const char *what, size_t bytes,
                                 sc_err_t *err)
{
    char size[32];
    return sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): cannot allocate %s bytes for %s",
                      eng->comm->rte->rank, eng->comm->rte->host,
                      sc_size_format(bytes, size, sizeof(size)), what);
}

sc_status_t sc_engine_create(sc_comm_t *comm, MPI_Comm control, const sc_engine_opts_t *opts,
                             sc_watchdog_t *wd, sc_engine_t **out, sc_err_t *err)
{
    sc_engine_t *eng = calloc(1, sizeof(*eng));
    if (eng == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "rank %d: no memory for the engine", comm->rte->rank);
    eng->comm = comm;
    eng->control = control;
    eng->opts = *opts;
    eng->wd = wd;
    eng->progress = sc_watchdog_progress(wd);
    eng->all_ranks = malloc((size_t)comm->size * sizeof(int));
    size_t batch_max = SC__AUTO_BATCH_MAX;
    if ((size_t)opts->iters > batch_max)
        batch_max = (size_t)opts->iters;
    if ((size_t)opts->min_iters > batch_max)
        batch_max = (size_t)opts->min_iters;
    eng->batch = malloc((batch_max + 1) * sizeof(double));
    eng->dev_batch = malloc((batch_max + 1) * sizeof(double));
    eng->own_batch = malloc((batch_max + 1) * sizeof(double));
    eng->device_timer = sc_comm_has_timer(comm);
    if (eng->all_ranks == NULL || eng->batch == NULL || eng->dev_batch == NULL ||
        eng->own_batch == NULL) {
        sc_status_t status = engine__nomem(eng, "engine tables", batch_max * sizeof(double), err);
        sc_engine_destroy(eng);
        return status;
    }
    memcpy(eng->all_ranks, comm->world_rank, (size_t)comm->size * sizeof(int));
    engine__read_faults(eng);
    *out = eng;
    return SC_OK;
}

void sc_engine_destroy(sc_engine_t *eng)
{
    if (eng == NULL)
        return;
    if (eng->sendbuf)
        sc_comm_free(eng->comm, eng->sendbuf);
    if (eng->recvbuf)
        sc_comm_free(eng->comm, eng->recvbuf);
    free(eng->samples);
    free(eng->dev_samples);
    free(eng->batch);
    free(eng->own_batch);
    free(eng->dev_batch);
    free(eng->all_ranks);
    free(eng);
}

bool sc_engine_supports(const sc_engine_t *eng, const sc_case_t *c)
{
    return sc_comm_supports(eng->comm, c->coll->id, c->dtype, c->in_place);
}

bool sc_engine_shape_case(const sc_engine_t *eng, sc_case_t *c, uint64_t requested_bytes)
{
    size_t esize = sc_dtype_size(c->dtype);
    uint64_t ranks = c->coll->size_is_total ? (uint64_t)eng->comm->size : 1;
    c->count = (size_t)(requested_bytes / esize / ranks);
    c->size_bytes = (uint64_t)c->count * esize * ranks;
    return c->count > 0;
}

/* Makes sure both buffers and the host staging hold `bytes`. */
static sc_status_t engine__reserve(sc_engine_t *eng, size_t bytes, sc_err_t *err)
{
    if (bytes <= eng->buf_bytes)
        return SC_OK;
    sc_comm_t *comm = eng->comm;
    if (eng->sendbuf)
        sc_comm_free(comm, eng->sendbuf);
    if (eng->recvbuf)
        sc_comm_free(comm, eng->recvbuf);
    eng->sendbuf = sc_comm_alloc(comm, bytes);
    eng->recvbuf = sc_comm_alloc(comm, bytes);
    eng->buf_bytes = (eng->sendbuf && eng->recvbuf) ? bytes : 0;
    if (eng->buf_bytes == 0)
        return engine__nomem(eng, "collective buffers", bytes, err);
    /* Written once here: pages never written all map the one zero page on the host, which the
     * cache serves, and a run without data checks (-c 0) would time reads of that. */
    sc_status_t status = sc_comm_fill_bytes(comm, eng->sendbuf, 0x3C, bytes, err);
    return status == SC_OK ? sc_comm_fill_bytes(comm, eng->recvbuf, 0x3C, bytes, err) : status;
}

static void engine__describe(const sc_case_t *c, char *buf, size_t len)
{
    char size[32];
    snprintf(buf, len, "%s of %s B (%s%s%s, %s)", c->coll->name,
             sc_size_format(c->size_bytes, size, sizeof(size)), sc_dtype_name(c->dtype),
             c->coll->has_op ? " " : "", c->coll->has_op ? sc_redop_name(c->op) : "",
             c->in_place ? "in-place" : "out-of-place");
}

static void engine__arm(sc_engine_t *eng, const sc_case_t *c, const char *phase)
{
    if (eng->wd == NULL)
        return;
    char what[200], full[256];
    engine__describe(c, what, sizeof(what));
    snprintf(full, sizeof(full), "%s, %s", what, phase);
    sc_watchdog_arm(eng->wd, full, eng->all_ranks, eng->comm->size);
}

static void engine__read_faults(sc_engine_t *eng)
{
    const char *hang = sc_test_fault("hang"), *corrupt = sc_test_fault("corrupt");
    unsigned long long size = 0;
    if (hang == NULL || sscanf(hang, "%d:%llu", &eng->fault_hang_rank, &size) != 2)
        eng->fault_hang_rank = -1;
    eng->fault_hang_size = size;
    if (corrupt == NULL || sscanf(corrupt, "%d", &eng->fault_corrupt_rank) != 1)
        eng->fault_corrupt_rank = -1;
    const char *slow = sc_test_fault("slow-rank");
    if (slow == NULL || sscanf(slow, "%d:%lf", &eng->fault_slow_rank, &eng->fault_slow_us) != 2)
        eng->fault_slow_rank = -1;
}

static void engine__maybe_hang(const sc_engine_t *eng, const sc_case_t *c)
{
    if (eng->fault_hang_rank != eng->comm->rte->rank || c->size_bytes < eng->fault_hang_size)
        return;
    sc_watchdog_disarm(eng->wd);
    for (;;)
        pause();
}

static sc_coll_args_t engine__args(const sc_engine_t *eng, const sc_case_t *c)
{
    sc_coll_shape_t shape = {eng->comm->rank, eng->comm->size, c->root, c->count};
    size_t esize = sc_dtype_size(c->dtype);
    sc_coll_args_t a = {
        .sendbuf = eng->sendbuf,
        .recvbuf = eng->recvbuf,
        .count = c->count,
        .dtype = c->dtype,
        .op = c->op,
        .root = c->root,
        .send_peer = (eng->comm->rank + 1) % eng->comm->size,
        .recv_peer = (eng->comm->rank + eng->comm->size - 1) % eng->comm->size,
        .in_place = c->in_place,
    };
    if (c->in_place)
        a.sendbuf = (char *)eng->recvbuf + c->coll->inplace_input_offset(&shape) * esize;
    return a;
}

/* What one timed step issues: -m operations (in one group where the backend fuses them), or
 * a CUDA graph of them launched -G times. */
typedef struct {
    sc_coll_fn_t fn;
    const sc_coll_args_t *args;
    bool group; /* fused into one launch: -m > 1 on a backend that fuses */
    int agg_ops;
    void *graph;
    int launches;     /* of the graph */
    int ops_per_step; /* what a step's time is divided by */
} engine__step_t;

/* The step's operations, as one group where the backend fuses them. */
static sc_status_t engine__issue_ops(sc_comm_t *comm, const engine__step_t *step, sc_err_t *err)
{
    sc_status_t status = step->group ? sc_comm_group_begin(comm, err) : SC_OK;
    for (int i = 0; i < step->agg_ops && status == SC_OK; i++)
        status = step->fn(comm, step->args, err);
    if (!step->group)
        return status;
    sc_err_t ignored; /* a group begun is always ended, the first error kept */
    sc_status_t end = sc_comm_group_end(comm, status == SC_OK ? err : &ignored);
    return status == SC_OK ? end : status;
}

static inline sc_status_t engine__issue(sc_comm_t *comm, const engine__step_t *step, sc_err_t *err)
{
    if (step->graph == NULL)
        return engine__issue_ops(comm, step, err);
    sc_status_t status = SC_OK;
    for (int i = 0; i < step->launches && status == SC_OK; i++)
        status = sc_comm_graph_launch(comm, step->graph, err);
    return status;
}

/* n device-timed steps back to back, as nccl-tests times them: a lead-in step keeps the
 * device busy, then mark 0, step 1, mark 1 ... step n, mark n and one wait. Step i's device
 * time is the interval between marks i - 1 and i (the device's own pace wherever it is behind
 * the host; the host's pace where the host is behind); its host time the batch's elapsed time
 * over the n + 1 steps issued. */
/* The test-only slow-rank fault: this rank's own work takes that much longer. */
static void engine__planted_slowness(const sc_engine_t *eng)
{
    if (eng->fault_slow_rank != eng->comm->rte->rank)
        return;
    uint64_t until = sc_clock_ns() + (uint64_t)(eng->fault_slow_us * 1e3);
    while (sc_clock_ns() < until) /* busy, as real work is */
        ;
}

static sc_status_t engine__iterate_device(sc_engine_t *eng, const engine__step_t *step, int n,
                                          double *times, double *dev_times, sc_err_t *err)
{
    sc_comm_t *comm = eng->comm;
    sc_status_t status = sc_comm_timer_reserve(comm, n + 1, err); /* none made in the loop */
    uint64_t start = sc_clock_ns();
    if (status == SC_OK)
        status = engine__issue(comm, step, err);
    if (status == SC_OK)
        status = sc_comm_timer_mark(comm, 0, err);
    for (int i = 1; i <= n && status == SC_OK; i++) {
        engine__planted_slowness(eng);
        status = engine__issue(comm, step, err);
        if (status == SC_OK)
            status = sc_comm_timer_mark(comm, i, err);
        sc_watchdog_tick(eng->progress);
    }
    if (status == SC_OK)
        status = sc_comm_sync(comm, err);
    double host_us = (double)(sc_clock_ns() - start) * 1e-3 / (n + 1) / step->ops_per_step;
    for (int i = 0; i < n && status == SC_OK; i++) {
        status = sc_comm_timer_interval(comm, i + 1, &dev_times[i], err);
        dev_times[i] /= step->ops_per_step;
        times[i] = host_us;
    }
    /* the device's own time between operations, as the library saw its kernels start and end
     * (NCCL's profiler plugin); one figure for the batch */
    double own = NAN; /* left so where the library does not say */
    if (status == SC_OK)
        sc_comm_own_time(comm, (n + 1) * step->ops_per_step, &own);
    for (int i = 0; i < n; i++)
        eng->own_batch[i] = own;
    return status;
}

/* Runs n steps, each waited for; when times != NULL stores each one's host time per operation
 * in microseconds (and, where the backend has a device timer, the device time in dev_times:
 * under -z the steps cannot run back to back, so each is timed alone). */
static sc_status_t engine__iterate(sc_engine_t *eng, const engine__step_t *step, int n,
                                   double *times, double *dev_times, sc_err_t *err)
{
    sc_comm_t *comm = eng->comm;
    bool timer = times != NULL && eng->device_timer;
    if (timer && !eng->opts.barrier_each)
        return engine__iterate_device(eng, step, n, times, dev_times, err);
    double per_op = 1e-3 / step->ops_per_step;
    uint64_t prev = sc_clock_ns();
    for (int i = 0; i < n; i++) {
        engine__planted_slowness(eng);
        /* this rank's own work since its last operation ended (the first: unknown); a barrier
         * between steps (-z) lines the ranks up, and hides who is slow */
        if (times != NULL)
            eng->own_batch[i] =
                i > 0 && !eng->opts.barrier_each ? (double)(sc_clock_ns() - prev) * per_op : NAN;
        sc_status_t status = timer ? sc_comm_timer_mark(comm, 0, err) : SC_OK;
        if (status == SC_OK)
            status = engine__issue(comm, step, err);
        if (status == SC_OK && timer)
            status = sc_comm_timer_mark(comm, 1, err);
        if (status == SC_OK)
            status = sc_comm_sync(comm, err);
        if (status != SC_OK)
            return status;
        uint64_t now = sc_clock_ns();
        if (times != NULL)
            times[i] = (double)(now - prev) * per_op;
        prev = now;
        if (timer) {
            status = sc_comm_timer_interval(comm, 1, &dev_times[i], err);
            if (status != SC_OK)
                return status;
            dev_times[i] /= step->ops_per_step;
            prev = sc_clock_ns(); /* reading the timer is not part of the next step */
        }
        if (times != NULL && eng->opts.barrier_each) {
            status = sc_comm_barrier(comm, err);
            if (status != SC_OK)
                return status;
            prev = sc_clock_ns(); /* nor is the barrier */
        }
        sc_watchdog_tick(eng->progress);
    }
    return SC_OK;
}

/* Combines n per-rank times in batch across ranks as -a says; every rank ends with the same
 * numbers. */
static sc_status_t engine__combine(sc_engine_t *eng, double *batch, int n, sc_err_t *err)
{
    int rc;
    MPI_Op op = eng->opts.combine == SC_COMBINE_min   ? MPI_MIN
                : eng->opts.combine == SC_COMBINE_avg ? MPI_SUM
                                                      : MPI_MAX;
    if (eng->opts.combine == SC_COMBINE_rank0)
        rc = MPI_Bcast(batch, n, MPI_DOUBLE, 0, eng->control);
    else
        rc = MPI_Allreduce(MPI_IN_PLACE, batch, n, MPI_DOUBLE, op, eng->control);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(eng->comm->rte, rc, "combining times", err);
    if (eng->opts.combine == SC_COMBINE_avg)
        for (int i = 0; i < n; i++)
            batch[i] /= eng->comm->size;
    return SC_OK;
}

/* The slowest rank's elapsed seconds, so that -n auto stops on every rank at once. */
static sc_status_t engine__elapsed(sc_engine_t *eng, uint64_t start, double *elapsed_s,
                                   sc_err_t *err)
{
    *elapsed_s = (double)(sc_clock_ns() - start) * 1e-9;
    int rc = MPI_Allreduce(MPI_IN_PLACE, elapsed_s, 1, MPI_DOUBLE, MPI_MAX, eng->control);
    return rc == MPI_SUCCESS ? SC_OK : sc_rte_mpi_error(eng->comm->rte, rc, "combining times", err);
}

static sc_status_t engine__append_samples(sc_engine_t *eng, size_t have, int n, sc_err_t *err)
{
    if (have + (size_t)n > eng->samples_cap) {
        size_t cap = (have + (size_t)n) * 2;
        double *grown = realloc(eng->samples, cap * sizeof(double));
        if (grown != NULL)
            eng->samples = grown;
        double *dev_grown = grown ? realloc(eng->dev_samples, cap * sizeof(double)) : NULL;
        if (dev_grown != NULL)
            eng->dev_samples = dev_grown;
        if (grown == NULL || dev_grown == NULL)
            return engine__nomem(eng, "timing samples", cap * sizeof(double), err);
        eng->samples_cap = cap;
    }
    memcpy(eng->samples + have, eng->batch, (size_t)n * sizeof(double));
    memcpy(eng->dev_samples + have, eng->dev_batch, (size_t)n * sizeof(double));
    return SC_OK;
}

/* True when -n auto has what it needs: the CI target met, the budget or the cap reached. */
static bool engine__auto_done(const sc_engine_t *eng, size_t have, double elapsed_s)
{
    if (have >= (size_t)eng->opts.max_iters || elapsed_s >= eng->opts.size_budget_s)
        return true;
    if (have < (size_t)eng->opts.min_iters)
        return false;
    double *copy = malloc(have * sizeof(double));
    if (copy == NULL)
        return true;
    memcpy(copy, eng->samples, have * sizeof(double));
    sc_stats_t st;
    sc_stats_compute(copy, have, &st);
    free(copy);
    return st.ci_rel <= eng->opts.target_ci;
}

/* The next batch of -n auto: twice the last (up to SC__AUTO_BATCH_MAX), but no more than the
 * iterations left under the cap and, at the pace so far, under the budget: the budget is kept
 * to about one iteration, where doubling alone could spend three times it. Every rank has the
 * same elapsed time (engine__elapsed agrees on it), so every rank picks the same batch. */
static int engine__auto_next_batch(const sc_engine_t *eng, int batch, size_t have, double elapsed_s)
{
    size_t next = (size_t)batch * 2 > SC__AUTO_BATCH_MAX ? SC__AUTO_BATCH_MAX : (size_t)batch * 2;
    if (have + next > (size_t)eng->opts.max_iters)
        next = (size_t)eng->opts.max_iters - have;
    double per_iter = have > 0 ? elapsed_s / (double)have : 0;
    if (per_iter > 0) {
        double fits = (eng->opts.size_budget_s - elapsed_s) / per_iter;
        if (fits < (double)next)
            next = fits >= 1 ? (size_t)fits : 1;
    }
    return (int)next;
}

/* Sets step up: with -G, captures the -m operations of one iteration into a CUDA graph. */
static sc_status_t engine__prepare_step(sc_engine_t *eng, const sc_case_t *c,
                                        const sc_coll_args_t *a, engine__step_t *step,
                                        sc_err_t *err)
{
    sc_comm_t *comm = eng->comm;
    int agg = eng->opts.agg_ops > 1 ? eng->opts.agg_ops : 1;
    *step = (engine__step_t){.fn = sc_comm_coll_fn(comm, c->coll->id),
                             .args = a,
                             .group = agg > 1 && sc_comm_has_group(comm),
                             .agg_ops = agg,
                             .ops_per_step = agg};
    if (step->fn == NULL) /* the caller asked sc_comm_supports; this says so if it did not */
        return sc_comm_coll(comm, c->coll->id, a, err);
    if (eng->opts.graph_launches <= 0)
        return SC_OK;
    if (!sc_comm_has_graph(comm))
        return sc_err_set(err, SC_ERR_USAGE, "-G: CUDA graphs need a GPU backend (backend %s)",
                          sc_comm_name(comm));
    sc_status_t status = sc_comm_graph_begin(comm, err);
    if (status != SC_OK)
        return status;
    status = engine__issue_ops(comm, step, err);
    step->launches = eng->opts.graph_launches;
    step->ops_per_step = agg * step->launches;
    if (status == SC_OK)
        return sc_comm_graph_end(comm, &step->graph, err);
    /* A failed capture still ends: a stream left capturing fails every later call on it. */
    void *partial = NULL;
    sc_err_t ignored;
    sc_comm_graph_end(comm, &partial, &ignored);
    if (partial != NULL)
        sc_comm_graph_destroy(comm, partial);
    return status;
}

/* Which rank held the others up in the last batch (rank 0 learns it): each rank's median own
 * time per operation, gathered (sc_straggler_find). */
static sc_status_t engine__straggler(sc_engine_t *eng, int n, sc_case_result_t *out, sc_err_t *err)
{
    sc_comm_t *comm = eng->comm;
    int known = 0;
    for (int i = 0; i < n; i++) /* the known ones to the front (the batch is not used again) */
        if (eng->own_batch[i] >= 0)
            eng->own_batch[known++] = eng->own_batch[i];
    sc_stats_t st;
    sc_stats_compute(eng->own_batch, (size_t)known, &st);
    double mine = known > 0 ? st.median : NAN;
    double *all = comm->rank == 0 ? malloc((size_t)comm->size * sizeof(double)) : NULL;
    int rc = MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, eng->control);
    out->straggler = (sc_straggler_t){.index = -1};
    out->straggler_rank = -1;
    if (rc == MPI_SUCCESS && all != NULL) {
        sc_straggler_find(all, comm->size, &out->straggler);
        if (out->straggler.index >= 0) {
            out->straggler_rank = comm->world_rank[out->straggler.index];
            snprintf(out->straggler_host, sizeof(out->straggler_host), "%s",
                     comm->rte->hosts[out->straggler_rank]);
        }
    }
    free(all);
    return rc == MPI_SUCCESS ? SC_OK : sc_rte_mpi_error(comm->rte, rc, "gathering own times", err);
}

static sc_status_t engine__time_loop(sc_engine_t *eng, const engine__step_t *step,
                                     sc_case_result_t *out, sc_err_t *err)
{
    bool fixed = eng->opts.iters > 0;
    size_t have = 0;
    int batch = fixed ? eng->opts.iters : eng->opts.min_iters;
    uint64_t start = sc_clock_ns();
    for (;;) {
        double elapsed = 0;
        sc_status_t status = engine__iterate(eng, step, batch, eng->batch, eng->dev_batch, err);
        if (status == SC_OK)
            status = engine__combine(eng, eng->batch, batch, err);
        if (status == SC_OK && eng->device_timer)
            status = engine__combine(eng, eng->dev_batch, batch, err);
        if (status == SC_OK)
            status = engine__append_samples(eng, have, batch, err);
        if (status == SC_OK && !fixed)
            status = engine__elapsed(eng, start, &elapsed, err);
        if (status != SC_OK)
            return status;
        have += (size_t)batch;
        if (fixed || engine__auto_done(eng, have, elapsed))
            break;
        batch = engine__auto_next_batch(eng, batch, have, elapsed);
    }
    out->iterations = have;
    sc_stats_compute(eng->samples, have, &out->host_time_us);
    out->device_timed = eng->device_timer && !eng->opts.host_time;
    if (out->device_timed)
        sc_stats_compute(eng->dev_samples, have, &out->time_us);
    else
        out->time_us = out->host_time_us;
    out->time_stat_us =
        eng->opts.statistic == SC_STAT_mean ? out->time_us.mean : out->time_us.median;
    return engine__straggler(eng, batch, out, err);
}

static sc_status_t engine__time_case(sc_engine_t *eng, const sc_case_t *c, sc_case_result_t *out,
                                     sc_err_t *err)
{
    sc_coll_args_t a = engine__args(eng, c);
    engine__step_t step;
    engine__arm(eng, c, "graph capture");
    sc_status_t status = engine__prepare_step(eng, c, &a, &step, err);
    engine__arm(eng, c, "warm-up");
    if (status == SC_OK)
        status = engine__iterate(eng, &step, eng->opts.warmup, NULL, NULL, err);
    engine__arm(eng, c, "timed iterations");
    if (status == SC_OK)
        status = engine__time_loop(eng, &step, out, err);
    if (step.graph != NULL)
        sc_comm_graph_destroy(eng->comm, step.graph);
    return status;
}

/* The test-only "corrupt" fault: adds one to the first result element. */
static sc_status_t engine__corrupt(sc_engine_t *eng, const sc_case_t *c, void *result,
                                   sc_err_t *err)
{
    sc_comm_t *comm = eng->comm;
    uint64_t elem[2] = {0, 0};
    size_t esize = sc_dtype_size(c->dtype);
    sc_status_t status = sc_comm_to_host(comm, elem, result, esize, err);
    sc_dtype_store(c->dtype, elem, 0, sc_dtype_load(c->dtype, elem, 0) + 1);
    return status == SC_OK ? sc_comm_from_host(comm, result, elem, esize, err) : status;
}

/* One data-check iteration: fresh input, a poisoned output, one call, count mismatches - all
 * where the data lives (the backend's check ops). */
static sc_status_t engine__check_once(sc_engine_t *eng, const sc_case_t *c, uint64_t seed,
                                      uint64_t *wrong, sc_err_t *err)
{
    sc_comm_t *comm = eng->comm;
    const sc_backend_ops_t *ops = comm->ops;
    sc_coll_shape_t shape = {comm->rank, comm->size, c->root, c->count};
    sc_check_spec_t spec;
    sc_check_spec_init(&spec, c->dtype, c->op, seed, comm->size);
    sc_coll_args_t a = engine__args(eng, c);
    /* Poison first (stale results must not pass), then this rank's input. */
    sc_status_t status = ops->fill_bytes(comm, eng->recvbuf, 0xA5, eng->buf_bytes, err);
    if (status == SC_OK)
        status = ops->check_fill(comm, (void *)a.sendbuf, &spec, c->coll->send_count(&shape), err);
    engine__arm(eng, c, "data check");
    if (status == SC_OK)
        status = sc_comm_coll(comm, c->coll->id, &a, err);
    if (status == SC_OK)
        status = ops->sync(comm, err);
    sc_watchdog_disarm(eng->wd);
    size_t count = c->coll->result_count(&shape);
    char *result = (char *)eng->recvbuf +
                   c->coll->result_offset(&shape, c->in_place) * sc_dtype_size(c->dtype);
    if (status == SC_OK && count > 0 && eng->fault_corrupt_rank == comm->rte->rank)
        status = engine__corrupt(eng, c, result, err);
    sc_src_t src = c->coll->source(&shape);
    uint64_t found = 0;
    if (status == SC_OK)
        status = ops->check_count(comm, result, &spec, &src, count, &found, err);
    *wrong += found;
    return status;
}

static sc_status_t engine__check_case(sc_engine_t *eng, const sc_case_t *c, sc_case_result_t *out,
                                      sc_err_t *err)
{
    uint64_t wrong = 0;
    for (int i = 0; i < eng->opts.check_iters; i++) {
        sc_status_t status =
            engine__check_once(eng, c, eng->opts.seed + (uint64_t)i + 1, &wrong, err);
        if (status != SC_OK)
            return status;
    }
    engine__arm(eng, c, "summing #wrong");
    int rc = MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UINT64_T, MPI_SUM, eng->control);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(eng->comm->rte, rc, "summing #wrong", err);
    out->checked = eng->opts.check_iters > 0;
    out->wrong = wrong;
    return SC_OK;
}

/* Elements of the larger of the case's two buffers on this rank (at least one). */
static size_t engine__case_elems(const sc_engine_t *eng, const sc_case_t *c)
{
    sc_coll_shape_t shape = {eng->comm->rank, eng->comm->size, c->root, c->count};
    size_t send = c->coll->send_count(&shape), recv = c->coll->recv_count(&shape);
    size_t elems = send > recv ? send : recv;
    return elems ? elems : 1;
}

uint64_t sc_engine_case_bytes(const sc_engine_t *eng, const sc_case_t *c)
{
    return 2 * (uint64_t)engine__case_elems(eng, c) * sc_dtype_size(c->dtype);
}

sc_status_t sc_engine_run_case(sc_engine_t *eng, const sc_case_t *c, sc_case_result_t *out,
                               sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    sc_comm_t *comm = eng->comm;
    size_t elems = engine__case_elems(eng, c);
    if (!sc_comm_supports(comm, c->coll->id, c->dtype, c->in_place))
        return sc_err_set(err, SC_ERR_UNSUPPORTED, "backend %s does not run %s on %s%s",
                          sc_comm_name(comm), c->coll->name, sc_dtype_name(c->dtype),
                          c->in_place ? " in place" : "");
    if (c->count > INT_MAX)
        return sc_err_set(err, SC_ERR_USAGE,
                          "%s of %zu elements per rank: more than MPI takes in one call "
                          "(2^31 - 1)",
                          c->coll->name, c->count);
    sc_status_t status = engine__reserve(eng, elems * sc_dtype_size(c->dtype), err);
    if (status != SC_OK)
        return status;
    engine__maybe_hang(eng, c);
    /* Timed buffers hold zeros: values that stay finite and normal under every operation. */
    status = sc_comm_fill_bytes(comm, eng->sendbuf, 0, eng->buf_bytes, err);
    if (status == SC_OK)
        status = sc_comm_fill_bytes(comm, eng->recvbuf, 0, eng->buf_bytes, err);
    engine__arm(eng, c, "barrier before timing");
    if (status == SC_OK)
        status = sc_comm_barrier(comm, err);
    if (status == SC_OK)
        status = engine__time_case(eng, c, out, err);
    if (status == SC_OK) { /* what the library chose for the timed operations, then the check */
        sc_comm_last_choice(comm, &out->choice);
        status = engine__check_case(eng, c, out, err);
    }
    sc_watchdog_disarm(eng->wd);
    if (status != SC_OK)
        return status;
    double seconds = out->time_stat_us * 1e-6;
    out->algbw_GBps = seconds > 0 ? (double)c->size_bytes / seconds / 1e9 : 0.0;
    out->busbw_GBps = out->algbw_GBps * c->coll->busbw_factor(comm->size);
    return SC_OK;
}
