#include "session/sc_session.h"
#include "comm/sc_comm_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sc_clock.h"
#include "util/sc_defaults.h"

/* The watchdog's hook: (rank 0) the command's final state, the reserve given back for it, under
 * the write lock - waited for 0.2 s at most (the launcher's SIGKILL comes 2 s after its SIGTERM,
 * and the main thread may be stuck holding it) - and kept: the process ends next, and the main
 * thread must not write its "running" over the end; then the output flushed. */
static void session__session_end(void *arg, const sc_watchdog_end_t *end)
{
    sc_session_t *s = arg;
    if (s->on_end != NULL && s->res.dir[0] != '\0') {
        struct timespec until = sc_clock_deadline(200000000ull);
        (void)pthread_mutex_timedlock(&s->write_lock, &until);
        sc_results_release_reserve(&s->res);
        s->on_end(s->on_end_arg, s->res.dir, end);
    }
    sc_results_flush(&s->res);
}

/* The progress records: rank 0 makes the file in its run directory, the others map it when
 * they can (a run directory on a file system they share). */
static sc_status_t session__session_records(sc_session_t *s, sc_err_t *err)
{
    const sc_rte_t *rte = s->rte;
    if (rte->rank == 0) {
        sc_results_path(&s->res, ".progress", s->progress_path, sizeof(s->progress_path));
        s->progress = sc_progress_open(s->progress_path, rte, true);
    }
    sc_status_t status = sc_watchdog_bcast(s->wd, rte, rte->world, "the progress records' path",
                                           s->progress_path, (int)sizeof(s->progress_path), err);
    if (status == SC_OK && rte->rank != 0 && s->progress_path[0] != '\0')
        s->progress = sc_progress_open(s->progress_path, rte, false);
    sc_watchdog_attach(s->wd, s->progress);
    sc_watchdog_catch_signals(s->wd);
    return status;
}

void sc_session_on_end(sc_session_t *s, sc_session_end_fn fn, void *arg)
{
    s->on_end_arg = arg;
    s->on_end = fn;
}

void sc_session_lock(sc_session_t *s)
{
    pthread_mutex_lock(&s->write_lock);
}

void sc_session_unlock(sc_session_t *s)
{
    pthread_mutex_unlock(&s->write_lock);
}

bool sc_session_crowded(const sc_rte_t *rte, char *buf, size_t len)
{
    /* the host's cores, not this process's affinity: a rank bound to one core (--bind-to core)
     * is not a crowded host */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    bool crowded = cores > 0 && rte->local_size > cores;
    if (crowded)
        snprintf(buf, len, "%d ranks on %ld cores of host %s", rte->local_size, cores, rte->host);
    else if (len > 0)
        buf[0] = '\0';
    return crowded;
}

int sc_session_culprits(const sc_session_t *s, char *buf, size_t len)
{
    int n = sc_progress_culprits(s->progress, false, 0, buf, len);
    /* else whom a rank whose watchdog fired found (it aborted, releasing this rank): its view
     * was taken while the job was stuck, before the abort changed the records */
    return n > 0 ? n : sc_progress_noted_fault(s->progress, buf, len);
}

/* Which host, if any, shows no CPU topology in sysfs (a container or chroot without /sys, under
 * SCALECHECK_SYS_ROOT when set): there MPI cannot bind the ranks to cores, nor hwloc and NCCL
 * see the CPUs and the PCIe tree. Rank 0 learns the first such host; a failed reduction says
 * nothing. */
static void session__sysfs(sc_session_t *s)
{
    const sc_rte_t *rte = s->rte;
    const char *root = getenv("SCALECHECK_SYS_ROOT");
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/devices/system/cpu", root != NULL && *root ? root : "/sys");
    struct {
        int seen, rank;
    } mine = {access(path, R_OK) == 0, rte->rank}, least = {1, 0};
    sc_watchdog_arm(s->wd, "whether the hosts show their CPUs (/sys)", s->world->world_rank,
                    s->world->size);
    int rc = MPI_Reduce(&mine, &least, 1, MPI_2INT, MPI_MINLOC, 0, rte->world);
    sc_watchdog_disarm(s->wd);
    if (rc == MPI_SUCCESS && rte->rank == 0 && !least.seen)
        snprintf(s->no_sysfs_host, sizeof(s->no_sysfs_host), "%s", rte->hosts[least.rank]);
}

