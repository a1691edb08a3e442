/* sc_progress.c - the per-rank progress records (sc_progress.h): a file of fixed slots that
 * every rank maps shared; each rank writes only its own slot, from its watchdog thread. */
#include "engine/sc_progress.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* A heartbeat older than this is a rank that no longer runs: the watchdog beats every 50 ms. */
#define SC__STALE_MS 1000

struct sc_progress {
    sc_progress_slot_t *slots; /* the mapping */
    /* this process's own slot is written by two threads (the main one and the watchdog) and
     * read by both: they take this lock for it; other ranks' slots are copied, torn copies
     * being harmless to what reads them */
    pthread_mutex_t *own_lock;
    int nslots, rank;
    char host[64];
    bool local_only; /* on a network file system: other hosts' slots are not trusted */
};

/* Whether fd's file system shares pages between the hosts that map it. A network file system
 * (NFS, Lustre, GPFS, BeeGFS, CIFS/SMB) does not keep a shared mapping coherent across hosts:
 * another host's slot could read stale and blame a rank that runs. Magic numbers: statfs(2). */
static bool progress__coherent_across_hosts(int fd)
{
    static const unsigned long network[] = {0x6969,     /* NFS */
                                            0x0BD00BD0, /* Lustre */
                                            0x47504653, /* GPFS */
                                            0x19830326, /* BeeGFS */
                                            0xFF534D42, /* CIFS */
                                            0xFE534D42, /* SMB2 */
                                            0x65735546 /* FUSE */};
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0)
        return false;
    for (size_t i = 0; i < sizeof(network) / sizeof(network[0]); i++)
        if ((unsigned long)fs.f_type == network[i])
            return false;
    return true;
}

/* Whether this view may believe slot s: always on a file system the hosts share coherently,
 * else only for its own host. */
static bool progress__trusted(const sc_progress_t *p, const sc_progress_slot_t *s)
{
    return !p->local_only || strncmp(s->host, p->host, sizeof(s->host)) == 0;
}

uint64_t sc_progress_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000ull + (uint64_t)ts.tv_nsec / 1000000ull;
}

sc_progress_t *sc_progress_open(const char *path, const sc_rte_t *rte, bool create)
{
    size_t bytes = (size_t)rte->size * sizeof(sc_progress_slot_t);
    if (create)
        unlink(path); /* a resumed run's old records, or whatever was planted at the name */
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0644);
    if (fd < 0)
        return NULL;
    /* real blocks, not a sparse file: a store to a page the full disk cannot back is SIGBUS */
    bool sized = !create || posix_fallocate(fd, 0, (off_t)bytes) == 0;
    void *map = sized ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    bool local_only = !progress__coherent_across_hosts(fd);
    close(fd);
    sc_progress_t *p = map != MAP_FAILED ? calloc(1, sizeof(*p)) : NULL;
    pthread_mutex_t *lock = p != NULL ? malloc(sizeof(*lock)) : NULL;
    if (lock == NULL || pthread_mutex_init(lock, NULL) != 0) {
        free(lock);
        free(p);
        if (map != MAP_FAILED)
            munmap(map, bytes);
        return NULL;
    }
    p->own_lock = lock;
    p->slots = map;
    p->nslots = rte->size;
    p->local_only = local_only;
    snprintf(p->host, sizeof(p->host), "%s", rte->host);
    p->rank = rte->rank;
    sc_progress_slot_t *mine = &p->slots[rte->rank];
    mine->pid = (int32_t)getpid();
    mine->pair_peer = -1;
    snprintf(mine->host, sizeof(mine->host), "%s", rte->host);
    sc_progress_beat(p, 0, false, "start-up", SC_PROGRESS_RUNNING);
    return p;
}

void sc_progress_close(sc_progress_t *p)
{
    if (p == NULL)
        return;
    munmap(p->slots, (size_t)p->nslots * sizeof(sc_progress_slot_t));
    pthread_mutex_destroy(p->own_lock);
    free(p->own_lock);
    free(p);
}

