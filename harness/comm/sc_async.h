/* sc_async.h - two waits of the GPU path, in plain C so that unit tests drive them with fakes:
 *
 * - sc_split_wait: a split of a non-blocking NCCL communicator returns at once while the child
 *   is still being made; NCCL stores the child handle only when the split completes, and the
 *   child itself may still be initialising then. The wait polls both, bounded.
 * - sc_gate: holds a stream at a host function until the host opens it, so that a start event
 *   recorded behind the gate runs only once the operation it times is already queued: NCCL
 *   launches a non-blocking communicator's work from a thread that ncclGroupEnd starts, and an
 *   event recorded before that launch would time the thread's start-up as device time. */
#ifndef SC_ASYNC_H
#define SC_ASYNC_H

#include <pthread.h>
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

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t passes; /* host functions that reached the gate */
    uint64_t opened; /* gates the host opened */
    uint64_t timeouts;
    double timeout_s;
} sc_gate_t;

int sc_gate_init(sc_gate_t *gate, double timeout_s);
void sc_gate_destroy(sc_gate_t *gate);
/* The stream's host function: the n-th pass waits until the host opened the gate n times, at
 * most timeout_s (then it lets the stream go on and counts a timeout). Returns 0 when opened. */
int sc_gate_pass(sc_gate_t *gate);
/* Opens the gate once: the pass that waits (or the next one to come) goes on. */
void sc_gate_open(sc_gate_t *gate);
/* Opens every gate, now and later (closing a communicator). */
void sc_gate_open_all(sc_gate_t *gate);
/* Passes that timed out since the last call (their device times are not trustworthy). */
uint64_t sc_gate_take_timeouts(sc_gate_t *gate);

#endif
