/* sc_drive_soak.c - `scalecheck soak`, driven: the stability run (the seeds' 72-hour test). Cycles
 * of a reduced acceptance - an all-reduce sweep, steps of the workload at full scale, the quick
 * pair check between hosts - run back to back until --duration of soak time is done, every host's
 * health sampled all through (soak/sc_soak_cycle.h). Each cycle is held to the topology's
 * expect.soak as it ends and appended to the journal (report/sc_json_soak.h), synced, so a
 * killed soak loses at most the cycle it was in; `soak --resume DIR` carries on with the same
 * options on the same ranks and hosts. At the end: the worst of each health figure per host, the
 * drift from the first cycles to the last, the time-series plots and the verdict. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drive/sc_drive_soak.h"
#include "comm/sc_comm_ops.h"
#include "drive/sc_drive_end.h"
#include "drive/sc_drive_preflight.h"
#include "judge/sc_localize.h"
#include "judge/sc_soak_verdict.h"
#include "judge/sc_verdict.h"
#include "patterns/sc_pattern.h"
#include "report/sc_json_out.h"
#include "report/sc_prometheus.h"
#include "report/sc_report.h"
#include "report/sc_json_soak.h"
#include "report/sc_verdict_render.h"
#include "sc_config.h"
#include "soak/sc_soak_cycle.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"
#include "util/sc_size.h"

/* What a launch carries: the options, the inputs loaded from them, the resumed soak's state. */
typedef struct {
    sc_soak_opts_t o;
    int argc; /* the soak's own arguments (a resume's come from its journal) */
    char **argv;
    sc_soak_start_t start; /* a resume: the journal's first line */
    double duration_s, soak_done;
    int cycles_done;
    char workload_path[PATH_MAX];
    sc_workload_t w;
    sc_topology_t topo;
    sc_soak_limits_t limits;
} soak__launch_t;

/* Options checked and their inputs loaded (every rank the same). */
static sc_status_t soak__inputs(soak__launch_t *l, sc_err_t *err)
{
    sc_soak_opts_t *o = &l->o;
    if (o->resume == NULL && o->duration == NULL)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--duration: required (90s, 30m, 72h, 3d), or "
                          "--resume DIR");
    if (o->duration != NULL && !sc_duration_parse(o->duration, &l->duration_s))
        return sc_err_set(err, SC_ERR_USAGE,
                          "--duration: '%s' is not a duration (90s, 30m, 72h, 3d)", o->duration);
    /* a cycle within the soak: the default shortened to the duration, a longer one refused
     * (it would run past the duration: "300 of 20 s") */
    if (o->duration != NULL && o->cycle_s < 0)
        o->cycle_s = fmin(SC_DEFAULT_SOAK_CYCLE_S, l->duration_s);
    else if (o->duration != NULL && o->cycle_s > l->duration_s)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--cycle: %g s is longer than --duration %s: a cycle would run past "
                          "the soak",
                          o->cycle_s, o->duration);
    /* --mode and --load: their choices are their metavars', held by the parser */
    if (o->sweep_min > o->sweep_max)
        return sc_err_set(err, SC_ERR_USAGE, "--sweep-min: above --sweep-max");
    snprintf(l->workload_path, sizeof(l->workload_path), "%s",
             o->workload != NULL ? o->workload : SC_DEFAULT_SOAK_WORKLOAD); /* a shipped name */
    sc_status_t status = sc_workload_load(l->workload_path, &l->w, err);
    if (status == SC_OK && o->topology != NULL)
        status = sc_topology_load(o->topology, &l->topo, err);
    if (status != SC_OK)
        return status;
    if (o->topology != NULL)
        l->limits = l->topo.soak;
    else /* the defaults: a topology without expect.soak */
        l->limits =
            (sc_soak_limits_t){.max_gpu_temp_c = SC_DEFAULT_SOAK_MAX_GPU_TEMP_C,
                               .max_cpu_temp_c = SC_DEFAULT_SOAK_MAX_CPU_TEMP_C,
                               .max_throttle_fraction = SC_DEFAULT_SOAK_MAX_THROTTLE_FRACTION,
                               .max_drift = SC_DEFAULT_SOAK_MAX_DRIFT};
    if (o->max_drift >= 0)
        l->limits.max_drift = o->max_drift;
    status = sc_drive_check_outputs(&o->common, err);
    return status;
}

