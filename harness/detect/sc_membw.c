/* sc_membw.c - host memory bandwidth per NUMA node (sc_membw.h). */
#include "detect/sc_membw.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "util/sc_clock.h"

#define MEMBW__THREADS 64

typedef struct {
    hwloc_topology_t topo;
    hwloc_const_cpuset_t core; /* where this thread runs */
    hwloc_const_nodeset_t nodeset;
    size_t bytes;
    int trials;
    pthread_barrier_t *start, *end;
    int failed;
} membw__thread_t;

/* A NUMA node with CPUs: not memory alone (a GPU's, CXL). */
static bool membw__host_node(hwloc_obj_t node)
{
    return node != NULL && node->cpuset != NULL && !hwloc_bitmap_iszero(node->cpuset);
}

/* One copier: bound to its core, its buffers bound to the node and touched, then one copy per
 * trial between the two barriers. */
static void *membw__copier(void *arg)
{
    membw__thread_t *m = arg;
    hwloc_set_cpubind(m->topo, m->core, HWLOC_CPUBIND_THREAD);
    char *src = hwloc_alloc_membind(m->topo, m->bytes, m->nodeset, HWLOC_MEMBIND_BIND,
                                    HWLOC_MEMBIND_BYNODESET);
    char *dst = hwloc_alloc_membind(m->topo, m->bytes, m->nodeset, HWLOC_MEMBIND_BIND,
                                    HWLOC_MEMBIND_BYNODESET);
    m->failed = src == NULL || dst == NULL;
    if (!m->failed) {
        memset(src, 1, m->bytes);
        memset(dst, 2, m->bytes);
    }
    for (int t = 0; t < m->trials; t++) {
        pthread_barrier_wait(m->start);
        if (!m->failed)
            memcpy(dst, src, m->bytes);
        pthread_barrier_wait(m->end);
    }
    if (src != NULL)
        hwloc_free(m->topo, src, m->bytes);
    if (dst != NULL)
        hwloc_free(m->topo, dst, m->bytes);
    return NULL;
}

/* One node: its cores (at most max_threads) copy at once; the best trial's GB/s. */
static double membw__node(hwloc_topology_t topo, hwloc_obj_t node, size_t bytes, int trials,
                          int max_threads, int *threads)
{
    membw__thread_t m[MEMBW__THREADS];
    pthread_t ids[MEMBW__THREADS];
    int n = 0;
    int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    for (int c = 0; c < cores && n < max_threads && n < MEMBW__THREADS; c++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
        if (core != NULL && hwloc_bitmap_isincluded(core->cpuset, node->cpuset))
            m[n++] = (membw__thread_t){.topo = topo,
                                       .core = core->cpuset,
                                       .nodeset = node->nodeset,
                                       .bytes = bytes,
                                       .trials = trials};
    }
    *threads = n;
    if (n == 0)
        return 0;
    pthread_barrier_t start, end;
    pthread_barrier_init(&start, NULL, (unsigned)n + 1);
    pthread_barrier_init(&end, NULL, (unsigned)n + 1);
    int started = 0;
    for (int i = 0; i < n; i++) {
        m[i].start = &start;
        m[i].end = &end;
        started += pthread_create(&ids[i], NULL, membw__copier, &m[i]) == 0;
    }
    double best = 0;
    for (int t = 0; t < trials && started == n; t++) {
        pthread_barrier_wait(&start);
        uint64_t t0 = sc_clock_ns();
        pthread_barrier_wait(&end);
        double s = (double)(sc_clock_ns() - t0) * 1e-9;
        double GBps = s > 0 ? 2.0 * (double)bytes * n / s * 1e-9 : 0;
        best = GBps > best ? GBps : best;
    }
    for (int i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&end);
    for (int i = 0; i < n; i++)
        best = m[i].failed ? 0 : best;
    return started == n ? best : 0;
}

int sc_membw_per_node(size_t bytes, int trials, int max_threads, sc_membw_t *out, int max,
                      char *why, size_t why_len)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
        snprintf(why, why_len, "hwloc cannot read this host's topology");
        return 0;
    }
    int nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), n = 0;
    for (int i = 0; i < nodes && n < max; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (!membw__host_node(node))
            continue; /* memory without CPUs (a GPU's or CXL memory): not a host node */
        sc_membw_t *r = &out[n];
        memset(r, 0, sizeof(*r));
        r->node = (int)node->logical_index;
        hwloc_bitmap_list_snprintf(r->cpus, sizeof(r->cpus), node->cpuset);
        r->GBps = membw__node(topo, node, bytes, trials, max_threads, &r->threads);
        n++;
    }
    hwloc_topology_destroy(topo);
    if (n == 0)
        snprintf(why, why_len, "hwloc shows no NUMA node with CPUs");
    return n;
}

int sc_membw_nodes(int *nodes, int max)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
        return 0;
    int n = 0, all = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < all && n < max; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (membw__host_node(node))
            nodes[n++] = (int)node->logical_index;
    }
    hwloc_topology_destroy(topo);
    return n;
}

bool sc_membw_bind_thread(int node)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
        return false;
    hwloc_obj_t obj = node >= 0 ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)node)
                                : hwloc_get_root_obj(topo);
    bool bound =
        obj != NULL && hwloc_set_membind(topo, obj->nodeset,
                                         node >= 0 ? HWLOC_MEMBIND_BIND : HWLOC_MEMBIND_DEFAULT,
                                         HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET) == 0;
    hwloc_topology_destroy(topo);
    return bound;
}
