#include "sc_engine.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/sc_check.h"
#include "util/sc_clock.h"
#include "util/sc_size.h"

#define SC__AUTO_BATCH_MAX 1024

struct sc_engine {
    sc_comm_t *comm;
    MPI_Comm control;
    sc_engine_opts_t opts;
    sc_watchdog_t *wd;
    atomic_uint_fast64_t *progress;
    int *all_ranks; /* world ranks of comm, for "waiting on" messages */
    void *sendbuf, *recvbuf;
    size_t buf_bytes; /* capacity of each of sendbuf and recvbuf */
    void *host;       /* host staging for the data check */
    double *samples;  /* combined per-iteration times of the current case */
    size_t samples_cap;
    double *batch; /* this rank's times of the current batch, plus the elapsed time */
    /* Test-only fault switch, read once from SCALECHECK_TEST_FAULT (README "Testing"):
     * "hang:RANK:SIZE" - world rank RANK stops answering, unwatched, at the first case of at
     * least SIZE bytes (a peer lost without dying); "corrupt:RANK" - rank RANK flips one
     * element of every result it checks (the data check must count it). */
    int fault_hang_rank;
    uint64_t fault_hang_size;
    int fault_corrupt_rank;
};

static void sc__read_faults(sc_engine_t *eng);

static const char *const sc__combine_names[] = {
#define SC__COMBINE_NAME(name) #name,
    SC_COMBINE_MAP(SC__COMBINE_NAME)
#undef SC__COMBINE_NAME
};

const char *sc_combine_name(sc_combine_t combine)
{
    return sc__combine_names[combine];
}

sc_status_t sc_combine_parse(const char *text, const char *flag, sc_combine_t *out, sc_err_t *err)
{
    for (int i = 0; i < SC_COMBINE_COUNT; i++) {
        char digit[2] = {(char)('0' + i), '\0'};
        if (strcmp(text, sc__combine_names[i]) == 0 || strcmp(text, digit) == 0) {
            *out = (sc_combine_t)i;
            return SC_OK;
        }
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
        .seed = 0x5ca1ec4eull,
    };
}

static sc_status_t sc__nomem(const sc_engine_t *eng, const char *what, size_t bytes, sc_err_t *err)
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
    if (eng->all_ranks == NULL || eng->batch == NULL) {
        sc_status_t status = sc__nomem(eng, "engine tables", batch_max * sizeof(double), err);
        sc_engine_destroy(eng);
        return status;
    }
    memcpy(eng->all_ranks, comm->world_rank, (size_t)comm->size * sizeof(int));
    sc__read_faults(eng);
    *out = eng;
    return SC_OK;
}