/* The distinct hosts in rank order, "a,b,c". */
static void soak__hosts(const sc_rte_t *rte, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int r = 0, seen = -1; r < rte->size; r++) {
        if (rte->host_index[r] <= seen)
            continue;
        seen = rte->host_index[r];
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", used ? "," : "", rte->hosts[r]);
    }
}

/* Rank 0: the journal of --resume read, checked against this launch, its options taken. */
static sc_status_t soak__read_journal(soak__launch_t *l, const sc_rte_t *rte,
                                      sc_soak_cycles_t *cycles, sc_err_t *err)
{
    char path[PATH_MAX], hosts[sizeof(l->start.hosts)];
    snprintf(path, sizeof(path), "%s/%s", l->o.resume, SC_SOAK_JOURNAL);
    bool complete = false;
    sc_status_t status = sc_soak_journal_read(path, &l->start, cycles, &complete, err);
    if (status != SC_OK)
        return sc_err_set(err, SC_ERR_USAGE, "--resume: %s", err->msg);
    soak__hosts(rte, hosts, sizeof(hosts));
    if (complete)
        return sc_err_set(err, SC_ERR_USAGE, "--resume: the soak in %s is complete (%zu cycles)",
                          l->o.resume, cycles->n);
    if (l->start.ranks != rte->size || strcmp(l->start.hosts, hosts) != 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--resume: the soak ran on %d ranks (hosts %s); this launch has %d "
                          "(hosts %s)",
                          l->start.ranks, l->start.hosts, rte->size, hosts);
    return SC_OK;
}

/* The resumed soak's options, cycles done and soak time, from rank 0 to every rank (its
 * arguments as one block of NUL-ended strings). */
static sc_status_t soak__share_resume(soak__launch_t *l, const sc_rte_t *rte,
                                      const sc_soak_cycles_t *cycles, sc_err_t *err)
{
    double figures[3] = {0};
    char *block = NULL;
    int len = 0;
    if (rte->rank == 0) {
        for (int i = 0; i < l->start.argc; i++)
            len += (int)strlen(l->start.argv[i]) + 1;
        block = malloc((size_t)len + 1);
        for (int i = 0, at = 0; block != NULL && i < l->start.argc; i++)
            at += snprintf(block + at, (size_t)(len + 1 - at), "%s", l->start.argv[i]) + 1;
        const sc_soak_cycle_t *last = cycles->n ? &cycles->items[cycles->n - 1] : NULL;
        figures[0] = last ? last->start_s + last->wall_s : 0;
        figures[1] = last ? last->cycle : 0;
        figures[2] = block != NULL ? len : -1;
    }
    MPI_Bcast(figures, 3, MPI_DOUBLE, 0, rte->world);
    if (figures[2] < 0)
        return sc_err_set(err, SC_ERR_NOMEM, "rank 0: no memory for the journal's options");
    len = (int)figures[2];
    if (rte->rank != 0)
        block = malloc((size_t)len + 1);
    MPI_Bcast(block, len, MPI_CHAR, 0, rte->world);
    l->soak_done = figures[0];
    l->cycles_done = (int)figures[1];
    l->argc = 0;
    l->argv = calloc((size_t)len + 2, sizeof(char *));
    for (int at = 0; block != NULL && l->argv != NULL && at < len;
         at += (int)strlen(block + at) + 1)
        l->argv[l->argc++] = strdup(block + at);
    free(block);
    return l->argv != NULL ? SC_OK : sc_err_set(err, SC_ERR_NOMEM, "no memory for the options");
}

/* The options of this launch: as parsed from argv, or for --resume DIR parsed again from the
 * journal's arguments (no other option may come with it). All ranks end with the same status. */
