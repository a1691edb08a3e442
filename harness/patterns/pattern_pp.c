/* pattern_pp.c - pipeline schedules. GPipe: every micro-batch forward, then every backward.
 * 1F1B (PipeDream-flush, Megatron's default): stage p first runs pp - p - 1 forwards, then
 * alternates one forward and one backward, then drains the backwards - the same bubble as GPipe
 * with at most pp micro-batches of activations in flight. */
#include "sc_pattern.h"

int sc_pattern_pp_schedule(int schedule, int p, int pp, int m, int *actions)
{
    int n = 0;
    if (schedule == SC_SCHEDULE_GPIPE) {
        for (int mb = 0; mb < m; mb++)
            actions[n++] = mb;
        for (int mb = 0; mb < m; mb++)
            actions[n++] = -mb - 1;
        return n;
    }
    int warmup = pp - p - 1 < m ? pp - p - 1 : m;
    int forward = 0, backward = 0;
    while (forward < warmup)
        actions[n++] = forward++;
    while (forward < m) {
        actions[n++] = forward++;
        actions[n++] = -(backward++) - 1;
    }
    while (backward < m)
        actions[n++] = -(backward++) - 1;
    return n;
}
