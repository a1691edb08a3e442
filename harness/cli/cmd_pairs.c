/* cmd_pairs.c - `scalecheck pairs`: the point-to-point matrix between nodes (one rank per node,
 * or every rank with --per rank: the GPU-pair view inside a node). Latency (ping-pong), uni-
 * and bi-directional bandwidth for every pair, scheduled as n-1 rounds of disjoint pairs run at
 * the same time (or one pair at a time with --mode serial; the ranks not measuring then wait
 * without spinning). A pair below the slow line gets up to --looks looks, spaced in time, and
 * keeps its best. Then the localisation: a node whose every pair is slow, or a single slow link;
 * PASS/FAIL per pair; exit 1 when anything failed. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cmd_pairs_report.h"
#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "cli/sc_session.h"
#include "report/sc_localize.h"
#include "report/sc_report.h"
#include "topology/sc_topology.h"
#include "util/sc_clock.h"
#include "util/sc_defaults.h"

typedef struct {
    uint64_t size;
    int iters, lat_iters, looks;
    bool serial, per_rank, help;
    double tolerance, timeout_s;
    const char *topology, *backend, *json_path, *csv_path, *results_base, *name, *mode, *per,
        *method;
    bool put; /* --method put: one-sided RMA writes instead of tagged messages */
} pairs__opts_t;

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, pairs__opts_t, field, lo, hi)
static const sc_cli_opt_t pairs__options[] = {
    O(0, "size", "SIZE", "message size for bandwidth (default 4M)", SC_OPT_SIZE, size, 0, 0),
    O('n', "iters", "N", "messages per bandwidth measurement (default 8)", SC_OPT_INT, iters, 1,
      100000),
    O(0, "lat-iters", "N", "ping-pongs per latency measurement (default 50)", SC_OPT_INT, lat_iters,
      1, 1000000),
    O(0, "looks", "N", "a slow pair is measured up to N times before it is named (default 3)",
      SC_OPT_INT, looks, 1, 10),
    O(0, "mode", "concurrent|serial", "disjoint pairs at once, or one pair at a time",
      SC_OPT_STRING, mode, 0, 0),
    O(0, "method", "tag|put", "bandwidth by tagged messages, or one-sided RMA puts (ucx)",
      SC_OPT_STRING, method, 0, 0),
    O(0, "per", "node|rank", "one rank per node (default), or every rank", SC_OPT_STRING, per, 0,
      0),
    O('T', "topology", "FILE", "expected bandwidth from this topology (default: the median)",
      SC_OPT_STRING, topology, 0, 0),
    O(0, "tolerance", "F", "a pair is slow below (1 - F) x expected (default 0.5)", SC_OPT_DOUBLE,
      tolerance, 0.01, 0.99),
    O(0, "backend", "NAME", "nccl, mpi or auto (default auto)", SC_OPT_STRING, backend, 0, 0),
    O(0, "json", "FILE", "also write the JSON results to FILE", SC_OPT_STRING, json_path, 0, 0),
    O(0, "csv", "FILE", "also write the pairs as CSV to FILE", SC_OPT_STRING, csv_path, 0, 0),
    O(0, "results-dir", "DIR", "where run directories go (default results)", SC_OPT_STRING,
      results_base, 0, 0),
    O(0, "name", "NAME", "run name (default pairs)", SC_OPT_STRING, name, 0, 0),
    O(0, "timeout", "SECONDS", "bound on every wait (default 60)", SC_OPT_DOUBLE, timeout_s, 0,
      86400),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

typedef struct {
    const sc_rte_t *rte;
    sc_comm_t *pc;    /* the participants */
    MPI_Comm control; /* the same ranks, for the quiet waits and the gathers */
    void *buf;
    const pairs__opts_t *o;
    sc_watchdog_t *wd;
    double *uni, *bidir, *lat; /* n x n, filled where this rank measured */
    double *first;             /* n x n: uni at the first look, before later looks */
    int *looks;                /* n x n: how many times the pair was measured */
} pairs__ctx_t;

/* Partner of i in round r of a round-robin over m (even) slots; the circle method. */
static int pairs__partner(int i, int r, int m)
{
    if (i == m - 1)
        return r;
    if (i == r)
        return m - 1;
    return ((2 * r - i) % (m - 1) + (m - 1)) % (m - 1);
}

static sc_status_t pairs__send_n(pairs__ctx_t *x, int peer, size_t bytes, int n, sc_err_t *err)
{
    sc_status_t status = SC_OK;
    for (int k = 0; k < n && status == SC_OK; k++)
        status = x->pc->ops->isend(x->pc, x->buf, bytes, SC_DTYPE_uint8, peer, err);
    return status;
}

static sc_status_t pairs__recv_n(pairs__ctx_t *x, int peer, size_t bytes, int n, sc_err_t *err)
{
    char *rbuf = (char *)x->buf + x->o->size;
    sc_status_t status = SC_OK;
    for (int k = 0; k < n && status == SC_OK; k++)
        status = x->pc->ops->recv(x->pc, rbuf, bytes, SC_DTYPE_uint8, peer, err);
    return status;
}

#define PAIRS__TRIALS 3 /* best of: bandwidth is what a link can do; noise only takes away */

/* One direction: `from` sends `count` messages, `to` acknowledges with one byte. GB/s, measured
 * by the sender (0 on the receiver). */
static sc_status_t pairs__stream_once(pairs__ctx_t *x, int from, int to, int count, double *gbps,
                                      sc_err_t *err)
{
    sc_comm_t *pc = x->pc;
    size_t size = x->o->size;
    *gbps = 0;
    if (pc->rank == from && x->o->put) { /* one-sided: puts, flush, then tell the target */
        uint64_t t0 = sc_clock_ns();
        sc_status_t status = SC_OK;
        for (int k = 0; k < count && status == SC_OK; k++)
            status = pc->ops->rma_put(pc, to, x->buf, size, size, err);
        if (status == SC_OK)
            status = pc->ops->rma_flush(pc, to, err);
        *gbps = (double)size * count / ((double)(sc_clock_ns() - t0));
        if (status == SC_OK)
            status = pairs__send_n(x, to, 1, 1, err);
        return status == SC_OK ? pc->ops->iwait(pc, err) : status;
    }
    if (x->o->put) /* the target only learns that the puts are done */
        return pairs__recv_n(x, from, 1, 1, err);
    if (pc->rank == from) {
        uint64_t t0 = sc_clock_ns();
        sc_status_t status = pairs__send_n(x, to, size, count, err);
        if (status == SC_OK)
            status = pairs__recv_n(x, to, 1, 1, err);
        if (status == SC_OK)
            status = pc->ops->iwait(pc, err);
        *gbps = (double)size * count / ((double)(sc_clock_ns() - t0));
        return status;
    }
    sc_status_t status = pairs__recv_n(x, from, size, count, err);
    if (status == SC_OK)
        status = pairs__send_n(x, from, 1, 1, err);
    return status == SC_OK ? pc->ops->iwait(pc, err) : status;
}

static sc_status_t pairs__stream(pairs__ctx_t *x, int from, int to, double *gbps, sc_err_t *err)
{
    sc_status_t status = SC_OK;
    *gbps = 0;
    for (int t = 0; t < PAIRS__TRIALS && status == SC_OK; t++) {
        double g = 0;
        status = pairs__stream_once(x, from, to, x->o->iters, &g, err);
        *gbps = g > *gbps ? g : *gbps;
    }
    return status;
}

/* Pair a < b; the caller is one of them. */
static sc_status_t pairs__pair(pairs__ctx_t *x, int a, int b, sc_err_t *err)
{
    sc_comm_t *pc = x->pc;
    int me = pc->rank, n = pc->size, peer = me == a ? b : a;
    bool first = me == a;
    /* Warm-up, untimed: transports connect lazily (TCP handshakes, registration) and the first
     * bytes of a connection are slow; one message each way gets past it. */
    double ignored = 0;
    sc_status_t status = pairs__stream_once(x, a, b, 1, &ignored, err);
    if (status == SC_OK)
        status = pairs__stream_once(x, b, a, 1, &ignored, err);
    /* latency: ping-pong of 8 bytes */
    uint64_t t0 = sc_clock_ns();
    for (int k = 0; k < x->o->lat_iters && status == SC_OK; k++) {
        if (first) {
            status = pairs__send_n(x, peer, 8, 1, err);
            if (status == SC_OK)
                status = pairs__recv_n(x, peer, 8, 1, err);
        } else {
            status = pairs__recv_n(x, peer, 8, 1, err);
            if (status == SC_OK)
                status = pairs__send_n(x, peer, 8, 1, err);
        }
        if (status == SC_OK)
            status = pc->ops->iwait(pc, err);
    }
    if (first)
        x->lat[a * n + b] = x->lat[b * n + a] =
            (double)(sc_clock_ns() - t0) * 1e-3 / x->o->lat_iters / 2;
    double gbps = 0;
    if (status == SC_OK)
        status = pairs__stream(x, a, b, &gbps, err);
    if (me == a)
        x->uni[a * n + b] = gbps;
    if (status == SC_OK)
        status = pairs__stream(x, b, a, &gbps, err);
    if (me == b)
        x->uni[b * n + a] = gbps;
    /* both directions at once */
    t0 = sc_clock_ns();
    if (status == SC_OK)
        status = pairs__send_n(x, peer, x->o->size, x->o->iters, err);
    if (status == SC_OK)
        status = pairs__recv_n(x, peer, x->o->size, x->o->iters, err);
    if (status == SC_OK)
        status = pc->ops->iwait(pc, err);
    if (first) {
        x->bidir[a * n + b] = x->bidir[b * n + a] =
            2.0 * (double)x->o->size * x->o->iters / (double)(sc_clock_ns() - t0);
        x->looks[a * n + b] = x->looks[b * n + a] = 1;
    }
    return status;
}

/* All rounds; in serial mode every pair of a round runs alone. */
static sc_status_t pairs__rounds(pairs__ctx_t *x, sc_err_t *err)
{
    sc_comm_t *pc = x->pc;
    int n = pc->size, m = n % 2 ? n + 1 : n;
    sc_status_t status = SC_OK;
    for (int r = 0; r < m - 1 && status == SC_OK; r++) {
        int peer = pairs__partner(pc->rank, r, m);
        int slots = x->o->serial ? m / 2 : 1;
        for (int s = 0; s < slots && status == SC_OK; s++) {
            int lo = pc->rank < peer ? pc->rank : peer;
            /* serial: the s-th pair of the round (ordered by its lower member) runs now */
            int order = 0;
            for (int i = 0; i < lo; i++)
                order += i < pairs__partner(i, r, m);
            bool mine = peer < n && (!x->o->serial || order == s);
            char what[96];
            snprintf(what, sizeof(what), "pairs round %d, pair %d<->%d", r + 1, pc->rank, peer);
            sc_watchdog_arm(x->wd, what, pc->world_rank, n);
            /* quiet: in serial mode most ranks wait here while one pair measures */
            status = sc_rte_quiet_barrier(x->rte, x->control, err);
            if (status == SC_OK && mine)
                status = pairs__pair(x, pc->rank < peer ? pc->rank : peer,
                                     pc->rank < peer ? peer : pc->rank, err);
        }
    }
    if (status == SC_OK) { /* the last pair is measured while the others wait here, quietly */
        sc_watchdog_arm(x->wd, "pairs, the end of the last round", pc->world_rank, n);
        status = sc_rte_quiet_barrier(x->rte, x->control, err);
    }
    sc_watchdog_disarm(x->wd);
    return status;
}

/* Every participant ends with the sum of buf over all of them, waiting quietly: entries written
 * by one rank each are gathered this way. */
static sc_status_t pairs__sum(pairs__ctx_t *x, void *buf, int count, MPI_Datatype type,
                              const char *what, sc_err_t *err)
{
    MPI_Request req;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, buf, count, type, MPI_SUM, x->control, &req);
    return rc == MPI_SUCCESS ? sc_rte_quiet_wait(x->rte, &req, what, err)
                             : sc_rte_mpi_error(x->rte, rc, what, err);
}