/* Slot r as it is now: this process's own under its lock. */
static sc_progress_slot_t progress__slot(const sc_progress_t *p, int r)
{
    if (r != p->rank)
        return p->slots[r];
    pthread_mutex_lock(p->own_lock);
    sc_progress_slot_t s = p->slots[r];
    pthread_mutex_unlock(p->own_lock);
    return s;
}

void sc_progress_beat(sc_progress_t *p, uint64_t progress, bool armed, const char *what,
                      sc_progress_state_t state)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(p->own_lock);
    sc_progress_slot_t *mine = &p->slots[p->rank];
    mine->progress = progress;
    mine->armed = armed;
    if (what != NULL)
        snprintf(mine->what, sizeof(mine->what), "%s", what);
    mine->state = (int32_t)state;
    mine->heartbeat_ms = sc_progress_now_ms(); /* last: a reader sees a beat after its data */
    pthread_mutex_unlock(p->own_lock);
}

void sc_progress_pair(sc_progress_t *p, int me, int peer, const double figs[3])
{
    if (p == NULL)
        return;
    pthread_mutex_lock(p->own_lock);
    sc_progress_slot_t *mine = &p->slots[p->rank];
    memcpy(mine->pair_figs, figs, sizeof(mine->pair_figs));
    mine->pair_me = me;
    mine->pair_peer = peer;
    pthread_mutex_unlock(p->own_lock);
}

void sc_progress_each_pair(const sc_progress_t *p,
                           void (*take)(void *ctx, int me, int peer, const double figs[3]),
                           void *ctx)
{
    for (int r = 0; p != NULL && r < p->nslots; r++) {
        sc_progress_slot_t s = progress__slot(p, r);
        if (progress__trusted(p, &s) && s.state != 0 && s.pair_peer >= 0 &&
            s.pair_me != s.pair_peer)
            take(ctx, s.pair_me, s.pair_peer, s.pair_figs);
    }
}

/* Whether device (n communicators) started or ended an operation since the slot's record. */
static bool progress__device_moves(const sc_progress_slot_t *slot,
                                   const sc_device_progress_t *device, int n)
{
    uint64_t before = 0, now = 0;
    for (int i = 0; i < slot->ndevice && i < SC_PROGRESS_COMMS; i++)
        before += slot->device[i].started + slot->device[i].ended;
    for (int i = 0; i < n; i++)
        now += device[i].started + device[i].ended;
    return n != slot->ndevice || now != before;
}

void sc_progress_device(sc_progress_t *p, const sc_device_progress_t *device, int n)
{
    if (p == NULL)
        return;
    n = n < SC_PROGRESS_COMMS ? n : SC_PROGRESS_COMMS;
    pthread_mutex_lock(p->own_lock);
    sc_progress_slot_t *mine = &p->slots[p->rank];
    if (progress__device_moves(mine, device, n))
        mine->device_moved_ms = sc_progress_now_ms();
    memcpy(mine->device, device, (size_t)n * sizeof(*device));
    mine->ndevice = n;
    pthread_mutex_unlock(p->own_lock);
}

/* The most operations of communicator comm any other running rank's device started. */
static uint64_t progress__most_started(const sc_progress_t *p, int except, uint64_t comm)
{
    uint64_t most = 0;
    for (int r = 0; r < p->nslots; r++) {
        sc_progress_slot_t s = progress__slot(p, r);
        if (r == except || !progress__trusted(p, &s) || s.state != SC_PROGRESS_RUNNING)
            continue;
        for (int i = 0; i < s.ndevice && i < SC_PROGRESS_COMMS; i++)
            if (s.device[i].comm == comm && s.device[i].started > most)
                most = s.device[i].started;
    }
    return most;
}

/* Whether rank r's device is inside an operation: one it started and has not ended, on any of
 * its communicators - waiting in that collective, maybe on someone else (issue 46: under a
 * sanitizer every operation is slow and a 3D member waiting on the stalled rank through a second
 * stream looked behind too). Only where the library reports ends: a record with none ended
 * anywhere says nothing of it. */
static bool progress__device_inside(const sc_progress_slot_t *s)
{
    bool ends = false, inside = false;
    for (int i = 0; i < s->ndevice && i < SC_PROGRESS_COMMS; i++) {
        ends |= s->device[i].ended > 0;
        inside |= s->device[i].started > s->device[i].ended;
    }
    return ends && inside;
}

