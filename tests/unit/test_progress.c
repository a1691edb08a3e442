/* test_progress.c - whom the progress records name when a GPU job is stuck
 * (engine/sc_progress.h): the rank whose device never started what its peers' devices started,
 * never a rank whose device is inside an operation waiting on it - the class of a member that
 * waits on the stalled rank through another communicator, which looks behind there too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/sc_progress.h"
#include "sc_test.h"

#define RANKS 4

static char hosts[RANKS][SC_HOST_MAX] = {"h", "h", "h", "h"};

/* Every rank's view of one records file, each beating as a rank waiting on the others. */
static void open_all(const char *path, sc_progress_t **views)
{
    for (int r = 0; r < RANKS; r++) {
        sc_rte_t rte = {.rank = r, .size = RANKS, .nhosts = 1, .hosts = hosts};
        snprintf(rte.host, sizeof(rte.host), "h");
        views[r] = sc_progress_open(path, &rte, r == 0);
        SC_EXPECT(views[r] != NULL);
        sc_progress_beat(views[r], 10, true, "allreduce", SC_PROGRESS_RUNNING);
    }
}

static void close_all(sc_progress_t **views)
{
    for (int r = 0; r < RANKS; r++)
        sc_progress_close(views[r]);
}

/* Rank r's device: on communicator A (ranks 0 1) and B (ranks 1 3), or one of them. */
static void device(sc_progress_t *v, uint64_t a_enq, uint64_t a_started, uint64_t a_ended,
                   uint64_t b_enq, uint64_t b_started, uint64_t b_ended)
{
    sc_device_progress_t d[2] = {{1, a_enq, a_started, a_ended}, {2, b_enq, b_started, b_ended}};
    int n = 0;
    sc_device_progress_t mine[2];
    for (int i = 0; i < 2; i++)
        if (d[i].enqueued > 0)
            mine[n++] = d[i];
    sc_progress_device(v, mine, n);
}

/* whom the records name, as rank 0's watchdog would when the job is stuck (devices still
 * for still_ms at least named) */
static void named_still(sc_progress_t **views, uint64_t still_ms, char *buf, size_t len)
{
    sc_progress_culprits(views[0], true, still_ms, buf, len);
}

static void named(sc_progress_t **views, char *buf, size_t len)
{
    named_still(views, 0, buf, len);
}

int main(void)
{
    char path[] = "/tmp/sc-test-progress-XXXXXX";
    int fd = mkstemp(path);
    SC_EXPECT(fd >= 0);
    close(fd);
    sc_progress_t *v[RANKS];
    char who[1024];

    /* rank 3 never started B's third operation; rank 1 started it and is inside it (waiting on
     * rank 3), so its A operation waits behind on its stream: rank 3 alone */
    open_all(path, v);
    device(v[0], 6, 6, 5, 0, 0, 0);
    device(v[1], 6, 5, 5, 3, 3, 2);
    device(v[2], 0, 0, 0, 0, 0, 0);
    device(v[3], 0, 0, 0, 3, 2, 2);
    named(v, who, sizeof(who));
    SC_EXPECT(strstr(who, "rank 3 (host h)") != NULL);
    SC_EXPECT(strstr(who, "rank 1 (host h)") == NULL);
    SC_EXPECT(strstr(who, "never started an operation its peers' GPUs started") != NULL);
    close_all(v);

    /* both behind and both inside an operation (the stalled rank's other stream waits too):
     * nothing tells them apart, both are named */
    open_all(path, v);
    device(v[0], 6, 6, 5, 0, 0, 0);
    device(v[1], 6, 5, 5, 3, 3, 2);
    device(v[3], 6, 6, 5, 3, 2, 2);
    named(v, who, sizeof(who));
    SC_EXPECT(strstr(who, "rank 3 (host h)") != NULL && strstr(who, "rank 1 (host h)") != NULL);
    close_all(v);

    /* a library that reports no ends: nothing tells the waiter, both behind are named */
    open_all(path, v);
    device(v[0], 6, 6, 0, 0, 0, 0);
    device(v[1], 6, 5, 0, 3, 3, 0);
    device(v[3], 0, 0, 0, 3, 2, 0);
    named(v, who, sizeof(who));
    SC_EXPECT(strstr(who, "rank 3 (host h)") != NULL && strstr(who, "rank 1 (host h)") != NULL);
    close_all(v);

    /* records written at different moments: rank 1's device, working through its queue,
     * moved just now and only looks behind rank 0's record; rank 3's has been still - rank 3
     * alone (issue 46: under load a waiter was named beside the stalled rank) */
    open_all(path, v);
    device(v[3], 0, 0, 0, 3, 2, 2);
    device(v[0], 6, 6, 6, 0, 0, 0);
    usleep(300 * 1000);
    device(v[1], 6, 4, 4, 3, 3, 3);
    device(v[1], 6, 5, 5, 3, 3, 3); /* it moves, inside no operation */
    named_still(v, 200, who, sizeof(who));
    SC_EXPECT(strstr(who, "rank 3 (host h)") != NULL);
    SC_EXPECT(strstr(who, "rank 1 (host h)") == NULL);
    /* still long enough, it is named too */
    usleep(300 * 1000);
    named_still(v, 200, who, sizeof(who));
    SC_EXPECT(strstr(who, "rank 1 (host h)") != NULL);
    close_all(v);

    /* every device caught up: none is named for its device */
    open_all(path, v);
    device(v[0], 6, 6, 6, 0, 0, 0);
    device(v[1], 6, 6, 6, 3, 3, 3);
    device(v[3], 0, 0, 0, 3, 3, 3);
    named(v, who, sizeof(who));
    SC_EXPECT(strstr(who, "never started") == NULL);
    close_all(v);

    unlink(path);
    return sc_test_done("test_progress");
}