/* The matrices each rank filled where it measured, gathered on every rank (watched). */
static sc_status_t pairs__gather(pairs__ctx_t *x, sc_err_t *err)
{
    int nn = x->pc->size * x->pc->size;
    sc_watchdog_arm(x->wd, "pairs, gathering the matrices", x->pc->world_rank, x->pc->size);
    sc_status_t status = pairs__sum(x, x->uni, nn, MPI_DOUBLE, "MPI_Iallreduce(uni)", err);
    if (status == SC_OK)
        status = pairs__sum(x, x->bidir, nn, MPI_DOUBLE, "MPI_Iallreduce(bidir)", err);
    if (status == SC_OK)
        status = pairs__sum(x, x->lat, nn, MPI_DOUBLE, "MPI_Iallreduce(latency)", err);
    if (status == SC_OK)
        status = pairs__sum(x, x->looks, nn, MPI_INT, "MPI_Iallreduce(looks)", err);
    sc_watchdog_disarm(x->wd);
    return status;
}

/* One more look at a slow pair: each slow direction is measured once more and keeps its better
 * figure. Every rank learns the figures, so that all take the same next step. */
static sc_status_t pairs__look_once(pairs__ctx_t *x, int a, int b, double limit, sc_err_t *err)
{
    sc_comm_t *pc = x->pc;
    int n = pc->size;
    double *ab = &x->uni[a * n + b], *ba = &x->uni[b * n + a];
    double fresh[2] = {0, 0};
    char what[96];
    snprintf(what, sizeof(what), "pairs, look %d at pair %d<->%d", x->looks[a * n + b] + 1, a, b);
    sc_watchdog_arm(x->wd, what, pc->world_rank, n);
    sc_status_t status = SC_OK;
    if ((pc->rank == a || pc->rank == b) && *ab < limit)
        status = pairs__stream_once(x, a, b, x->o->iters, &fresh[0], err);
    if ((pc->rank == a || pc->rank == b) && *ba < limit && status == SC_OK)
        status = pairs__stream_once(x, b, a, x->o->iters, &fresh[1], err);
    sc_status_t gathered = pairs__sum(x, fresh, 2, MPI_DOUBLE, "MPI_Iallreduce(look)", err);
    *ab = fresh[0] > *ab ? fresh[0] : *ab;
    *ba = fresh[1] > *ba ? fresh[1] : *ba;
    x->looks[a * n + b] = x->looks[b * n + a] = x->looks[a * n + b] + 1;
    return status == SC_OK ? gathered : status;
}

