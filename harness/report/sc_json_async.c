/* sc_json_async.c - a joined list formatted and written by a thread of its own (sc_json_async.h).
 * Two batches: the caller fills one while the thread writes the other. */
#include "report/sc_json_async.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "report/sc_json_out.h"

#define SC__ASYNC_BATCH 2048 /* records a batch: a few hundred kilobytes of checks */

typedef struct {
    char *items;
    size_t n;
} async__batch_t;

struct sc_json_async {
    FILE *out;
    size_t elem_size, written;
    const sc_field_t *fields;
    async__batch_t batch[2];
    int filling;             /* the batch the caller fills */
    async__batch_t *pending; /* handed to the thread, until it is written */
    bool closing;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t thread;
};

static void *async__main(void *arg)
{
    sc_json_async_t *a = arg;
    pthread_mutex_lock(&a->lock);
    for (;;) {
        while (a->pending == NULL && !a->closing)
            pthread_cond_wait(&a->cond, &a->lock);
        if (a->pending == NULL)
            break; /* closing, and nothing left */
        async__batch_t *b = a->pending;
        pthread_mutex_unlock(&a->lock);
        for (size_t i = 0; i < b->n; i++)
            sc_json_joined_put(a->out, &a->written, b->items + i * a->elem_size, a->fields);
        pthread_mutex_lock(&a->lock);
        a->pending = NULL;
        pthread_cond_broadcast(&a->cond);
    }
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

static void async__free(sc_json_async_t *a)
{
    free(a->batch[0].items);
    free(a->batch[1].items);
    pthread_mutex_destroy(&a->lock);
    pthread_cond_destroy(&a->cond);
    free(a);
}

sc_json_async_t *sc_json_async_open(FILE *out, size_t elem_size, const sc_field_t *fields)
{
    sc_json_async_t *a = calloc(1, sizeof(*a));
    if (a == NULL)
        return NULL;
    *a = (sc_json_async_t){.out = out, .elem_size = elem_size, .fields = fields};
    a->batch[0].items = malloc(SC__ASYNC_BATCH * elem_size);
    a->batch[1].items = malloc(SC__ASYNC_BATCH * elem_size);
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->cond, NULL);
    if (a->batch[0].items == NULL || a->batch[1].items == NULL ||
        pthread_create(&a->thread, NULL, async__main, a) != 0) {
        async__free(a);
        return NULL;
    }
    return a;
}

/* The batch being filled handed to the thread once it has written the one before; the caller
 * fills the other. */
static void async__hand(sc_json_async_t *a)
{
    async__batch_t *b = &a->batch[a->filling];
    pthread_mutex_lock(&a->lock);
    while (a->pending != NULL)
        pthread_cond_wait(&a->cond, &a->lock);
    a->pending = b;
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
    a->filling ^= 1;
    a->batch[a->filling].n = 0; /* written: the thread took it before the one just handed */
}

void sc_json_async_put(sc_json_async_t *a, const void *record)
{
    async__batch_t *b = &a->batch[a->filling];
    memcpy(b->items + b->n * a->elem_size, record, a->elem_size);
    if (++b->n == SC__ASYNC_BATCH)
        async__hand(a);
}

size_t sc_json_async_close(sc_json_async_t *a)
{
    if (a->batch[a->filling].n > 0)
        async__hand(a);
    pthread_mutex_lock(&a->lock);
    a->closing = true;
    pthread_cond_broadcast(&a->cond);
    pthread_mutex_unlock(&a->lock);
    pthread_join(a->thread, NULL);
    size_t written = a->written;
    async__free(a);
    return written;
}
