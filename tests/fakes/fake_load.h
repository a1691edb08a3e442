/* fake_load.h - how busy each emulated GPU has been, shared between the processes that run its
 * work (the fake cuBLAS adds each product's device time) and the fake NVML (which heats a GPU by
 * it): FAKE_GPU_LOAD names a file of FAKE_LOAD_GPUS counters of busy nanoseconds, mapped shared.
 * Without FAKE_GPU_LOAD nothing is counted and the GPUs stay at rest. */
#ifndef FAKE_LOAD_H
#define FAKE_LOAD_H

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
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

#endif