sc_status_t sc_session_open(sc_session_t *s, const sc_rte_t *rte, const sc_session_opts_t *o,
                            sc_err_t *err)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->write_lock, NULL);
    s->rte = rte;
    const sc_common_opts_t *c = s->asked = o->common;
    sc_backend_opts_t bopts = {.device = c->device,
                               .timeout_s = SC_BACKEND_TIMEOUT_S(c->timeout_s),
                               .register_buffers = o->register_buffers};
    /* a results folder rank 0 cannot make is bad usage, found before any backend opens */
    char why[sizeof(err->msg)] = "";
    sc_status_t status = rte->rank == 0 ? sc_results_check_base(c->results_base, err) : SC_OK;
    if (status != SC_OK)
        snprintf(why, sizeof(why), "%s", err->msg);
    status = sc_rte_agree(rte, status, why, sizeof(why), err);
    sc_rte_guard_stage(rte, "opening the communication backend");
    if (status == SC_OK)
        status = sc_backend_open(c->backend, rte, &bopts, &s->world, s->note, sizeof(s->note), err);
    sc_rte_guard_stage(rte, NULL);
    if (status != SC_OK)
        return status;
    if (rte->rank == 0)
        status = o->reuse_dir != NULL
                     ? sc_results_reopen(&s->res, o->reuse_dir, err)
                     : sc_results_open(&s->res, c->results_base,
                                       c->name[0] ? c->name : o->default_name, err);
    /* Every rank learns whether rank 0 could make its directory, and why not (a full disk):
     * nobody half-runs, and every rank says the same */
    snprintf(why, sizeof(why), "%s", status != SC_OK ? err->msg : "");
    status = sc_rte_agree(rte, status, why, sizeof(why), err);
    sc_watchdog_bounds_t bounds = {.timeout_s = c->timeout_s, .deadline_s = c->deadline_s};
    if (status == SC_OK)
        status = sc_watchdog_start(rte, &bounds, session__session_end, s, &s->wd, err);
    if (status == SC_OK)
        status = session__session_records(s, err);
    if (status != SC_OK) {
        sc_session_close(s);
        return status;
    }
    session__sysfs(s);
    s->sampling = c->telemetry_s > 0;
    if (s->sampling && rte->local_rank == 0) /* one sampler per host */
        s->telemetry = sc_telemetry_start(c->telemetry_s, rte->host);
    return SC_OK;
}

sc_kvs_t *sc_session_rank_info(sc_session_t *s)
{
    sc_kvs_t mine = {0};
    sc_kvs_number(&mine, "pid", (double)getpid());
    sc_comm_describe(s->world, &mine);
    int *lens = NULL, *offsets = NULL;
    sc_watchdog_arm(s->wd, "gathering the ranks' backend descriptions", s->world->world_rank,
                    s->world->size);
    char *all =
        sc_results_gather_bytes(s->rte, mine.items, mine.n * sizeof(sc_kv_t), &lens, &offsets);
    sc_watchdog_disarm(s->wd);
    sc_list_free(&mine);
    sc_kvs_t *info = NULL;
    if (s->rte->rank == 0)
        info = calloc((size_t)s->rte->size, sizeof(*info));
    for (int r = 0; info != NULL && r < s->rte->size; r++) {
        const sc_kv_t *kv = (const sc_kv_t *)(all + offsets[r]);
        for (size_t i = 0; i < (size_t)lens[r] / sizeof(sc_kv_t); i++) {
            sc_kv_t *copy = SC_LIST_PUSH(&info[r]);
            if (copy != NULL)
                memcpy(copy, &kv[i], sizeof(*copy));
        }
    }
    free(all);
    free(lens);
    free(offsets);
    return info;
}

