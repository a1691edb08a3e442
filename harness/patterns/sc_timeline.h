/* sc_timeline.h - every rank's timeline of a run's steps (`run --trace`): each operation of the
 * step - compute phase, collective, wait, send or receive - with when it began and ended on the
 * rank's own clock, on the track of its stream or group (compute, TP, DP, PP, expert). Bounded
 * for long runs: of the timed steps only the slowest few and a sample of the others are kept.
 * The clocks are brought to rank 0's: each rank's offset is estimated at the start and at the
 * end of the point (the best of a few round trips, Cristian's method) and the drift between the
 * two interpolated. */
#ifndef SC_TIMELINE_H
#define SC_TIMELINE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sc_status.h"

enum { SC_TRACK_COMPUTE = 0 }; /* then 1 + sc_plan_group_t: TP, PP, DP, EP */
/* The most events a rank keeps of a point (about 40 bytes each in the trace): a deep model's
 * step has thousands of operations a rank, and the trace must stay one a viewer opens. */
#define SC_TIMELINE_MAX_EVENTS 20000
#define SC_TRACKS              5

typedef struct {
    double t0_us, t1_us; /* rank 0's realtime clock, microseconds (after the gather) */
    double bytes;        /* what the plan sizes it (0: compute) */
    int32_t track;       /* SC_TRACK_COMPUTE or 1 + sc_plan_group_t */
    int32_t what;        /* sc_plan_op_index, -1 for a compute phase */
    int32_t step;        /* the timed step, from 0 */
    int32_t rank;        /* world rank */
} sc_tl_event_t;

typedef struct sc_timeline sc_timeline_t;

/* A timeline for this rank (world rank rank) of steps timed steps: the keep_slowest slowest and
 * keep_sampled spread over the rest. NULL without memory. */
sc_timeline_t *sc_timeline_new(int rank, int steps, int keep_slowest, int keep_sampled);
void sc_timeline_free(sc_timeline_t *tl);
/* The clocks against rank 0's on control (collective): at the point's start and at its end. */
sc_status_t sc_timeline_sync(sc_timeline_t *tl, MPI_Comm control, sc_err_t *err);
/* A timed step begins; an operation of it (realtime ns); the step ended after step_ms. */
void sc_timeline_step(sc_timeline_t *tl, int step);
void sc_timeline_add(sc_timeline_t *tl, int track, int what, double bytes, uint64_t t0_ns,
                     uint64_t t1_ns);
void sc_timeline_step_end(sc_timeline_t *tl, double step_ms);
/* Every rank's kept events to control's rank 0, on its clock: *out (malloc'd, *n of them) there,
 * NULL elsewhere. Collective; after the second sync. */
sc_status_t sc_timeline_gather(sc_timeline_t *tl, MPI_Comm control, sc_tl_event_t **out, size_t *n,
                               sc_err_t *err);
/* The realtime clock in ns. */
uint64_t sc_timeline_now_ns(void);

#endif