/* Later looks, in rounds: each round waits (0.25 s, then twice as long each round, at most 2 s)
 * and looks once more at every pair below the slow line that has looks left - noise comes and
 * goes, a fault stays at every look. The pause is per round, not per pair, so a bad node's n-1
 * pairs cost n-1 measurements, not n-1 pauses. Looks raise figures and so the median: the line
 * is drawn again each round, until no pair below it has looks left. Every rank holds the same
 * matrix and takes the same steps. */
static sc_status_t pairs__confirm(pairs__ctx_t *x, double expected, sc_err_t *err)
{
    int n = x->pc->size;
    sc_status_t status = SC_OK;
    for (int round = 0; status == SC_OK; round++) {
        double reference = expected > 0 ? expected : sc_localize_median(x->uni, n);
        double limit = (1.0 - x->o->tolerance) * reference;
        bool any = false;
        for (int a = 0; a < n && status == SC_OK; a++)
            for (int b = a + 1; b < n && status == SC_OK; b++) {
                bool slow = x->uni[a * n + b] < limit || x->uni[b * n + a] < limit;
                if (!slow || x->looks[a * n + b] >= x->o->looks)
                    continue;
                if (!any) { /* the round's pause, before its first look */
                    long pause_ns = round < 3 ? 250000000L << round : 2000000000L;
                    struct timespec nap = {.tv_sec = pause_ns / 1000000000L,
                                           .tv_nsec = pause_ns % 1000000000L};
                    nanosleep(&nap, NULL);
                }
                any = true;
                status = pairs__look_once(x, a, b, limit, err);
            }
        if (!any)
            break;
    }
    sc_watchdog_disarm(x->wd);
    return status;
}