static sc_status_t soak__options_of(soak__launch_t *l, const sc_rte_t *rte,
                                    const sc_soak_opts_t *asked, sc_soak_parse_t reparse, int argc,
                                    char **argv, sc_soak_cycles_t *cycles, sc_err_t *err)
{
    l->o = *asked;
    if (l->o.resume == NULL) {
        l->argc = argc - 2;
        l->argv = NULL;
        return SC_OK;
    }
    if (argc != 4)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--resume: the soak's options come from its journal; give no others");
    const char *resume = l->o.resume;
    char why[sizeof(err->msg)] = "";
    sc_status_t status = SC_OK;
    if (rte->rank == 0 && (status = soak__read_journal(l, rte, cycles, err)) != SC_OK)
        snprintf(why, sizeof(why), "%s", err->msg);
    status = sc_rte_agree(rte, status, why, sizeof(why), err);
    if (status == SC_OK)
        status = soak__share_resume(l, rte, cycles, err);
    if (status != SC_OK)
        return status;
    /* the stored arguments parsed as the first launch's were (after "soak") */
    char **full = calloc((size_t)l->argc + 3, sizeof(char *));
    if (full == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "no memory for the options");
    full[0] = argv[0];
    full[1] = argv[1];
    for (int i = 0; i < l->argc; i++)
        full[i + 2] = l->argv[i];
    status = reparse(l->argc + 2, full, &l->o, err);
    free(full);
    l->o.resume = resume;
    return status;
}

/* What the watchdog's ending writes: the journal's end line, then result.json's final state. */
typedef struct {
    sc_drive_ending_t ending;
    char journal[PATH_MAX];
    int cycles;
} soak__ending_t;

static void soak__end_hook(void *arg, const char *dir, const sc_watchdog_end_t *end)
{
    soak__ending_t *e = arg;
    sc_err_t ignored;
    if (e->journal[0] != '\0')
        sc_soak_journal_mark(e->journal, "end", end->state, end->reason, e->cycles, &ignored);
    sc_drive_end_hook(&e->ending, dir, end);
}

/* A run: the launch, the session, rank 0's document (its cycles are every launch's). */
typedef struct {
    soak__launch_t l;
    sc_session_t ses;
    sc_result_t doc;
    soak__ending_t ending;
    sc_soak_ctx_t ctx;
} soak__run_t;

/* Rank 0: the document's header, the journal begun (or marked resumed). */
static sc_status_t soak__begin(soak__run_t *run, const sc_rte_t *rte, int argc, char **argv,
                               sc_err_t *err)
{
    sc_result_t *doc = &run->doc;
    sc_drive_doc_header(doc, &run->ses, argc, argv);
    snprintf(doc->workload, sizeof(doc->workload), "%s", run->l.w.name);
    if (run->l.o.topology != NULL)
        snprintf(doc->topology, sizeof(doc->topology), "%s", run->l.topo.name);
    doc->soak_duration_s = run->l.duration_s;
    doc->soak_launches = 1;
    doc->bytes_scale = run->l.o.bytes_scale; /* a shrunk soak says so, as a shrunk run does */
    doc->compute_scale = run->l.o.compute_scale;
    snprintf(run->ending.journal, sizeof(run->ending.journal), "%s/%s", run->ses.res.dir,
             SC_SOAK_JOURNAL);
    run->ending.cycles = run->l.cycles_done;
    sc_status_t status = sc_drive_save_doc(&run->ses, doc, "running", err);
    if (status == SC_OK && run->l.o.resume != NULL) {
        doc->soak_duration_s = run->l.start.duration_s;
        doc->soak_launches = run->l.start.launches + 1;
        return sc_soak_journal_mark(run->ending.journal, "resume", NULL, NULL, run->l.cycles_done,
                                    err);
    }
    if (status != SC_OK)
        return status;
    sc_soak_start_t s = {.ranks = rte->size,
                         .nhosts = rte->nhosts,
                         .duration_s = run->l.duration_s,
                         .argc = argc - 2,
                         .argv = argv + 2};
    snprintf(s.version, sizeof(s.version), "%s", SC_VERSION);
    snprintf(s.start_utc, sizeof(s.start_utc), "%s", doc->start_utc);
    soak__hosts(rte, s.hosts, sizeof(s.hosts));
    return sc_soak_journal_create(run->ending.journal, &s, err);
}

