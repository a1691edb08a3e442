/* sc_trace.h - `run --trace FILE`: the ranks' step timelines (patterns/sc_timeline.h) in the
 * Trace Event Format that Chrome's about:tracing and Perfetto (ui.perfetto.dev) open - the JSON
 * object form: "traceEvents", each event with its phase (ph), microsecond timestamps (ts, dur),
 * a process (pid) per rank named "rank R (host H)" and a thread (tid) per track named compute,
 * TP, PP, DP or expert ("M" metadata events), each operation a complete event ("X") named for
 * its kind, with its size, step and point in args. */
#ifndef SC_TRACE_H
#define SC_TRACE_H

#include <stddef.h>

#include "patterns/sc_timeline.h"
#include "record/sc_record.h"

/* One point's events (rank 0's clock) and its words ("8 GPUs x 1 node"). */
typedef struct {
    char label[64];
    sc_tl_event_t *events;
    size_t n;
} sc_trace_point_t;

/* Writes the points' timelines to path (whole or not at all), the ranks named by their hosts
 * (rank_hosts: ranks names). */
sc_status_t sc_trace_write(const char *path, const sc_trace_point_t *points, int npoints,
                           const char (*rank_hosts)[SC_HOST_MAX], int ranks, sc_err_t *err);

#endif
