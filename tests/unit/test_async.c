/* The GPU path's split wait, driven by fakes: a split that is "in progress, then done" (the
 * parent busy for a while, the child handle stored late, the child still initialising), the
 * outcomes of errors, a rank without a colour and a split that never ends. (The whole path runs
 * on the emulated device: tests/fakes.) */
#include <unistd.h>

#include "comm/sc_async.h"
#include "sc_test.h"
#include "util/sc_clock.h"

typedef struct {
    int polls;         /* parent polls so far */
    int parent_busy;   /* the parent reports PENDING for this many polls (-1: for ever) */
    int child_after;   /* the child handle appears at this parent poll */
    int child_busy;    /* the child reports PENDING this many times */
    bool parent_fails; /* the parent reports FAILED once it stops being busy */
    bool child_fails;  /* the child reports FAILED once it stops being busy */
    int child_polls;
    int handle; /* what the child pointer points at */
} fake_split_t;

static sc_async_state_t fake_parent(void *ctx)
{
    fake_split_t *f = ctx;
    f->polls++;
    if (f->parent_busy < 0 || f->polls <= f->parent_busy)
        return SC_ASYNC_PENDING;
    return f->parent_fails ? SC_ASYNC_FAILED : SC_ASYNC_DONE;
}

static void *fake_child(void *ctx)
{
    fake_split_t *f = ctx;
    return f->polls >= f->child_after ? &f->handle : NULL;
}

/* the signature is sc_split_probe_t's */
// cppcheck-suppress constParameter
static sc_async_state_t fake_child_state(void *ctx, void *child)
{
    fake_split_t *f = ctx;
    SC_EXPECT(child == &f->handle);
    if (++f->child_polls <= f->child_busy)
        return SC_ASYNC_PENDING;
    return f->child_fails ? SC_ASYNC_FAILED : SC_ASYNC_DONE;
}

static sc_split_outcome_t run_split(fake_split_t *f, bool expect_child, double timeout_s,
                                    void **child)
{
    sc_split_probe_t probe = {fake_parent, fake_child, fake_child_state, f};
    return sc_split_wait(&probe, expect_child, timeout_s, child);
}

static void check_split(void)
{
    void *child = NULL;
    /* In progress, then done: the handle appears at poll 5, the child initialises 3 polls more. */
    fake_split_t f = {.parent_busy = 3, .child_after = 5, .child_busy = 3};
    SC_EXPECT(run_split(&f, true, 5.0, &child) == SC_SPLIT_READY);
    SC_EXPECT(child == &f.handle);
    SC_EXPECT(f.polls >= 8); /* not before the handle appeared and the child was ready */
    /* The parent idle but the handle not yet stored: still wait for it. */
    f = (fake_split_t){.parent_busy = 0, .child_after = 20};
    SC_EXPECT(run_split(&f, true, 5.0, &child) == SC_SPLIT_READY);
    SC_EXPECT(f.polls == 20);
    /* No colour: done when the parent is, with no child. */
    f = (fake_split_t){.parent_busy = 2, .child_after = 1000000};
    SC_EXPECT(run_split(&f, false, 5.0, &child) == SC_SPLIT_NO_CHILD);
    SC_EXPECT(child == NULL && f.polls == 3);
    /* Errors, from the parent and from the child. */
    f = (fake_split_t){.parent_busy = 2, .parent_fails = true, .child_after = 1000000};
    SC_EXPECT(run_split(&f, true, 5.0, &child) == SC_SPLIT_PARENT_FAILED);
    f = (fake_split_t){.child_after = 1, .child_busy = 2, .child_fails = true};
    SC_EXPECT(run_split(&f, true, 5.0, &child) == SC_SPLIT_CHILD_FAILED);
    SC_EXPECT(child == &f.handle);
    /* A split that never completes ends at the bound. */
    f = (fake_split_t){.parent_busy = -1, .child_after = 1000000};
    uint64_t t0 = sc_clock_ns();
    SC_EXPECT(run_split(&f, true, 0.05, &child) == SC_SPLIT_TIMEOUT);
    double waited = (double)(sc_clock_ns() - t0) * 1e-9;
    SC_EXPECT(waited >= 0.05 && waited < 2.0);
}

int main(void)
{
    check_split();
    return sc_test_done("test_async");
}