/* Whether rank r's device is behind: still for still_ms (as of now), and on one of its
 * communicators it has an operation enqueued that it never started, while another member's
 * device started more of that communicator's operations (its members run them in the same
 * order). Records are written at different moments: under load a device that works through
 * its queue can look behind a peer's later record (issue 46: a waiter named on 2 cores). */
static bool progress__device_behind(const sc_progress_t *p, int r, const sc_progress_slot_t *s,
                                    uint64_t now, uint64_t still_ms)
{
    if (now < s->device_moved_ms + still_ms)
        return false;
    for (int i = 0; i < s->ndevice && i < SC_PROGRESS_COMMS; i++) {
        const sc_device_progress_t *d = &s->device[i];
        if (d->enqueued > d->started && progress__most_started(p, r, d->comm) > d->started)
            return true;
    }
    return false;
}

/* Why rank r is at fault, or NULL. behind: progress__device_behind, when stuck. */
static const char *progress__fault(const sc_progress_slot_t *s, const char *my_host, bool stuck,
                                   uint64_t now, bool behind, bool device_named, double *ago)
{
    *ago = (double)(now - s->heartbeat_ms) / 1e3;
    if (s->state != SC_PROGRESS_RUNNING)
        return NULL; /* no record, or it ended on its own terms and said so */
    /* on this host a process that is gone is known at once; elsewhere its heartbeat tells */
    if (strcmp(s->host, my_host) == 0 && s->pid > 0 && kill(s->pid, 0) != 0 && errno == ESRCH)
        return "ended without a word (killed or crashed)";
    if (now > s->heartbeat_ms && now - s->heartbeat_ms >= SC__STALE_MS)
        return "stopped answering (stopped, killed or crashed)";
    if (!stuck)
        return NULL;
    if (behind)
        return "has a GPU that never started an operation its peers' GPUs started (a stalled "
               "GPU, or a kernel before it that never ends)";
    /* a rank whose own wait ended (timed out) is not waiting either: when the devices' records
     * point at someone, they are what tells */
    if (!s->armed && !device_named)
        return "is not waiting on anyone (busy in its own work)";
    return NULL;
}

void sc_progress_note_fault(sc_progress_t *p, const char *at_fault)
{
    if (p != NULL) {
        pthread_mutex_lock(p->own_lock);
        snprintf(p->slots[p->rank].at_fault, sizeof(p->slots[p->rank].at_fault), "%s", at_fault);
        pthread_mutex_unlock(p->own_lock);
    }
    /* the text lands before the state that points at it */
    atomic_thread_fence(memory_order_release);
}

int sc_progress_noted_fault(const sc_progress_t *p, char *buf, size_t len)
{
    atomic_thread_fence(memory_order_acquire);
    for (int r = 0; p != NULL && r < p->nslots; r++) {
        sc_progress_slot_t s = progress__slot(p, r);
        s.at_fault[sizeof(s.at_fault) - 1] = '\0';
        if (r != p->rank && s.at_fault[0] != '\0' && progress__trusted(p, &s)) {
            snprintf(buf, len, "%s", s.at_fault);
            return 1;
        }
    }
    return 0;
}

bool sc_progress_peer_timed_out(const sc_progress_t *p, char *who, size_t who_len, char *at_fault,
                                size_t len)
{
    bool found = false;
    for (int r = 0; p != NULL && r < p->nslots; r++) {
        if (r == p->rank)
            continue;
        sc_progress_slot_t s = p->slots[r];
        /* another host's slot on a file system that is not coherent may be stale: rank 0 ends
         * the job on what this finds */
        if (s.state != SC_PROGRESS_TIMEOUT || !progress__trusted(p, &s) ||
            (found && s.at_fault[0] == '\0'))
            continue;
        s.host[sizeof(s.host) - 1] = s.at_fault[sizeof(s.at_fault) - 1] = '\0';
        snprintf(who, who_len, "rank %d (host %s)", r, s.host);
        snprintf(at_fault, len, "%s", s.at_fault);
        found = true;
        if (s.at_fault[0] != '\0') /* the first that found someone at fault */
            return true;
    }
    return found;
}