static double pairs__expected(const pairs__opts_t *o, const sc_rte_t *rte, sc_err_t *err,
                              sc_status_t *status)
{
    sc_topology_t t;
    if (o->topology == NULL)
        return 0;
    *status = sc_topology_load(o->topology, &t, err);
    if (*status != SC_OK)
        return 0;
    /* between nodes: the node's NICs; inside one: a GPU's intra bandwidth */
    return rte->nhosts > 1 && !o->per_rank ? sc_topology_inter_GBps(&t, 1)
                                           : sc_topology_intra_GBps(&t);
}

int sc_cmd_pairs(const sc_rte_t *rte, int argc, char **argv)
{
    pairs__opts_t o = {.size = 4u << 20,
                       .iters = 8,
                       .lat_iters = 50,
                       .looks = 3,
                       .tolerance = 0.5,
                       .timeout_s = SC_DEFAULT_TIMEOUT_S,
                       .backend = "auto",
                       .results_base = "results",
                       .mode = "concurrent",
                       .per = "node",
                       .method = "tag"};
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse(pairs__options, argc, argv, 2, &o, &err);
    if (status == SC_OK && strcmp(o.mode, "concurrent") && strcmp(o.mode, "serial"))
        status = sc_err_set(&err, SC_ERR_USAGE, "--mode: '%s' is not concurrent or serial", o.mode);
    if (status == SC_OK && strcmp(o.per, "node") && strcmp(o.per, "rank"))
        status = sc_err_set(&err, SC_ERR_USAGE, "--per: '%s' is not node or rank", o.per);
    if (status == SC_OK && strcmp(o.method, "tag") && strcmp(o.method, "put"))
        status = sc_err_set(&err, SC_ERR_USAGE, "--method: '%s' is not tag or put", o.method);
    o.put = !strcmp(o.method, "put");
    o.serial = !strcmp(o.mode, "serial");
    o.per_rank = !strcmp(o.per, "rank");
    if (status == SC_OK && o.help) {
        if (rte->rank == 0)
            sc_cli_print_help(pairs__options, stdout);
        return 0;
    }
    /* every input and output checked before the session makes a results directory */
    double expected = status == SC_OK ? pairs__expected(&o, rte, &err, &status) : 0;
    if (status == SC_OK)
        status = sc_results_check_output("--json", o.json_path, &err);
    if (status == SC_OK)
        status = sc_results_check_output("--csv", o.csv_path, &err);
    sc_session_t ses = {0};
    if (status == SC_OK) {
        sc_session_opts_t so = {.backend = o.backend,
                                .device = -1,
                                .timeout_s = o.timeout_s,
                                .results_base = o.results_base,
                                .name = o.name ? o.name : "pairs"};
        status = sc_session_open(&ses, rte, &so, &err);
    }
    bool in = o.per_rank || rte->local_rank == 0;
    pairs__ctx_t x = {.rte = rte, .control = MPI_COMM_NULL, .o = &o, .wd = ses.wd};
    if (status == SC_OK) {
        status = ses.world->ops->split(ses.world, in ? 0 : -1, rte->rank, &x.pc, &err);
        MPI_Comm_split(rte->world, in ? 0 : MPI_UNDEFINED, rte->rank, &x.control);
    }
    int n = x.pc ? x.pc->size : 0;
    bool failed = false;
    if (status == SC_OK && x.pc != NULL) {
        x.buf = x.pc->ops->alloc(x.pc, 2 * o.size);
        x.uni = calloc((size_t)n * n, sizeof(double));
        x.bidir = calloc((size_t)n * n, sizeof(double));
        x.lat = calloc((size_t)n * n, sizeof(double));
        x.looks = calloc((size_t)n * n, sizeof(int));
        x.first = calloc((size_t)n * n, sizeof(double));
        if (!x.buf || !x.uni || !x.bidir || !x.lat || !x.looks || !x.first)
            status = sc_err_set(&err, SC_ERR_NOMEM, "rank %d: no memory for pairs", rte->rank);
        if (status == SC_OK) /* written once: unwritten host pages all read the one zero page */
            status = x.pc->ops->fill_bytes(x.pc, x.buf, 0x3C, 2 * o.size, &err);
        if (status == SC_OK && o.put && x.pc->ops->rma_expose == NULL)
            status = sc_err_set(&err, SC_ERR_USAGE,
                                "--method put: one-sided transfers need the ucx backend (not %s)",
                                x.pc->ops->name);
        if (status == SC_OK && o.put)
            status = x.pc->ops->rma_expose(x.pc, x.buf, 2 * o.size, &err);
        if (status == SC_OK)
            status = pairs__rounds(&x, &err);
        if (status == SC_OK)
            status = pairs__gather(&x, &err);
        if (status == SC_OK) {
            memcpy(x.first, x.uni, (size_t)n * n * sizeof(double));
            status = pairs__confirm(&x, expected, &err);
        }
    }
    if (status == SC_OK && rte->rank == 0) {
        const char **names = calloc((size_t)n, sizeof(char *));
        char(*labels)[96] = calloc((size_t)n, sizeof(*labels));
        for (int i = 0; i < n; i++) {
            int w = x.pc->world_rank[i];
            if (o.per_rank)
                snprintf(labels[i], sizeof(labels[i]), "%s:%d", rte->hosts[w], w);
            else
                snprintf(labels[i], sizeof(labels[i]), "%s", rte->hosts[w]);
            names[i] = labels[i];
        }
        json_t *doc =
            json_pack("{s:s, s:s, s:i, s:i, s:s, s:s, s:I, s:i}", "tool", "scalecheck", "command",
                      "pairs", "ranks", rte->size, "nhosts", rte->nhosts, "mode", o.mode, "per",
                      o.per, "size_bytes", (json_int_t)o.size, "iters", o.iters);
        json_object_set_new(doc, "looks", json_integer(o.looks));
        json_t *jnames = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(jnames, json_string(names[i]));
        json_object_set_new(doc, "names", jnames);
        json_object_set_new(doc, "method", json_string(o.method));
        json_object_set_new(doc, "backend", json_string(ses.world->ops->name));
        json_object_set_new(doc, "results_dir", json_string(ses.res.dir));
        sc_pairs_matrix_t m = {n, x.uni, x.first, x.bidir, x.lat, x.looks};
        failed = sc_pairs_report(&ses.res, &m, names, expected, o.tolerance, doc);
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/result.json", ses.res.dir);
        status = sc_results_write_json(path, doc, &err);
        if (status == SC_OK && o.json_path)
            status = sc_results_write_json(o.json_path, doc, &err);
        if (status == SC_OK)
            status = sc_pairs_save_csv(&ses.res, o.csv_path, json_object_get(doc, "pairs"), &err);
        if (status == SC_OK)
            status = sc_report_render(ses.res.dir, doc, &err);
        json_decref(doc);
        free(names);
        free(labels);
    }
    int code = sc_session_finish(&ses, rte, "pairs", status, &err, failed);
    if (x.buf)
        x.pc->ops->free(x.pc, x.buf);
    free(x.uni);
    free(x.bidir);
    free(x.lat);
    free(x.looks);
    free(x.first);
    if (x.pc)
        x.pc->ops->close(x.pc);
    if (x.control != MPI_COMM_NULL)
        MPI_Comm_free(&x.control);
    sc_session_close(&ses);
    return code;
}