/* The pair check's suspects: the localisation of what quick measured (rank 0, a participant). */
static void soak__suspects(const sc_pairs_matrix_t *m, const sc_soak_ctx_t *x, const sc_rte_t *rte,
                           sc_soak_cycle_t *c)
{
    if (m->n < 2 || m->uni == NULL || x->pc == NULL)
        return;
    const char **names = calloc((size_t)m->n, sizeof(char *));
    for (int i = 0; names != NULL && i < m->n; i++)
        names[i] = rte->hosts[x->pc->world_rank[i]];
    sc_localization_t loc;
    if (names != NULL)
        sc_localize(m->uni, m->looks, m->n, names, 0, x->pairs.tolerance, NULL, &loc);
    for (int k = 0; names != NULL && k < loc.nsuspects; k++) {
        size_t used = strlen(c->suspect_text);
        snprintf(c->suspect_text + used, sizeof(c->suspect_text) - used, "%s%s %s",
                 used ? "; " : "", loc.suspects[k].kind, loc.suspects[k].where);
        c->suspects++;
    }
    if (names != NULL)
        sc_localization_free(&loc);
    free(names);
}

/* A cycle's line on the terminal and in the log. */
static void soak__print(sc_results_t *res, const sc_soak_cycle_t *c)
{
    double gpu_c = -1;
    for (int k = 0; k < c->nhosts; k++)
        gpu_c = c->hosts[k].max_gpu_temp_c > gpu_c ? c->hosts[k].max_gpu_temp_c : gpu_c;
    char pair[16] = "-", gpu[16] = "-";
    if (sc_present(c->pair_min_GBps))
        snprintf(pair, sizeof(pair), "%.4g", c->pair_min_GBps);
    if (gpu_c >= 0)
        snprintf(gpu, sizeof(gpu), "%.0f", gpu_c);
    sc_results_printf(res, "  %5d %9.1f %7.1f %10.4g %10.4g %10s %6s  %s%s%s\n", c->cycle,
                      c->start_s + c->wall_s, c->wall_s, sc_soak_cycle_busbw(c), c->step_ms, pair,
                      gpu, sc_level_name(c->level), c->breaches[0] ? "  " : "", c->breaches);
}

