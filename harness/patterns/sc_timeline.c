/* sc_timeline.c - the ranks' step timelines (sc_timeline.h). */
#include "patterns/sc_timeline.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TL__ROUNDS 8 /* round trips per offset estimate: the fastest is kept */

/* One kept step's events. */
typedef struct {
    int step;
    double ms;
    sc_tl_event_t *events;
    size_t n, cap;
} tl__step_t;

struct sc_timeline {
    int rank, steps, keep_slowest, keep_sampled;
    tl__step_t current;
    tl__step_t *kept; /* keep_slowest + keep_sampled slots */
    int nkept;
    /* this rank's clock less rank 0's (us) at two moments of this rank's clock (us) */
    double offset[2], at[2];
    int synced;
};

/* ns of the realtime clock as us, without losing the fraction to a double's 53 bits. */
static double tl__us(uint64_t ns)
{
    return (double)(ns / 1000) + (double)(ns % 1000) * 1e-3;
}

uint64_t sc_timeline_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

sc_timeline_t *sc_timeline_new(int rank, int steps, int keep_slowest, int keep_sampled)
{
    sc_timeline_t *tl = calloc(1, sizeof(*tl));
    if (tl == NULL)
        return NULL;
    tl->kept = calloc((size_t)(keep_slowest + keep_sampled), sizeof(*tl->kept));
    if (tl->kept == NULL) {
        free(tl);
        return NULL;
    }
    *tl = (sc_timeline_t){.rank = rank,
                          .steps = steps,
                          .keep_slowest = keep_slowest,
                          .keep_sampled = keep_sampled,
                          .current = {.step = -1},
                          .kept = tl->kept};
    return tl;
}

static void tl__step_free(tl__step_t *s)
{
    free(s->events);
    *s = (tl__step_t){0};
}

void sc_timeline_free(sc_timeline_t *tl)
{
    if (tl == NULL)
        return;
    for (int i = 0; i < tl->nkept; i++)
        tl__step_free(&tl->kept[i]);
    tl__step_free(&tl->current);
    free(tl->kept);
    free(tl);
}

/* This rank's clock less rank 0's (ns), from the fastest of a few round trips: rank 0 sends, the
 * rank answers with its clock, which read at the middle of the trip. */
static double tl__offset(MPI_Comm control, int peer, int me)
{
    double best_rtt = INFINITY, offset = 0;
    for (int i = 0; i < TL__ROUNDS; i++) {
        if (me == 0) {
            uint64_t theirs = 0, t0 = sc_timeline_now_ns();
            MPI_Send(&t0, 1, MPI_UINT64_T, peer, 71, control);
            MPI_Recv(&theirs, 1, MPI_UINT64_T, peer, 72, control, MPI_STATUS_IGNORE);
            uint64_t t1 = sc_timeline_now_ns();
            double rtt = (double)(t1 - t0);
            if (rtt < best_rtt) {
                best_rtt = rtt;
                offset = (double)((int64_t)theirs - (int64_t)t0) - rtt / 2;
            }
        } else {
            uint64_t ping = 0;
            MPI_Recv(&ping, 1, MPI_UINT64_T, 0, 71, control, MPI_STATUS_IGNORE);
            uint64_t now = sc_timeline_now_ns();
            MPI_Send(&now, 1, MPI_UINT64_T, 0, 72, control);
        }
    }
    return offset;
}

sc_status_t sc_timeline_sync(sc_timeline_t *tl, MPI_Comm control, sc_err_t *err)
{
    int me = 0, n = 1;
    MPI_Comm_rank(control, &me);
    MPI_Comm_size(control, &n);
    double mine = 0;
    for (int r = 1; r < n; r++) {
        double off = 0;
        if (me == 0 || me == r)
            off = tl__offset(control, r, me);
        if (me == 0) /* rank 0 tells each rank its offset */
            MPI_Send(&off, 1, MPI_DOUBLE, r, 73, control);
        else if (me == r)
            MPI_Recv(&mine, 1, MPI_DOUBLE, 0, 73, control, MPI_STATUS_IGNORE);
    }
    if (tl != NULL && tl->synced < 2) {
        tl->offset[tl->synced] = mine * 1e-3;
        tl->at[tl->synced] = tl__us(sc_timeline_now_ns());
        tl->synced++;
    }
    (void)err;
    return SC_OK;
}

/* t (this rank's clock, us) on rank 0's: the offset interpolated between the two estimates. */
static double tl__to_rank0(const sc_timeline_t *tl, double t)
{
    if (tl->synced < 2 || tl->at[1] <= tl->at[0])
        return t - tl->offset[0];
    double drift = (tl->offset[1] - tl->offset[0]) / (tl->at[1] - tl->at[0]);
    return t - (tl->offset[0] + drift * (t - tl->at[0]));
}

