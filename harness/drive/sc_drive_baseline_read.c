/* sc_drive_baseline_read.c - the known-good runs of `baseline create` read on threads of their
 * own (sc_drive_baseline.h): ten runs of a million rows are ten gigabytes of JSON, and each run
 * is read alone, so the head node's cores read them side by side. Each reader's rows go to the
 * builder's store a batch at a time; each run's header is then held to the first run's kind and
 * added in the order given, so the baseline and the first refusal named are the same however
 * the reading was shared. */
#include "drive/sc_drive_baseline.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/sc_baseline.h"
#include "report/sc_json_in.h"

/* More readers than this gain nothing: the store takes every batch under one lock. */
#define READ__MAX_THREADS 8

typedef struct {
    sc_baseline_builder_t *bb;
    const char *const *dirs;
    size_t n;
    bool known_good; /* each run held to be complete, with no failed check */
    sc_result_t *docs;
    sc_status_t *status;
    sc_err_t *errs;
    bool *done;
    size_t next; /* the next run a reader takes */
    atomic_size_t
        refused_at; /* the first run refused (n: none): the ones after it are not needed */
    pthread_mutex_t lock;
    pthread_cond_t finished;
} read__pool_t;

typedef struct {
    read__pool_t *pool;
    sc_baseline_batch_t *batch;
    const sc_result_t *doc;
    sc_err_t *err;
} read__run_t;

/* Run i refused: no reader starts or goes on with a run after it. */
static void read__refuse(read__pool_t *pool, size_t i)
{
    size_t first = atomic_load(&pool->refused_at);
    while (i < first && !atomic_compare_exchange_weak(&pool->refused_at, &first, i))
        ;
}

/* A run's case row, streamed past: its figure into the batch (false ends the run's reading). */
static bool read__row(void *ctx, bool sweep, const sc_case_row_t *row)
{
    read__run_t *run = ctx;
    if (atomic_load_explicit(&run->pool->refused_at, memory_order_relaxed) <
        (size_t)run->batch->run) {
        sc_err_set(run->err, SC_ERR_RUNTIME, "not read: an earlier run was refused");
        return false;
    }
    return sc_baseline_batch_case(run->batch, run->doc, sweep, row, run->err) == SC_OK;
}

static sc_status_t read__one(read__pool_t *pool, size_t i, sc_baseline_batch_t *batch)
{
    sc_baseline_batch_begin(batch, pool->bb, (int)i);
    read__run_t run = {pool, batch, &pool->docs[i], &pool->errs[i]};
    sc_json_cases_t to = {read__row, &run};
    sc_status_t status = sc_json_load_result_cases(pool->dirs[i], &pool->docs[i], &to, run.err);
    if (status != SC_OK)
        return status; /* the loader freed the document */
    status = sc_baseline_batch_flush(batch, run.err);
    if (status != SC_OK)
        sc_result_free(&pool->docs[i]);
    return status;
}

/* A reader: the next run not taken, until none is left or one was refused. */
static void *read__worker(void *arg)
{
    read__pool_t *pool = arg;
    sc_baseline_batch_t *batch = malloc(sizeof(*batch));
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        size_t i = pool->next < atomic_load(&pool->refused_at) ? pool->next++ : pool->n;
        pthread_mutex_unlock(&pool->lock);
        if (i == pool->n)
            break;
        sc_status_t status = batch != NULL ? read__one(pool, i, batch)
                                           : sc_err_set(&pool->errs[i], SC_ERR_NOMEM,
                                                        "no memory to read %s", pool->dirs[i]);
        pthread_mutex_lock(&pool->lock);
        pool->status[i] = status;
        pool->done[i] = true;
        if (status != SC_OK)
            read__refuse(pool, i);
        pthread_cond_broadcast(&pool->finished);
        pthread_mutex_unlock(&pool->lock);
    }
    free(batch);
    return NULL;
}

/* A known-good run: complete, and no check of its own failed. */
static sc_status_t read__good(const char *dir, const sc_result_t *r, sc_err_t *err)
{
    if (strcmp(r->state, "complete") != 0)
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s: the run did not complete (state '%s'): not a known-good run", dir,
                          r->state);
    if (r->judged && sc_result_tally(r).fail > 0)
        return sc_err_set(err, SC_ERR_INPUT, "%s: the run has failed checks: not a known-good run",
                          dir);
    return SC_OK;
}

/* Run i once read: its refusal, or its header held to the first run's and added. */
static sc_status_t read__add(read__pool_t *pool, size_t i, sc_err_t *err)
{
    pthread_mutex_lock(&pool->lock);
    while (!pool->done[i])
        pthread_cond_wait(&pool->finished, &pool->lock);
    sc_status_t status = pool->status[i];
    pool->done[i] = false; /* taken: freed here */
    pthread_mutex_unlock(&pool->lock);
    if (status != SC_OK) {
        *err = pool->errs[i];
        return status;
    }
    status = pool->known_good ? read__good(pool->dirs[i], &pool->docs[i], err) : SC_OK;
    if (status == SC_OK)
        status = sc_baseline_add(pool->bb, &pool->docs[i], pool->dirs[i], err);
    if (status != SC_OK)
        read__refuse(pool, i);
    sc_result_free(&pool->docs[i]);
    return status;
}

static size_t read__threads(size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = cpus > 0 ? (size_t)cpus : 1;
    t = t < n ? t : n;
    return t < READ__MAX_THREADS ? t : READ__MAX_THREADS;
}

static sc_status_t read__pool(read__pool_t *pool, sc_err_t *err)
{
    pthread_t threads[READ__MAX_THREADS];
    size_t started = 0, want = read__threads(pool->n);
    while (started < want && pthread_create(&threads[started], NULL, read__worker, pool) == 0)
        started++;
    if (started == 0)
        read__worker(pool); /* no thread to be had: this one reads them all */
    sc_status_t status = SC_OK;
    size_t i = 0;
    for (; status == SC_OK && i < pool->n; i++)
        status = read__add(pool, i, err);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    for (; i < pool->n; i++) /* read before a refusal stopped the rest */
        if (pool->done[i] && pool->status[i] == SC_OK)
            sc_result_free(&pool->docs[i]);
    return status;
}

sc_status_t sc_drive_baseline_read(sc_baseline_builder_t *bb, const char *const *dirs, size_t n,
                                   bool known_good, sc_err_t *err)
{
    if (n > SC_BASELINE_MAX_RUNS)
        return sc_err_set(err, SC_ERR_USAGE, "baseline: at most %d runs (%s is one more)",
                          SC_BASELINE_MAX_RUNS, dirs[SC_BASELINE_MAX_RUNS]);
    read__pool_t pool = {.bb = bb, .dirs = dirs, .n = n, .known_good = known_good};
    pool.docs = calloc(n, sizeof(*pool.docs));
    pool.status = calloc(n, sizeof(*pool.status));
    pool.errs = calloc(n, sizeof(*pool.errs));
    pool.done = calloc(n, sizeof(*pool.done));
    sc_status_t status = SC_OK;
    if (pool.docs == NULL || pool.status == NULL || pool.errs == NULL || pool.done == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "no memory to read %zu runs", n);
    if (status == SC_OK) {
        atomic_init(&pool.refused_at, n);
        pthread_mutex_init(&pool.lock, NULL);
        pthread_cond_init(&pool.finished, NULL);
        status = read__pool(&pool, err);
        pthread_cond_destroy(&pool.finished);
        pthread_mutex_destroy(&pool.lock);
    }
    free(pool.docs);
    free(pool.status);
    free(pool.errs);
    free(pool.done);
    return status;
}