/* Rank 0: the cycle judged, journaled, printed, kept in the document and saved. */
static sc_status_t soak__keep(soak__run_t *run, sc_soak_cycle_t *c, sc_err_t *err)
{
    sc_soak_judge_cycle(c, &run->l.limits);
    sc_status_t status = sc_soak_journal_cycle(run->ending.journal, c, err);
    soak__print(&run->ses.res, c);
    sc_soak_cycle_t *kept = status == SC_OK ? SC_LIST_PUSH(&run->doc.soak) : NULL;
    if (status == SC_OK && kept == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank 0: no memory for the cycles");
    if (kept != NULL) {
        *kept = *c; /* the hosts move into the document */
        c->hosts = NULL;
        c->nhosts = 0;
        run->ending.cycles = c->cycle;
        run->doc.soak_s = c->start_s + c->wall_s;
        status = sc_drive_save_doc(&run->ses, &run->doc, "running", err);
    }
    return status;
}

/* Cycles until the soak time reaches the duration (rank 0 decides, every rank follows). */
static sc_status_t soak__cycles(soak__run_t *run, sc_err_t *err)
{
    const sc_rte_t *rte = run->ses.rte;
    /* rank 0 decides (its document holds the duration); the others follow its word */
    double done = run->l.soak_done, duration = run->doc.soak_duration_s;
    sc_status_t status = SC_OK;
    for (int cycle = run->l.cycles_done + 1; status == SC_OK; cycle++) {
        int go = done < duration, root = 0;
        sc_watchdog_arm(run->ses.wd, "soak, whether another cycle runs", &root, 1);
        MPI_Bcast(&go, 1, MPI_INT, 0, rte->world);
        sc_watchdog_disarm(run->ses.wd);
        if (!go)
            break;
        sc_soak_cycle_t c;
        sc_soak_cycle_init(&c);
        c.cycle = cycle;
        c.start_s = done;
        sc_pairs_matrix_t m = {0};
        status = sc_soak_cycle_run(&run->ctx, &c, &m, err);
        done += c.wall_s;
        if (status == SC_OK && rte->rank == 0) {
            soak__suspects(&m, &run->ctx, rte, &c);
            status = soak__keep(run, &c, err);
        }
        sc_pairs_matrix_free(&m);
        sc_soak_cycle_free(&c);
    }
    return status;
}

/* The pair check's participants: one rank per host, when there are several hosts. */
static sc_status_t soak__participants(soak__run_t *run, sc_err_t *err)
{
    const sc_rte_t *rte = run->ses.rte;
    sc_soak_ctx_t *x = &run->ctx;
    x->pcontrol = MPI_COMM_NULL;
    x->pair_check = rte->nhosts > 1;
    if (!x->pair_check)
        return SC_OK;
    bool in = rte->local_rank == 0;
    return sc_comm_split_group(run->ses.world, rte->world, in, rte->rank, &x->pc, &x->pcontrol,
                               err);
}

/* The end: the run judged over every cycle, the verdict printed, the journal's end line, the
 * document, the report and the metrics (rank 0). The verdict's exit code into failed. */
static sc_status_t soak__finish(soak__run_t *run, int *failed, sc_err_t *err)
{
    sc_result_t *doc = &run->doc;
    sc_soak_judge(&doc->soak, &run->l.limits, &doc->checks, doc->not_checked,
                  sizeof(doc->not_checked));
    doc->judged = true;
    sc_results_printf(&run->ses.res, "# soak: %zu cycles, %.0f of %.0f s\n", doc->soak.n,
                      doc->soak_s, doc->soak_duration_s);
    if (doc->not_checked[0] != '\0')
        sc_results_printf(&run->ses.res, "# not checked: %s\n", doc->not_checked);
    sc_verdict_print(stdout, run->ses.res.log, &doc->checks);
    *failed = sc_verdict_exit(doc);
    char said[48];
    snprintf(said, sizeof(said), "verdict %s", sc_verdict_row(sc_result_verdict(doc))->name);
    sc_status_t status =
        sc_soak_journal_mark(run->ending.journal, "end", "complete", said, run->ending.cycles, err);
    if (status == SC_OK)
        status = sc_drive_complete(&run->ses, doc, &run->ending.ending, err);
    return status;
}

/* The most memory a rank's buffers take in a cycle: the sweep's largest all-reduce (sent and
 * received), the workload's step at full scale, the pair check's messages; flag: the option that
 * asks for the most. */
static uint64_t soak__need(const soak__run_t *run, const char **flag)
{
    const sc_soak_opts_t *o = &run->l.o;
    uint64_t need = 2 * o->sweep_max, pairs = 2 * o->pair_size + 8;
    *flag = "--sweep-max";
    if (pairs > need) { /* the refusal names the option that asks for the most */
        need = pairs;
        *flag = "--pair-size";
    }
    int n = run->ses.world->size;
    sc_workload_t at;
    sc_layout_t l;
    sc_plan_t plan;
    sc_err_t ignored; /* a workload that does not lay out here fails in the cycle, saying why */
    sc_workload_at(&run->l.w, n, &at);
    if (sc_workload_layout(&at, n, &l, &ignored) == SC_OK &&
        sc_plan_build(&at, &l, &plan, &ignored) == SC_OK) {
        uint64_t step = sc_step_buffer_bytes(&plan, o->bytes_scale);
        if (step > need) {
            need = step;
            *flag = "--workload's step (its buffers at --bytes-scale)";
        }
        sc_plan_free(&plan);
    }
    return need;
}

/* What a burn runs: the options', within the host path's bounds where the device is the host
 * (a GPU backend has matrix products of its own). */
static sc_burn_spec_t soak__burn_spec(const soak__run_t *run)
{
    const sc_soak_opts_t *o = &run->l.o;
    bool gpu = run->ses.world != NULL && sc_comm_has_gemm(run->ses.world);
    sc_burn_spec_t spec = {.type = gpu ? SC_GEMM_bf16 : SC_GEMM_fp32,
                           .size = o->burn_size,
                           .stream_bytes = (double)o->burn_stream};
    if (!gpu && spec.size > SC_DEFAULT_HOST_BURN_SIZE)
        spec.size = SC_DEFAULT_HOST_BURN_SIZE;
    if (!gpu && spec.stream_bytes > (double)SC_DEFAULT_HOST_BURN_BYTES)
        spec.stream_bytes = (double)SC_DEFAULT_HOST_BURN_BYTES;
    return spec;
}

/* The measurement's settings from the options. */
static void soak__context(soak__run_t *run)
{
    const sc_soak_opts_t *o = &run->l.o;
    run->ctx = (sc_soak_ctx_t){.ses = &run->ses,
                               .w = &run->l.w,
                               .bytes_scale = o->bytes_scale,
                               .compute_scale = o->compute_scale,
                               .steps = o->steps,
                               .warmup = o->warmup,
                               .sweep_min = o->sweep_min,
                               .sweep_max = o->sweep_max,
                               .sweep_iters = o->sweep_iters,
                               .telemetry_s = o->telemetry_s,
                               .cycle_s = o->cycle_s,
                               .burn = strcmp(o->load, "burn") == 0,
                               .burn_spec = soak__burn_spec(run),
                               .pcontrol = MPI_COMM_NULL,
                               .pairs = {.size = o->pair_size,
                                         .iters = 4,
                                         .lat_iters = 20,
                                         .looks = SC_DEFAULT_LOOKS,
                                         .serial = !strcmp(o->mode, "serial"),
                                         .tolerance = o->pair_tolerance,
                                         .strategy = SC_PAIRS_quick}};
}

static void soak__run_free(soak__run_t *run)
{
    sc_comm_group_close(&run->ctx.pc, &run->ctx.pcontrol);
    for (int i = 0; run->l.argv != NULL && i < run->l.argc; i++)
        free(run->l.argv[i]);
    free(run->l.argv);
    sc_soak_start_free(&run->l.start);
    if (run->doc.command[0] != '\0')
        sc_result_free(&run->doc);
}

int sc_drive_soak(const sc_rte_t *rte, const sc_soak_opts_t *opts, sc_soak_parse_t reparse,
                  int argc, char **argv)
{
    soak__run_t run;
    memset(&run, 0, sizeof(run));
    run.ctx.pcontrol = MPI_COMM_NULL;
    sc_result_init(&run.doc, "soak");
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status =
        soak__options_of(&run.l, rte, opts, reparse, argc, argv, &run.doc.soak, &err);
    if (status == SC_OK) /* every input checked before anything is made */
        status = soak__inputs(&run.l, &err);
    const sc_soak_opts_t *o = &run.l.o;
    run.ending.ending = (sc_drive_ending_t){.command = "soak", .common = &o->common};
    if (status == SC_OK) {
        sc_session_opts_t so = {
            .common = &o->common, .default_name = "soak", .reuse_dir = o->resume};
        status = sc_session_open(&run.ses, rte, &so, &err);
    }
    if (status == SC_OK)
        sc_session_on_end(&run.ses, soak__end_hook, &run.ending);
    soak__context(&run);
    /* before any buffer and before the journal: too large is bad usage, exit 2, and a resumed
     * soak's journal and result.json stay as they were */
    if (status == SC_OK) {
        const char *flag = NULL;
        uint64_t need = soak__need(&run, &flag);
        status = sc_comm_check_memory(run.ses.world, need, flag, &err);
    }
    if (status == SC_OK && rte->rank == 0)
        status = soak__begin(&run, rte, argc, argv, &err);
    if (status == SC_OK && rte->nhosts > 1 && !o->common.no_preflight)
        status = sc_drive_preflight_hosts(&run.ses, &run.doc, &err);
    if (status == SC_OK)
        status = soak__participants(&run, &err);
    if (status == SC_OK && rte->rank == 0)
        sc_results_printf(&run.ses.res,
                          "# soak of %.0f s on %d ranks (%d hosts), workload %s\n"
                          "# %5s %9s %7s %10s %10s %10s %6s  verdict\n",
                          run.doc.soak_duration_s, rte->size, rte->nhosts, run.l.w.name, "cycle",
                          "soak_s", "wall_s", "busbw", "step_ms", "pair_GBps", "gpu_C");
    if (status == SC_OK)
        status = soak__cycles(&run, &err);
    int failed = 0;
    if (status == SC_OK && rte->rank == 0)
        status = soak__finish(&run, &failed, &err);
    if (status != SC_OK && err.status != SC_ERR_USAGE && rte->rank == 0 &&
        run.ending.journal[0] != '\0') {
        sc_err_t ignored;
        sc_soak_journal_mark(run.ending.journal, "end", "failed", err.msg, run.ending.cycles,
                             &ignored);
        sc_drive_save_failed(&run.ses, &run.doc, &err, &run.ending.ending);
    }
    int code = sc_session_finish(&run.ses, rte, "soak", status, &err, failed);
    soak__run_free(&run);
    sc_session_close(&run.ses);
    return code;
}