sc_status_t sc_session_foreign_load(sc_session_t *s, const sc_load_mark_t *from, double *cores,
                                    char *host, size_t len, sc_err_t *err)
{
    const sc_rte_t *rte = s->rte;
    sc_load_mark_t now;
    sc_load_mark(&now);
    double own = now.own_cpu_s - from->own_cpu_s, ours = 0;
    struct {
        double cores;
        int host;
    } mine = {-1, rte->host_index[rte->rank]}, worst = {-1, 0};
    MPI_Comm local = MPI_COMM_NULL;
    sc_watchdog_arm(s->wd, "the hosts' CPU use", s->world->world_rank, s->world->size);
    int rc = MPI_Comm_split(rte->world, rte->host_index[rte->rank], rte->rank, &local);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&own, &ours, 1, MPI_DOUBLE, MPI_SUM, local);
    double wall = now.wall_s - from->wall_s;
    if (rc == MPI_SUCCESS && from->ok && now.ok && wall > 0 && rte->local_rank == 0) {
        double other = (now.host_busy_s - from->host_busy_s) - ours;
        mine.cores = other > 0 ? other / wall : 0;
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, 0, rte->world);
    sc_watchdog_disarm(s->wd);
    if (local != MPI_COMM_NULL)
        MPI_Comm_free(&local);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(rte, rc, "the hosts' CPU use", err);
    for (int r = 0; rte->rank == 0 && r < rte->size; r++)
        if (rte->host_index[r] == worst.host)
            snprintf(host, len, "%s", rte->hosts[r]);
    *cores = rte->rank == 0 ? worst.cores : -1;
    return SC_OK;
}

void sc_health_gather(const sc_rte_t *rte, sc_health_t *mine, sc_health_t **hosts, int *nhosts)
{
    *hosts = NULL;
    *nhosts = 0;
    size_t len = 0;
    char *block = mine != NULL ? sc_health_pack(mine, &len) : NULL;
    if (mine != NULL)
        sc_health_clear(mine);
    int *lens = NULL, *offsets = NULL;
    char *all = sc_results_gather_bytes(rte, block, len, &lens, &offsets);
    free(block);
    if (rte->rank == 0)
        *hosts = calloc((size_t)rte->size + 1, sizeof(sc_health_t));
    for (int r = 0; *hosts != NULL && r < rte->size; r++)
        if (lens[r] > 0 && sc_health_unpack(all + offsets[r], (size_t)lens[r], &(*hosts)[*nhosts]))
            (*nhosts)++;
    free(all);
    free(lens);
    free(offsets);
}

void sc_session_telemetry(sc_session_t *s, sc_health_t **hosts, int *nhosts)
{
    *hosts = NULL;
    *nhosts = 0;
    sc_health_t mine = {0};
    bool sampled = s->telemetry != NULL;
    if (sampled)
        sc_telemetry_finish(s->telemetry, &mine);
    s->telemetry = NULL;
    if (!s->sampling) {
        sc_health_clear(&mine);
        return;
    }
    s->sampling = false;
    sc_watchdog_arm(s->wd, "gathering the hosts' telemetry", s->world->world_rank, s->world->size);
    sc_health_gather(s->rte, sampled ? &mine : NULL, hosts, nhosts);
    sc_watchdog_disarm(s->wd);
}

void sc_session_close(sc_session_t *s)
{
    if (s->telemetry != NULL) {
        sc_health_t ignored;
        sc_telemetry_finish(s->telemetry, &ignored);
        sc_health_clear(&ignored);
    }
    s->telemetry = NULL;
    sc_watchdog_stop(s->wd);
    s->wd = NULL;
    sc_progress_close(s->progress);
    s->progress = NULL;
    if (s->rte != NULL && s->rte->rank == 0 && s->progress_path[0] != '\0')
        unlink(s->progress_path); /* a clean end; a fault keeps the records as evidence */
    s->progress_path[0] = '\0';
    if (s->world != NULL)
        sc_comm_close(s->world);
    s->world = NULL;
    sc_results_close(&s->res);
}

