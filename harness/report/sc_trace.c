/* sc_trace.c - the Trace Event Format writer (sc_trace.h). Times are microseconds from the
 * trace's first event, so that a viewer opens on the run, not at 1970 plus 56 years. */
#include "report/sc_trace.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan/sc_plan.h"
#include "util/sc_files.h"

static const char *const trace__tracks[SC_TRACKS] = {"compute", "TP", "PP", "DP", "expert"};

typedef struct {
    const sc_trace_point_t *points;
    int npoints, ranks;
    const char (*hosts)[SC_HOST_MAX];
} trace__ctx_t;

/* A JSON string's content (names and hosts are plain, but a host name is the user's). */
static void trace__text(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
}

/* The names of the ranks seen and of the tracks they used ("M" events). */
static void trace__names(FILE *out, const trace__ctx_t *x, bool *first)
{
    for (int r = 0; r < x->ranks; r++) {
        bool used[SC_TRACKS] = {false}, any = false;
        for (int p = 0; p < x->npoints; p++)
            for (size_t i = 0; i < x->points[p].n; i++)
                if (x->points[p].events[i].rank == r && x->points[p].events[i].track >= 0 &&
                    x->points[p].events[i].track < SC_TRACKS)
                    any = used[x->points[p].events[i].track] = true;
        if (!any)
            continue;
        fprintf(out,
                "%s\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"rank "
                "%d (host ",
                *first ? "" : ",", r, r);
        trace__text(out, x->hosts != NULL ? x->hosts[r] : "?");
        fprintf(out,
                ")\"}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_"
                "index\":%d}}",
                r, r);
        *first = false;
        for (int t = 0; t < SC_TRACKS; t++)
            if (used[t])
                fprintf(out,
                        ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{"
                        "\"name\":\"%s\"}}",
                        r, t, trace__tracks[t]);
    }
}

static int trace__write(FILE *out, void *arg)
{
    const trace__ctx_t *x = arg;
    double base = INFINITY;
    for (int p = 0; p < x->npoints; p++)
        for (size_t i = 0; i < x->points[p].n; i++)
            base = x->points[p].events[i].t0_us < base ? x->points[p].events[i].t0_us : base;
    fprintf(out, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"scalecheck run --trace\"},"
                 "\"traceEvents\":[");
    bool first = true;
    trace__names(out, x, &first);
    for (int p = 0; p < x->npoints; p++)
        for (size_t i = 0; i < x->points[p].n; i++) {
            const sc_tl_event_t *e = &x->points[p].events[i];
            if (e->track < 0 || e->track >= SC_TRACKS)
                continue;
            const char *name = e->track == SC_TRACK_COMPUTE ? "compute"
                               : e->what < 0                ? "wait"
                                                            : sc_plan_op_index_name(e->what);
            double dur = e->t1_us - e->t0_us;
            fprintf(out,
                    "%s\n{\"ph\":\"X\",\"name\":\"%s %s\",\"pid\":%d,\"tid\":%d,"
                    "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"bytes\":%.0f,\"step\":%d,\"point\":\"",
                    first ? "" : ",", trace__tracks[e->track], name, e->rank, e->track,
                    e->t0_us - base, dur > 0 ? dur : 0, e->bytes, e->step);
            trace__text(out, x->points[p].label);
            fputs("\"}}", out);
            first = false;
        }
    fputs("\n]}\n", out);
    return ferror(out);
}

sc_status_t sc_trace_write(const char *path, const sc_trace_point_t *points, int npoints,
                           const char (*rank_hosts)[SC_HOST_MAX], int ranks, sc_err_t *err)
{
    trace__ctx_t x = {points, npoints, ranks, rank_hosts};
    return sc_files_write_text(path, trace__write, &x, err);
}