bool sc_progress_peer_at_deadline(const sc_progress_t *p, char *who, size_t who_len)
{
    for (int r = 0; p != NULL && r < p->nslots; r++) {
        sc_progress_slot_t s = p->slots[r];
        if (r == p->rank || s.state != SC_PROGRESS_DEADLINE)
            continue;
        s.host[sizeof(s.host) - 1] = '\0';
        snprintf(who, who_len, "rank %d (host %s)", r, s.host);
        return true;
    }
    return false;
}

void sc_progress_wait_ended(const sc_progress_t *p, int rank, int max_ms)
{
    if (p == NULL || rank == p->rank || rank < 0 || rank >= p->nslots)
        return;
    if (!progress__trusted(p, &p->slots[rank]))
        return;
    for (int waited = 0; waited < max_ms; waited += 5) {
        const volatile sc_progress_slot_t *s = &p->slots[rank];
        if (s->state != SC_PROGRESS_RUNNING ||
            sc_progress_now_ms() - s->heartbeat_ms >= SC__STALE_MS)
            return;
        struct timespec nap = {0, 5000000L};
        nanosleep(&nap, NULL);
    }
}

int sc_progress_ranks(const sc_progress_t *p)
{
    return p != NULL ? p->nslots : 0;
}

bool sc_progress_others_moved(const sc_progress_t *p, uint64_t *seen)
{
    bool moved = false;
    for (int r = 0; p != NULL && r < p->nslots; r++) {
        sc_progress_slot_t s = progress__slot(p, r);
        uint64_t *mine = seen + (size_t)r * SC_PROGRESS_SEEN_PER_RANK;
        bool counts = progress__trusted(p, &s) && s.state == SC_PROGRESS_RUNNING;
        moved |= counts && r != p->rank && s.progress != mine[0];
        moved |= counts && s.ndevice > 0 && s.device_moved_ms != mine[1];
        mine[0] = s.progress;
        mine[1] = s.device_moved_ms;
    }
    return moved;
}

int sc_progress_culprits(const sc_progress_t *p, bool stuck, uint64_t still_ms, char *buf,
                         size_t len)
{
    if (len > 0)
        buf[0] = '\0';
    if (p == NULL)
        return 0;
    uint64_t now = sc_progress_now_ms();
    /* the behind ranks that are inside no operation of their own, where there are such: one
     * inside an operation may be behind only because that operation waits on them */
    bool device_named = false, behind_free = false;
    for (int r = 0; r < p->nslots && stuck; r++) {
        sc_progress_slot_t s = progress__slot(p, r);
        bool behind = progress__trusted(p, &s) && s.state == SC_PROGRESS_RUNNING &&
                      progress__device_behind(p, r, &s, now, still_ms);
        device_named |= behind;
        behind_free |= behind && !progress__device_inside(&s);
    }
    int n = 0;
    size_t used = 0;
    for (int r = 0; r < p->nslots; r++) {
        sc_progress_slot_t s = progress__slot(p, r); /* a copy: its owner may be writing */
        s.host[sizeof(s.host) - 1] = s.what[sizeof(s.what) - 1] = '\0';
        if (!progress__trusted(p, &s))
            continue;
        double ago;
        bool behind = stuck && s.state == SC_PROGRESS_RUNNING &&
                      progress__device_behind(p, r, &s, now, still_ms) &&
                      (!behind_free || !progress__device_inside(&s));
        const char *why = progress__fault(&s, p->host, stuck, now, behind, device_named, &ago);
        if (why == NULL)
            continue;
        char one[400];
        int w = snprintf(one, sizeof(one), "%srank %d (host %s) %s", n ? "; " : "", r, s.host, why);
        if (ago >= 1.0 && w > 0 && (size_t)w < sizeof(one))
            snprintf(one + w, sizeof(one) - (size_t)w, " %.1f s ago", ago);
        size_t at = strlen(one);
        snprintf(one + at, sizeof(one) - at, ", last in %s", s.what);
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s", one);
        n++;
    }
    return n;
}