static int session__share_failed(sc_session_t *s, const sc_rte_t *rte, int failed)
{
    if (rte->world == MPI_COMM_NULL) /* one rank without MPI (sc_rte_init_alone): its own */
        return failed;
    int root = 0;
    sc_watchdog_arm(s->wd, "the outcome from rank 0", &root, 1);
    int rc = MPI_Bcast(&failed, 1, MPI_INT, 0, rte->world);
    sc_watchdog_disarm(s->wd);
    if (rc == MPI_SUCCESS)
        return failed;
    sc_err_t err;
    sc_rte_mpi_error(rte, rc, "MPI_Bcast(outcome)", &err);
    fprintf(stderr, "scalecheck: %s\n", err.msg);
    return 1;
}

void sc_session_say(sc_session_t *s, const sc_rte_t *rte, const char *cmd, sc_status_t status,
                    const sc_err_t *err)
{
    int code = sc_status_exit_code(status);
    if (status == SC_OK || s->error_said || (rte->rank != 0 && code == 2))
        return;
    char at_fault[1024] = "";
    if (code == 3)
        sc_session_culprits(s, at_fault, sizeof(at_fault));
    fprintf(stderr, "scalecheck %s: %s%s%s\n", cmd, err->msg, at_fault[0] ? "; at fault: " : "",
            at_fault);
    fflush(stderr);
    s->error_said = true;
}

/* On a GPU communicator, after aborting it: the other ranks on this host have said why they
 * stopped (their records no longer running), or bound_s passed. MPI's peers are not released by
 * an abort: not waited for. */
static void session__wait_released(const sc_session_t *s, const sc_rte_t *rte, int bound_s)
{
    if (s->world == NULL || !sc_comm_on_gpu(s->world))
        return;
    uint64_t until = sc_clock_ns() + (uint64_t)bound_s * 1000000000ull;
    for (int r = 0; r < sc_progress_ranks(s->progress); r++) {
        uint64_t now = sc_clock_ns();
        if (r != rte->rank && now < until)
            sc_progress_wait_ended(s->progress, r, (int)((until - now) / 1000000ull));
    }
}

int sc_session_finish(sc_session_t *s, const sc_rte_t *rte, const char *cmd, sc_status_t status,
                      const sc_err_t *err, int failed)
{
    int code = sc_status_exit_code(status);
    sc_session_say(s, rte, cmd, status, err);
    if (code == 3) { /* the GPU communicators first: their peers are released, not killed */
        sc_backend_abort_all(true);
        /* This rank has said why: its record no longer running. Released by a peer's failure,
         * it waits for that rank to say why too, which then ends the job itself (an abort from
         * here at once could kill it first; bounded: then we end it); the rank at fault waits
         * for the released ones' records (its abort at once had mpirun kill the peers before
         * they said why they stopped). On MPI, whose peers keep no such record, a grace. */
        sc_watchdog_stop(s->wd);
        s->wd = NULL;
        bool released = status == SC_ERR_PEER;
        if (released && (s->world == NULL || !sc_comm_on_gpu(s->world)))
            sleep(SC_DEFAULT_PEER_GRACE_S);
        else
            session__wait_released(s, rte,
                                   released ? SC_DEFAULT_RELEASED_WAIT_S : SC_DEFAULT_PEER_GRACE_S);
        sc_rte_abort(rte, 3);
    }
    if (code == 2) /* bad input: nothing measured, nothing left on disk */
        sc_results_discard(&s->res);
    failed = session__share_failed(s, rte, failed);
    return status != SC_OK                  ? code
           : failed == SC_EXIT_INCONCLUSIVE ? SC_EXIT_INCONCLUSIVE
           : failed                         ? 1
                                            : 0;
}