void sc_engine_destroy(sc_engine_t *eng)
{
    if (eng == NULL)
        return;
    if (eng->sendbuf)
        eng->comm->ops->free(eng->comm, eng->sendbuf);
    if (eng->recvbuf)
        eng->comm->ops->free(eng->comm, eng->recvbuf);
    free(eng->host);
    free(eng->samples);
    free(eng->batch);
    free(eng->all_ranks);
    free(eng);
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
static sc_status_t sc__reserve(sc_engine_t *eng, size_t bytes, sc_err_t *err)
{
    if (bytes <= eng->buf_bytes)
        return SC_OK;
    sc_comm_t *comm = eng->comm;
    if (eng->sendbuf)
        comm->ops->free(comm, eng->sendbuf);
    if (eng->recvbuf)
        comm->ops->free(comm, eng->recvbuf);
    free(eng->host);
    eng->sendbuf = comm->ops->alloc(comm, bytes);
    eng->recvbuf = comm->ops->alloc(comm, bytes);
    eng->host = malloc(bytes);
    eng->buf_bytes = (eng->sendbuf && eng->recvbuf && eng->host) ? bytes : 0;
    if (eng->buf_bytes == 0)
        return sc__nomem(eng, "collective buffers", bytes, err);
    return SC_OK;
}

static void sc__describe(const sc_case_t *c, char *buf, size_t len)
{
    char size[32];
    snprintf(buf, len, "%s of %s B (%s%s%s, %s)", c->coll->name,
             sc_size_format(c->size_bytes, size, sizeof(size)), sc_dtype_name(c->dtype),
             c->coll->has_op ? " " : "", c->coll->has_op ? sc_redop_name(c->op) : "",
             c->in_place ? "in-place" : "out-of-place");
}

static void sc__arm(sc_engine_t *eng, const sc_case_t *c, const char *phase)
{
    if (eng->wd == NULL)
        return;
    char what[200], full[256];
    sc__describe(c, what, sizeof(what));
    snprintf(full, sizeof(full), "%s, %s", what, phase);
    sc_watchdog_arm(eng->wd, full, eng->all_ranks, eng->comm->size);
}

static void sc__read_faults(sc_engine_t *eng)
{
    const char *fault = getenv("SCALECHECK_TEST_FAULT");
    unsigned long long size = 0;
    eng->fault_hang_rank = eng->fault_corrupt_rank = -1;
    if (fault == NULL)
        return;
    if (sscanf(fault, "hang:%d:%llu", &eng->fault_hang_rank, &size) == 2)
        eng->fault_hang_size = size;
    else if (sscanf(fault, "corrupt:%d", &eng->fault_corrupt_rank) != 1)
        eng->fault_hang_rank = eng->fault_corrupt_rank = -1;
}

static void sc__maybe_hang(const sc_engine_t *eng, const sc_case_t *c)
{
    if (eng->fault_hang_rank != eng->comm->rte->rank || c->size_bytes < eng->fault_hang_size)
        return;
    sc_watchdog_disarm(eng->wd);
    for (;;)
        pause();
}

static sc_coll_args_t sc__args(const sc_engine_t *eng, const sc_case_t *c)
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

/* Runs n iterations; when times != NULL stores each one's duration in microseconds. */
static sc_status_t sc__iterate(sc_engine_t *eng, sc_coll_fn_t fn, const sc_coll_args_t *a, int n,
                               double *times, sc_err_t *err)
{
    sc_comm_t *comm = eng->comm;
    uint64_t prev = sc_clock_ns();
    for (int i = 0; i < n; i++) {
        sc_status_t status = fn(comm, a, err);
        if (status == SC_OK)
            status = comm->ops->sync(comm, err);
        if (status != SC_OK)
            return status;
        uint64_t now = sc_clock_ns();
        if (times != NULL)
            times[i] = (double)(now - prev) * 1e-3;
        prev = now;
        sc_watchdog_tick(eng->progress);
    }
    return SC_OK;
}

/* Combines this rank's batch times (and, in the last slot, elapsed seconds, always by max)
 * across ranks as -a says. Every rank ends with the same numbers. */
static sc_status_t sc__combine(sc_engine_t *eng, int n, sc_err_t *err)
{
    MPI_Op op = MPI_MAX;
    int rc;
    switch (eng->opts.combine) {
    case SC_COMBINE_rank0:
        rc = MPI_Bcast(eng->batch, n, MPI_DOUBLE, 0, eng->control);
        if (rc == MPI_SUCCESS)
            rc = MPI_Allreduce(MPI_IN_PLACE, eng->batch + n, 1, MPI_DOUBLE, MPI_MAX, eng->control);
        return rc == MPI_SUCCESS ? SC_OK
                                 : sc_rte_mpi_error(eng->comm->rte, rc, "combining times", err);
    case SC_COMBINE_min:
        op = MPI_MIN;
        break;
    case SC_COMBINE_avg:
        op = MPI_SUM;
        break;
    default:
        break;
    }
    rc = MPI_Allreduce(MPI_IN_PLACE, eng->batch, n, MPI_DOUBLE, op, eng->control);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(MPI_IN_PLACE, eng->batch + n, 1, MPI_DOUBLE, MPI_MAX, eng->control);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(eng->comm->rte, rc, "combining times", err);
    if (eng->opts.combine == SC_COMBINE_avg)
        for (int i = 0; i < n; i++)
            eng->batch[i] /= eng->comm->size;
    return SC_OK;
}

static sc_status_t sc__append_samples(sc_engine_t *eng, size_t have, int n, sc_err_t *err)
{
    if (have + (size_t)n > eng->samples_cap) {
        size_t cap = (have + (size_t)n) * 2;
        double *grown = realloc(eng->samples, cap * sizeof(double));
        if (grown == NULL)
            return sc__nomem(eng, "timing samples", cap * sizeof(double), err);
        eng->samples = grown;
        eng->samples_cap = cap;
    }
    memcpy(eng->samples + have, eng->batch, (size_t)n * sizeof(double));
    return SC_OK;
}

/* True when -n auto has what it needs: the CI target met, the budget or the cap reached. */
static bool sc__auto_done(const sc_engine_t *eng, size_t have, double elapsed_s)
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

static sc_status_t sc__time_case(sc_engine_t *eng, const sc_case_t *c, sc_case_result_t *out,
                                 sc_err_t *err)
{
    sc_coll_args_t a = sc__args(eng, c);
    sc_coll_fn_t fn = c->coll->run;
    sc__arm(eng, c, "warm-up");
    sc_status_t status = sc__iterate(eng, fn, &a, eng->opts.warmup, NULL, err);
    sc__arm(eng, c, "timed iterations");
    bool fixed = eng->opts.iters > 0;
    size_t have = 0;
    int batch = fixed ? eng->opts.iters : eng->opts.min_iters;
    uint64_t start = sc_clock_ns();
    while (status == SC_OK) {
        status = sc__iterate(eng, fn, &a, batch, eng->batch, err);
        if (status != SC_OK)
            break;
        eng->batch[batch] = (double)(sc_clock_ns() - start) * 1e-9;
        status = sc__combine(eng, batch, err);
        if (status == SC_OK)
            status = sc__append_samples(eng, have, batch, err);
        if (status != SC_OK)
            break;
        have += (size_t)batch;
        if (fixed || sc__auto_done(eng, have, eng->batch[batch]))
            break;
        batch = batch * 2 > SC__AUTO_BATCH_MAX ? SC__AUTO_BATCH_MAX : batch * 2;
        if (have + (size_t)batch > (size_t)eng->opts.max_iters)
            batch = (int)((size_t)eng->opts.max_iters - have);
    }
    if (status != SC_OK)
        return status;
    out->iterations = have;
    sc_stats_compute(eng->samples, have, &out->time_us);
    return SC_OK;
}

/* One data-check iteration: fresh input, a poisoned output, one call, count mismatches. */
static sc_status_t sc__check_once(sc_engine_t *eng, const sc_case_t *c, uint64_t seed,
                                  uint64_t *wrong, sc_err_t *err)
{
    sc_comm_t *comm = eng->comm;
    sc_coll_shape_t shape = {comm->rank, comm->size, c->root, c->count};
    sc_check_spec_t spec = {c->dtype, c->op, seed, comm->size};
    size_t esize = sc_dtype_size(c->dtype);
    sc_coll_args_t a = sc__args(eng, c);
    size_t send_count = c->coll->send_count(&shape);
    size_t recv_bytes = eng->buf_bytes;

    memset(eng->host, 0xA5, recv_bytes); /* poison: stale results must not pass */
    sc_status_t status = comm->ops->from_host(comm, eng->recvbuf, eng->host, recv_bytes, err);
    sc_check_fill(&spec, comm->rank, 0, eng->host, send_count);
    if (status == SC_OK)
        status = comm->ops->from_host(comm, (void *)a.sendbuf, eng->host, send_count * esize, err);
    sc__arm(eng, c, "data check");
    if (status == SC_OK)
        status = c->coll->run(comm, &a, err);
    if (status == SC_OK)
        status = comm->ops->sync(comm, err);
    sc_watchdog_disarm(eng->wd);
    size_t result_count = c->coll->result_count(&shape);
    size_t offset = c->coll->result_offset(&shape, c->in_place) * esize;
    if (status == SC_OK)
        status = comm->ops->to_host(comm, eng->host, (char *)eng->recvbuf + offset,
                                    result_count * esize, err);
    if (status == SC_OK && result_count > 0 && eng->fault_corrupt_rank == comm->rte->rank)
        sc_dtype_store(c->dtype, eng->host, 0, sc_dtype_load(c->dtype, eng->host, 0) + 1);
    if (status == SC_OK)
        *wrong += sc_check_count_wrong(&spec, c->coll, &shape, eng->host);
    return status;
}

static sc_status_t sc__check_case(sc_engine_t *eng, const sc_case_t *c, sc_case_result_t *out,
                                  sc_err_t *err)
{
    uint64_t wrong = 0;
    for (int i = 0; i < eng->opts.check_iters; i++) {
        sc_status_t status = sc__check_once(eng, c, eng->opts.seed + (uint64_t)i + 1, &wrong, err);
        if (status != SC_OK)
            return status;
    }
    sc__arm(eng, c, "summing #wrong");
    int rc = MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UINT64_T, MPI_SUM, eng->control);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(eng->comm->rte, rc, "summing #wrong", err);
    out->checked = eng->opts.check_iters > 0;
    out->wrong = wrong;
    return SC_OK;
}

