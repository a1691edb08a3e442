/* compute_host_burn.c - the host path's burn (`soak --load burn` with MPI or UCX): a thread that
 * runs fp32 matrix products on one core and streams a buffer through memory, so that a host
 * acceptance runs under load too - it stands for a busy training host (data loading, the
 * optimizer on the CPU), not for a GPU. One per process: each rank burns its own core. */
#include "sc_compute.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/sc_clock.h"

static struct {
    pthread_mutex_t lock;
    pthread_t thread;
    bool running;
    atomic_int stop;
    sc_burn_spec_t spec;
    float *a, *b, *c;
    char *stream;
    long long products, copies;
    uint64_t started_ns, stopped_ns;
} host_burn = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* C = A B, n x n, column-major, in blocks that stay in cache. */
static void host_burn__product(int n, const float *a, const float *b, float *c)
{
    enum { BLOCK = 64 };
    memset(c, 0, sizeof(float) * (size_t)n * (size_t)n);
    for (int jj = 0; jj < n; jj += BLOCK)
        for (int pp = 0; pp < n; pp += BLOCK)
            for (int j = jj; j < jj + BLOCK && j < n; j++)
                for (int p = pp; p < pp + BLOCK && p < n; p++) {
                    float bpj = b[(size_t)j * n + p];
                    const float *ap = a + (size_t)p * n;
                    float *cj = c + (size_t)j * n;
                    for (int i = 0; i < n; i++)
                        cj[i] += ap[i] * bpj;
                }
}

static void *host_burn__main(void *arg)
{
    (void)arg;
    size_t half = (size_t)(host_burn.spec.stream_bytes / 2);
    while (!atomic_load(&host_burn.stop)) {
        host_burn__product(host_burn.spec.size, host_burn.a, host_burn.b, host_burn.c);
        host_burn.products++;
        if (half > 0) {
            memcpy(host_burn.stream + half, host_burn.stream, half);
            host_burn.copies++;
        }
    }
    host_burn.stopped_ns = sc_clock_ns();
    return NULL;
}

static void host_burn__free(void)
{
    free(host_burn.a);
    free(host_burn.stream);
    host_burn.a = host_burn.b = host_burn.c = NULL;
    host_burn.stream = NULL;
}

sc_status_t sc_compute_host_burn_start(const sc_burn_spec_t *spec, const char *who, sc_err_t *err)
{
    pthread_mutex_lock(&host_burn.lock);
    sc_status_t status = SC_OK;
    size_t n2 = (size_t)spec->size * (size_t)spec->size;
    if (host_burn.running)
        status = sc_err_set(err, SC_ERR_RUNTIME, "%s: burn: already burning", who);
    if (status == SC_OK) {
        host_burn.spec = *spec;
        host_burn.a = malloc(3 * n2 * sizeof(float));
        host_burn.stream = spec->stream_bytes >= 2 ? malloc((size_t)spec->stream_bytes) : NULL;
        if (host_burn.a == NULL || (spec->stream_bytes >= 2 && host_burn.stream == NULL))
            status = sc_err_set(err, SC_ERR_NOMEM,
                                "%s: burn: no memory for %d^3 products and a %.0f-byte stream", who,
                                spec->size, spec->stream_bytes);
    }
    if (status == SC_OK) {
        host_burn.b = host_burn.a + n2;
        host_burn.c = host_burn.b + n2;
        for (size_t i = 0; i < 2 * n2; i++) /* values in [-1, 1): never the zeros of a skip */
            host_burn.a[i] = (float)((i * 2654435761u) % 2048) / 1024.0f - 1.0f;
        if (host_burn.stream != NULL)
            memset(host_burn.stream, 0x5a, (size_t)spec->stream_bytes);
        host_burn.products = host_burn.copies = 0;
        atomic_store(&host_burn.stop, 0);
        host_burn.started_ns = sc_clock_ns();
        if (pthread_create(&host_burn.thread, NULL, host_burn__main, NULL) != 0)
            status = sc_err_set(err, SC_ERR_RUNTIME, "%s: burn: cannot start its thread", who);
    }
    host_burn.running = status == SC_OK;
    if (status != SC_OK)
        host_burn__free();
    pthread_mutex_unlock(&host_burn.lock);
    return status;
}

void sc_compute_host_burn_stop(sc_burn_result_t *out)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&host_burn.lock);
    if (host_burn.running) {
        atomic_store(&host_burn.stop, 1);
        pthread_join(host_burn.thread, NULL); /* after the product in flight */
        double s = (double)(host_burn.stopped_ns - host_burn.started_ns) * 1e-9,
               n = (double)host_burn.spec.size;
        out->seconds = s;
        out->products = host_burn.products;
        out->tflops = s > 0 ? 2.0 * n * n * n * (double)host_burn.products / s / 1e12 : 0;
        out->memory_GBps =
            s > 0 ? (double)host_burn.copies * host_burn.spec.stream_bytes / s / 1e9 : 0;
        host_burn.running = false;
        host_burn__free();
    }
    pthread_mutex_unlock(&host_burn.lock);
}
