/* sc_progress.h - one small record per rank in a file every rank maps (the run directory's
 * `.progress`), so that a rank whose watchdog fires, or that is told to stop, can see the others
 * without MPI: which one stopped answering (its watchdog's heartbeat went stale: stopped, killed,
 * crashed), which one is not where the others are (not waiting, or behind them), and the last
 * operation of each. Ranks that cannot open the file (a run directory that is not on a shared
 * file system) simply have no record; the others still have theirs. On a network file system
 * (NFS, Lustre, ...) a shared mapping is not coherent between hosts: there only the slots of
 * the reader's own host are trusted. */
#ifndef SC_PROGRESS_H
#define SC_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm/sc_backend.h"
#include "rte/sc_rte.h"

#define SC_PROGRESS_COMMS 8 /* the communicators a rank's record follows on its device */

/* How a rank's run ended, as its own record says. */
typedef enum {
    SC_PROGRESS_RUNNING = 1,
    SC_PROGRESS_DONE,      /* ended normally */
    SC_PROGRESS_TIMEOUT,   /* its watchdog fired */
    SC_PROGRESS_SIGNALLED, /* it was told to stop (SIGTERM, SIGINT, SIGHUP) */
    SC_PROGRESS_DEADLINE,  /* it ended the job at the run's --deadline */
    SC_PROGRESS_FOLLOWED   /* it ended because another rank's watchdog ended the job */
} sc_progress_state_t;

typedef struct {
    uint64_t heartbeat_ms; /* CLOCK_REALTIME, every poll of the watchdog */
    uint64_t progress;     /* operations completed */
    int32_t state;         /* sc_progress_state_t, 0: never written */
    int32_t armed;         /* 1 while waiting on other ranks */
    int32_t pid;           /* a vanished process on the reader's host is known at once */
    /* how far the rank's device got on each of its communicators (sc_backend_device_progress;
     * ndevice 0: its library does not say) */
    int32_t ndevice;
    sc_device_progress_t device[SC_PROGRESS_COMMS];
    /* when its device last started or ended an operation (CLOCK_REALTIME ms, as seen at a
     * beat): a device that moves is not stalled, however its counts compare with a peer's
     * record, written at another moment */
    uint64_t device_moved_ms;
    /* pairs: this rank's last measured pair (participant indices; pair_peer -1: none) and its
     * figures - uni-directional GB/s from it to its peer, latency us, both ways GB/s - so that
     * an ending mid-round keeps them (sc_progress_each_pair) */
    int32_t pair_me, pair_peer;
    double pair_figs[3];
    char host[64];
    char what[160];     /* the operation armed last */
    char at_fault[512]; /* a rank whose watchdog fired: whom it found at fault */
} sc_progress_slot_t;

typedef struct sc_progress sc_progress_t;

/* Maps path (created, ranks slots, by the caller that passes create) and returns this rank's
 * view; NULL when the file cannot be mapped (the run goes on without records). */
sc_progress_t *sc_progress_open(const char *path, const sc_rte_t *rte, bool create);
void sc_progress_close(sc_progress_t *p);

/* This rank's slot: written by its watchdog thread only. */
void sc_progress_beat(sc_progress_t *p, uint64_t progress, bool armed, const char *what,
                      sc_progress_state_t state);

/* This rank's last measured pair (pairs), and every trusted rank's, to take. */
void sc_progress_pair(sc_progress_t *p, int me, int peer, const double figs[3]);
void sc_progress_each_pair(const sc_progress_t *p,
                           void (*take)(void *ctx, int me, int peer, const double figs[3]),
                           void *ctx);

/* This rank's device progress (sc_backend_device_progress: n communicators), with its beat. */
void sc_progress_device(sc_progress_t *p, const sc_device_progress_t *device, int n);

/* The ranks at fault as seen from here, in words ("rank 2 (host h2) stopped answering
 * (stopped, killed or crashed) 12.1 s ago, last in allreduce 1M; ..."), and how many. A rank
 * whose heartbeat went stale is always named; when the job is stuck (a timeout), so is one
 * whose device, still for still_ms at least, never started an operation of a communicator that
 * another member's device started (a stalled GPU: its own record shows it; where some such
 * ranks' devices are inside no operation - none started and not ended - only those: the others
 * may wait inside one on them), or else one that is waiting on no one (busy in its own work
 * while the others wait). Writes "" when nothing points at anyone, or there are no records. */
int sc_progress_culprits(const sc_progress_t *p, bool stuck, uint64_t still_ms, char *buf,
                         size_t len);

/* A rank whose watchdog fires leaves whom it found at fault in its record, for the ranks the
 * launcher then stops. */
void sc_progress_note_fault(sc_progress_t *p, const char *at_fault);
/* Whom another rank's watchdog found at fault (sc_progress_note_fault), into buf: 1, or 0
 * when none noted anyone. */
int sc_progress_noted_fault(const sc_progress_t *p, char *buf, size_t len);
/* An other rank whose watchdog fired, in words ("rank 1 (host h1)"), and whom it found at fault
 * (the first that found someone); false when none fired. */
bool sc_progress_peer_timed_out(const sc_progress_t *p, char *who, size_t who_len, char *at_fault,
                                size_t len);
/* An other rank that ended the job at its --deadline, in words; false when none did. */
bool sc_progress_peer_at_deadline(const sc_progress_t *p, char *who, size_t who_len);

/* Waits (up to max_ms) until rank's record says it ended, or is missing or stale: a rank that
 * ends the job first gives the rank that writes the results the moment it needs, before the
 * launcher kills the rest. */
void sc_progress_wait_ended(const sc_progress_t *p, int rank, int max_ms);

/* Whether the job's work moved since the last call: another rank that runs completed
 * operations, or any rank's device (this one's too) started or ended one (seen:
 * SC_PROGRESS_SEEN_PER_RANK counters per rank, zeroed by the caller at first). A rank that
 * waits on others outside their work (a point of the curve it is not part of) is not stuck
 * while they progress, nor one whose host waits on a device that works through its queue
 * (issue 46: on a loaded host a 3D step's devices ran seconds behind their hosts). */
#define SC_PROGRESS_SEEN_PER_RANK 2
bool sc_progress_others_moved(const sc_progress_t *p, uint64_t *seen);
int sc_progress_ranks(const sc_progress_t *p);

/* The realtime clock in ms (comparable between hosts whose clocks are kept in step). */
uint64_t sc_progress_now_ms(void);

#endif