sc_status_t sc_engine_run_case(sc_engine_t *eng, const sc_case_t *c, sc_case_result_t *out,
                               sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    sc_comm_t *comm = eng->comm;
    sc_coll_shape_t shape = {comm->rank, comm->size, c->root, c->count};
    size_t send = c->coll->send_count(&shape), recv = c->coll->recv_count(&shape);
    size_t elems = send > recv ? send : recv;
    if (c->count > INT_MAX)
        return sc_err_set(err, SC_ERR_USAGE,
                          "-e: %zu elements per rank exceed what MPI takes in one call", c->count);
    sc_status_t status = sc__reserve(eng, (elems ? elems : 1) * sc_dtype_size(c->dtype), err);
    if (status != SC_OK)
        return status;
    sc__maybe_hang(eng, c);
    /* Timed buffers hold zeros: values that stay finite and normal under every operation. */
    memset(eng->host, 0, eng->buf_bytes);
    status = comm->ops->from_host(comm, eng->sendbuf, eng->host, eng->buf_bytes, err);
    if (status == SC_OK)
        status = comm->ops->from_host(comm, eng->recvbuf, eng->host, eng->buf_bytes, err);
    sc__arm(eng, c, "barrier before timing");
    if (status == SC_OK)
        status = comm->ops->barrier(comm, err);
    if (status == SC_OK)
        status = sc__time_case(eng, c, out, err);
    if (status == SC_OK)
        status = sc__check_case(eng, c, out, err);
    sc_watchdog_disarm(eng->wd);
    if (status != SC_OK)
        return status;
    double seconds = out->time_us.median * 1e-6;
    out->algbw_GBps = seconds > 0 ? (double)c->size_bytes / seconds / 1e9 : 0.0;
    out->busbw_GBps = out->algbw_GBps * c->coll->busbw_factor(comm->size);
    return SC_OK;
}
