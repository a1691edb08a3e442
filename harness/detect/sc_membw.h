/* sc_membw.h - host memory bandwidth per NUMA node (hwloc): each node's memory copied by its own
 * cores at once, as STREAM's copy counts it (bytes read plus bytes written a second). A BIOS
 * setting that halves one socket's bandwidth shows as one node below the others. */
#ifndef SC_MEMBW_H
#define SC_MEMBW_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int node;       /* hwloc's logical index of the NUMA node */
    int threads;    /* the cores that copied */
    double GBps;    /* the best of the trials */
    char cpus[128]; /* the node's CPUs, a list ("0-55,112-167") */
} sc_membw_t;

/* Measures every NUMA node (at most max): bytes copied a thread, trials times (the best kept),
 * at most max_threads cores a node. Returns how many nodes were measured (0: hwloc could not
 * read this host; *why says so). */
int sc_membw_per_node(size_t bytes, int trials, int max_threads, sc_membw_t *out, int max,
                      char *why, size_t why_len);

/* The NUMA nodes with CPUs hwloc sees here (their logical indexes into nodes, at most max): how
 * many; 0 when it cannot read the host. */
int sc_membw_nodes(int *nodes, int max);
/* Binds the calling thread's memory to NUMA node (hwloc's logical index): what it allocates and
 * touches next lands there - pinned host memory among it. false when the node is not there.
 * node -1: the default policy again. */
bool sc_membw_bind_thread(int node);

#endif
