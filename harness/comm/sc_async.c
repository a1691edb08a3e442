#include "comm/sc_async.h"

#include <sched.h>

#include "util/sc_clock.h"

static double sc_async__since(uint64_t start_ns)
{
    return (double)(sc_clock_ns() - start_ns) * 1e-9;
}

sc_split_outcome_t sc_split_wait(const sc_split_probe_t *probe, bool expect_child, double timeout_s,
                                 void **child)
{
    uint64_t start = sc_clock_ns();
    *child = NULL;
    for (;;) {
        sc_async_state_t parent = probe->parent_state(probe->ctx);
        if (parent == SC_ASYNC_FAILED)
            return SC_SPLIT_PARENT_FAILED;
        if (parent == SC_ASYNC_DONE && !expect_child)
            return SC_SPLIT_NO_CHILD;
        if (*child == NULL)
            *child = probe->child(probe->ctx);
        if (*child != NULL) {
            sc_async_state_t own = probe->child_state(probe->ctx, *child);
            if (own == SC_ASYNC_FAILED)
                return SC_SPLIT_CHILD_FAILED;
            if (own == SC_ASYNC_DONE && parent == SC_ASYNC_DONE)
                return SC_SPLIT_READY;
        }
        if (sc_async__since(start) > timeout_s)
            return SC_SPLIT_TIMEOUT;
        sched_yield();
    }
}