void sc_timeline_step(sc_timeline_t *tl, int step)
{
    if (tl == NULL)
        return;
    tl->current.n = 0;
    tl->current.step = step;
}

void sc_timeline_add(sc_timeline_t *tl, int track, int what, double bytes, uint64_t t0_ns,
                     uint64_t t1_ns)
{
    if (tl == NULL || tl->current.step < 0)
        return;
    tl__step_t *s = &tl->current;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        sc_tl_event_t *grown = realloc(s->events, cap * sizeof(*grown));
        if (grown == NULL)
            return; /* a trace with an event less, never a failed run */
        s->events = grown;
        s->cap = cap;
    }
    s->events[s->n++] = (sc_tl_event_t){.t0_us = tl__us(t0_ns),
                                        .t1_us = tl__us(t1_ns),
                                        .bytes = bytes,
                                        .track = track,
                                        .what = what,
                                        .step = s->step,
                                        .rank = tl->rank};
}

/* Whether step (of steps) is one of the sampled ones: keep_sampled spread evenly. */
static bool tl__sampled(const sc_timeline_t *tl, int step)
{
    if (tl->keep_sampled <= 0)
        return false;
    int every = tl->steps / tl->keep_sampled;
    return every <= 1 || step % every == 0;
}

void sc_timeline_step_end(sc_timeline_t *tl, double step_ms)
{
    if (tl == NULL)
        return;
    tl->current.ms = step_ms;
    size_t held = 0;
    for (int i = 0; i < tl->nkept; i++)
        held += tl->kept[i].n;
    int slot = -1;
    if (held + tl->current.n > SC_TIMELINE_MAX_EVENTS) {
        /* full: only in place of a kept step, further down */
    } else if (tl->nkept < tl->keep_slowest + tl->keep_sampled &&
               (tl->nkept < tl->keep_slowest || tl__sampled(tl, tl->current.step)))
        slot = tl->nkept++;
    else { /* in place of the fastest kept that was kept for being slow, if this one is slower */
        for (int i = 0; i < tl->nkept; i++)
            if (!tl__sampled(tl, tl->kept[i].step) && tl->kept[i].ms < step_ms &&
                (slot < 0 || tl->kept[i].ms < tl->kept[slot].ms))
                slot = i;
        if (slot >= 0)
            tl__step_free(&tl->kept[slot]);
    }
    if (slot < 0)
        return;
    tl->kept[slot] = tl->current;
    tl->current = (tl__step_t){.step = -1};
}

sc_status_t sc_timeline_gather(sc_timeline_t *tl, MPI_Comm control, sc_tl_event_t **out, size_t *n,
                               sc_err_t *err)
{
    *out = NULL;
    *n = 0;
    int me = 0, size = 1;
    MPI_Comm_rank(control, &me);
    MPI_Comm_size(control, &size);
    int mine = 0;
    for (int i = 0; tl != NULL && i < tl->nkept; i++)
        mine += (int)tl->kept[i].n;
    sc_tl_event_t *send = malloc(((size_t)mine + 1) * sizeof(*send));
    int k = 0;
    for (int i = 0; send != NULL && tl != NULL && i < tl->nkept; i++)
        for (size_t j = 0; j < tl->kept[i].n; j++) {
            sc_tl_event_t e = tl->kept[i].events[j];
            e.t0_us = tl__to_rank0(tl, e.t0_us);
            e.t1_us = tl__to_rank0(tl, e.t1_us);
            send[k++] = e;
        }
    int bytes = k * (int)sizeof(sc_tl_event_t);
    int *counts = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    int *displs = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    int rc = MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, control);
    size_t total = 0;
    for (int r = 0; me == 0 && counts != NULL && displs != NULL && r < size; r++) {
        displs[r] = (int)total;
        total += (size_t)counts[r];
    }
    char *all = me == 0 ? malloc(total + 1) : NULL;
    if (rc == MPI_SUCCESS)
        rc = MPI_Gatherv(send, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, control);
    free(send);
    free(counts);
    free(displs);
    if (rc != MPI_SUCCESS) {
        free(all);
        return sc_err_set(err, SC_ERR_RUNTIME, "gathering the ranks' timelines: MPI error %d", rc);
    }
    if (me == 0) {
        *out = (sc_tl_event_t *)all;
        *n = total / sizeof(sc_tl_event_t);
    }
    return SC_OK;
}
