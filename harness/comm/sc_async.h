/* sc_async.h - a wait of the GPU path, in plain C so that unit tests drive it with fakes:
 * sc_split_wait: a split of a non-blocking NCCL communicator returns at once while the child
 *   is still being made; NCCL stores the child handle only when the split completes, and the
 *   child itself may still be initialising then. The wait polls both, bounded.
 */
#ifndef SC_ASYNC_H
#define SC_ASYNC_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { SC_ASYNC_DONE, SC_ASYNC_PENDING, SC_ASYNC_FAILED } sc_async_state_t;

typedef struct {
    sc_async_state_t (*parent_state)(void *ctx);             /* the parent's asynchronous state */
    void *(*child)(void *ctx);                               /* NULL until the split stores it */
    sc_async_state_t (*child_state)(void *ctx, void *child); /* the child's own state */
    void *ctx;
} sc_split_probe_t;

typedef enum {
    SC_SPLIT_READY,         /* *child is usable */
    SC_SPLIT_NO_CHILD,      /* this rank asked for no child (no colour), and the parent is done */
    SC_SPLIT_PARENT_FAILED, /* the parent reported an error */
    SC_SPLIT_CHILD_FAILED,  /* the child reported an error (*child is set: abort it) */
    SC_SPLIT_TIMEOUT,       /* timeout_s passed first (*child may be set: abort it) */
} sc_split_outcome_t;

/* Polls until the split is complete (expect_child: until the child exists and is initialised;
 * else until the parent is idle), yielding the core between polls, at most timeout_s. */
sc_split_outcome_t sc_split_wait(const sc_split_probe_t *probe, bool expect_child, double timeout_s,
                                 void **child);

#endif
