/* sc_pairs_looks.c - the rules the later looks of pairs and of the bisect search share: the
 * pause before a round, whether a round counts (its control held), and the figures the test-only
 * faults make read. */
#include <time.h>

#include "pairs/sc_pairs_core.h"
#include "util/sc_defaults.h"

/* What a planted fault takes off a figure: far past a host's own noise - on 16 ranks over 2
 * cores, healthy groups' figures stood 30x apart, and a planted 50x slowdown read as healthy. */
#define PAIRS__FAULT_FACTOR 1000.0

double sc_pairs_faulted(const sc_pairs_run_t *x, bool involves_slow, double gbps)
{
    if (x->look_round == 0 && involves_slow)
        return gbps / PAIRS__FAULT_FACTOR;
    if (x->look_round > 0 && x->look_round <= x->fault_busy_looks)
        return gbps / PAIRS__FAULT_FACTOR;
    return gbps;
}

bool sc_pairs_may_excuse(const sc_pairs_run_t *x)
{
    return x->busy_rounds < x->o->looks - 1;
}

bool sc_pairs_round_counts(sc_pairs_run_t *x, double fresh, double kept)
{
    bool held = fresh >= SC_DEFAULT_PAIRS_CONTROL_HOLD * kept;
    x->busy_rounds += !held;
    return held;
}

/* A round's pause: 0.25 s, then twice as long each round, at most 2 s. */
void sc_pairs_pause(int round)
{
    long pause_ns = round < 3 ? 250000000L << round : 2000000000L;
    struct timespec nap = {.tv_sec = pause_ns / 1000000000L, .tv_nsec = pause_ns % 1000000000L};
    nanosleep(&nap, NULL);
}
