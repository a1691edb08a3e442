/* fake_load.h - how busy each emulated GPU has been, shared between the processes that run its
 * work (the fake cuBLAS adds each product's device time) and the fake NVML (which heats a GPU by
 * it): FAKE_GPU_LOAD names a file of FAKE_LOAD_GPUS counters of busy nanoseconds, mapped shared.
 * Without FAKE_GPU_LOAD nothing is counted and the GPUs stay at rest. */
#ifndef FAKE_LOAD_H
#define FAKE_LOAD_H

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define FAKE_LOAD_GPUS 64

static uint64_t *fake_load__mapped;

static inline void fake_load__map(void)
{
    const char *path = getenv("FAKE_GPU_LOAD");
    int fd = path != NULL && path[0] ? open(path, O_RDWR | O_CREAT, 0600) : -1;
    size_t bytes = FAKE_LOAD_GPUS * sizeof(uint64_t);
    if (fd >= 0 && ftruncate(fd, (off_t)bytes) == 0) {
        void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        fake_load__mapped = m == MAP_FAILED ? NULL : (uint64_t *)m;
    }
    if (fd >= 0)
        close(fd);
}

/* The counters (NULL without FAKE_GPU_LOAD or when the file cannot be mapped); mapped once. */
static inline uint64_t *fake_load_counters(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fake_load__map);
    return fake_load__mapped;
}

static inline void fake_load_add(int gpu, uint64_t ns)
{
    uint64_t *c = fake_load_counters();
    if (c != NULL && gpu >= 0 && gpu < FAKE_LOAD_GPUS)
        __atomic_fetch_add(&c[gpu], ns, __ATOMIC_RELAXED);
}

static inline uint64_t fake_load_busy_ns(int gpu)
{
    uint64_t *c = fake_load_counters();
    return c != NULL && gpu >= 0 && gpu < FAKE_LOAD_GPUS
               ? __atomic_load_n(&c[gpu], __ATOMIC_RELAXED)
               : 0;
}

/* How a device heats with its load, for the management libraries' stand-ins (NVML, DCMI): each
 * one's utilisation over the last interval, and its temperature moving toward 35 C + rise_c x
 * that utilisation with time constant tau_s. At most every 20 ms, so that the queries of one
 * sample see one state. */
static struct {
    double t_s, busy_s, temp_c, util;
    int started;
} fake_heat[FAKE_LOAD_GPUS];

static inline double fake_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline void fake_heat_update(unsigned g, double rise_c, double tau_s)
{
    double now = fake_now(), busy = (double)fake_load_busy_ns((int)g) * 1e-9;
    if (g >= FAKE_LOAD_GPUS)
        return;
    if (!fake_heat[g].started) {
        fake_heat[g].started = 1;
        fake_heat[g].t_s = now;
        fake_heat[g].busy_s = busy;
        fake_heat[g].temp_c = 35.0;
        return;
    }
    double dt = now - fake_heat[g].t_s;
    if (dt < 0.02)
        return;
    double u = (busy - fake_heat[g].busy_s) / dt;
    fake_heat[g].util = u < 0 ? 0 : u > 1 ? 1 : u;
    double target = 35.0 + rise_c * fake_heat[g].util;
    fake_heat[g].temp_c +=
        (target - fake_heat[g].temp_c) * (1.0 - exp(-dt / (tau_s > 0 ? tau_s : 1)));
    fake_heat[g].t_s = now;
    fake_heat[g].busy_s = busy;
}

#endif
