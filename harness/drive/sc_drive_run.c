/* sc_drive_run.c - `scalecheck run --workload W`, driven: the training step of a workload on the
 * first k ranks of each node (the 1-8 GPU curve) and on 1..N nodes (the multi-node curve), in one
 * launch through sub-communicators. Per point: step time (median, p99), throughput, speedup
 * against the smallest point, scaling efficiency, the exposed-communication share of the step,
 * the slowest rank and its host, and the calls and bytes the step communicated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drive/sc_drive_run.h"
#include "judge/sc_verdict.h"
#include "comm/sc_comm_ops.h"
#include "drive/sc_drive_end.h"
#include "drive/sc_drive_baseline.h"
#include "session/sc_session.h"
#include "report/sc_report.h"
#include "patterns/sc_pattern.h"
#include "sc_config.h"
#include "util/sc_clock.h"
#include "util/sc_stats.h"
#include "report/sc_json_out.h"
#include "util/sc_files.h"
#include "session/sc_results.h"
#include "drive/sc_drive_preflight.h"
#include "report/sc_prometheus.h"

/* Host-major order: ranks of a point on one node are neighbours, so TP groups stay in a node. */
static bool run__in_point(const sc_rte_t *rte, const sc_run_point_t *pt, int *key)
{
    int r = rte->rank;
    *key = rte->host_index[r] * 65536 + rte->local_rank;
    return rte->host_index[r] < pt->nodes && rte->local_rank < pt->gpus_per_node;
}

/* The points to run, each checked against the ranks there are and the workload's layout -
 * before anything runs. */
static sc_status_t run__points(sc_run_t *run, sc_err_t *err)
{
    const sc_rte_t *rte = run->rte;
    int min_local = rte->size;
    for (int h = 0; h < rte->nhosts; h++) {
        int n = 0;
        for (int r = 0; r < rte->size; r++)
            n += rte->host_index[r] == h;
        min_local = n < min_local ? n : min_local;
    }
    const sc_run_opts_t *o = &run->opts;
    int kmax = 0;
    /* ranks per model replica; scaling model grows tp to fill the point */
    long long model = run->w.scaling == SC_SCALING_MODEL ? run->w.pp : run->w.tp * run->w.pp;
    for (int i = 0; i < o->nscales; i++) {
        if (!o->scales_given && o->scales[i] % model != 0)
            continue; /* default scales: only those the layout fits */
        if (o->scales[i] > min_local)
            return sc_err_set(err, SC_ERR_USAGE,
                              "--scales: %d GPUs per node asked, but a node has only %d ranks",
                              o->scales[i], min_local);
        run->points[run->npoints++] = (sc_run_point_t){o->scales[i], 1};
        kmax = o->scales[i] > kmax ? o->scales[i] : kmax;
    }
    bool node_curve_only = kmax == 0; /* a model replica spans nodes: only whole nodes */
    if (node_curve_only)
        kmax = min_local;
    for (int i = 0; i < o->nnodes; i++) {
        int n = o->nodes[i];
        if (n > rte->nhosts)
            return sc_err_set(err, SC_ERR_USAGE, "--nodes: %d nodes asked, the job has %d", n,
                              rte->nhosts);
        bool fits = ((long long)kmax * n) % model == 0;
        if ((n > 1 || node_curve_only) && (fits || o->nnodes_given) && run->npoints < 64)
            run->points[run->npoints++] = (sc_run_point_t){kmax, n};
    }
    if (run->npoints == 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "workload %s: tp %lld x pp %lld = %lld ranks per model replica, more "
                          "than the %d ranks per node here (--tp/--pp override it)",
                          run->w.name, run->w.tp, run->w.pp, model, min_local);
    for (int i = 0; i < run->npoints; i++) {
        sc_layout_t l;
        sc_workload_t at;
        int n = run->points[i].gpus_per_node * run->points[i].nodes;
        sc_workload_at(&run->w, n, &at);
        sc_status_t status = sc_workload_layout(&at, n, &l, err);
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

/* The grid as seen from every rank of the point, for the record (and the tests): rank 0 of the
 * point fills p->grid. */
static void run__grid(const sc_grid_t *g, sc_comm_t *pc, MPI_Comm control, sc_point_t *p)
{
    const sc_layout_t *l = &g->layout;
    int width = 4 + l->tp + l->pp + l->dp, n = pc->size;
    int *mine = calloc((size_t)width, sizeof(int)), *all = NULL;
    mine[0] = pc->world_rank[pc->rank];
    mine[1] = g->d;
    mine[2] = g->p;
    mine[3] = g->t;
    const sc_comm_t *groups[3] = {g->tp, g->pp, g->dp};
    const int sizes[3] = {l->tp, l->pp, l->dp};
    int at = 4;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < sizes[k]; i++)
            mine[at++] = groups[k] ? groups[k]->world_rank[i] : mine[0];
    if (pc->rank == 0)
        all = malloc((size_t)width * (size_t)n * sizeof(int));
    MPI_Gather(mine, width, MPI_INT, all, width, MPI_INT, 0, control);
    if (pc->rank == 0 && all != NULL)
        p->grid = calloc((size_t)n, sizeof(sc_grid_row_t));
    for (int r = 0; p->grid != NULL && r < n; r++) {
        const int *row = all + (size_t)r * (size_t)width;
        sc_grid_row_t *gr = &p->grid[r];
        *gr = (sc_grid_row_t){
            .rank = row[0], .d = row[1], .p = row[2], .t = row[3], .compute_tflops = SC_ABSENT};
        gr->tp_group = malloc((size_t)(width - 4) * sizeof(int)); /* the three groups */
        if (gr->tp_group == NULL)
            break;
        memcpy(gr->tp_group, row + 4, (size_t)(width - 4) * sizeof(int));
        gr->pp_group = gr->tp_group + l->tp;
        gr->dp_group = gr->pp_group + l->pp;
        p->ngrid = r + 1;
    }
    free(mine);
    free(all);
}

/* Runs warm-up and timed steps on this rank; step_ms[i] gets this rank's step times. */
static sc_status_t run__steps(sc_run_t *run, sc_step_t *step, sc_comm_t *pc, double *step_ms,
                              sc_err_t *err)
{
    const sc_run_opts_t *o = &run->opts;
    sc_status_t status = SC_OK;
    for (int i = 0; i < o->warmup + o->steps && status == SC_OK; i++) {
        if (i == o->warmup) { /* what was counted in warm-up does not count */
            memset(&step->counts, 0, sizeof(step->counts));
            step->comm_us = step->compute_us = step->compute_flops = 0;
            status = sc_comm_barrier(pc, err);
        }
        sc_timeline_step(step->timeline, i >= o->warmup ? i - o->warmup : -1);
        uint64_t t0 = sc_clock_ns();
        if (status == SC_OK)
            status = sc_step_run(step, err);
        if (i >= o->warmup) {
            step_ms[i - o->warmup] = (double)(sc_clock_ns() - t0) * 1e-6;
            sc_timeline_step_end(step->timeline, step_ms[i - o->warmup]);
        }
        sc_watchdog_tick(sc_watchdog_progress(run->ses.wd));
    }
    return status;
}

/* The calls and bytes per step of each operation kind, over all ranks of the point. */
static void run__counts(const sc_pattern_counts_t *c, int steps, sc_point_t *p)
{
    for (int op = 0; op < SC_PLAN_OP_COUNT && p->ncomm < SC_POINT_OPS; op++)
        if (c->calls[op] > 0) {
            sc_op_count_t *k = &p->comm[p->ncomm++];
            snprintf(k->op, sizeof(k->op), "%s", sc_plan_op_index_name(op));
            k->calls = (double)c->calls[op] / steps;
            k->bytes = (double)c->bytes[op] / steps;
            k->sent_bytes = (double)c->sent[op] / steps;
        }
}

/* A rank's mean time in its own work a step, in ms, and its world rank (MPI_DOUBLE_INT). */
typedef struct {
    double v;
    int rank;
} run__own_t;

/* The point's slowest rank from every rank's own work (own: n of them, NULL without memory),
 * how much later than their median it is, and the step without that. */
static void run__straggler(const sc_run_t *run, const run__own_t *own, int n, double step_ms,
                           sc_point_t *p)
{
    double *v = own != NULL ? malloc((size_t)n * sizeof(*v)) : NULL;
    for (int i = 0; v != NULL && i < n; i++)
        v[i] = own[i].v;
    sc_straggler_t s = {.index = -1};
    if (v != NULL)
        sc_straggler_find(v, n, &s);
    free(v);
    int slowest = s.index >= 0 ? s.index : 0;
    p->slowest_rank = own != NULL ? own[slowest].rank : 0;
    snprintf(p->slowest_host, sizeof(p->slowest_host), "%s", run->rte->hosts[p->slowest_rank]);
    p->slowest_rank_mean_ms = own != NULL ? own[slowest].v : SC_ABSENT;
    if (s.index >= 0) {
        p->slowest_lag_ms = s.lag;
        double without = step_ms - s.cost; /* the own times are in ms here */
        p->step_without_slowest_ms = without > 0 ? without : 0;
    }
}

/* Combines the point's per-rank measurements on the control communicator; rank 0 (always in
 * the point) fills p. */
/* A sample's training FLOPs at a point of gpus (the model grows with them under
 * batch.scaling model): what the curve's efficiency counts. */
static double run__work_per_sample(const sc_run_t *run, int gpus)
{
    sc_workload_t at;
    sc_workload_at(&run->w, gpus, &at);
    return sc_workload_train_flops_per_sample(&at);
}

static void run__combine(sc_run_t *run, const sc_run_point_t *pt, const sc_layout_t *l,
                         sc_step_t *step, double *step_ms, MPI_Comm control, sc_point_t *p)
{
    int steps = run->opts.steps, n = 0;
    MPI_Comm_size(control, &n);
    double mean = 0;
    for (int i = 0; i < steps; i++)
        mean += step_ms[i] / steps;
    /* The slowest rank is the one with the most time in its own work (the step less its time in
     * communication, waits included): in lockstep every rank's step takes as long as the
     * slowest's, and the others spend the difference waiting for it. Every rank's, to rank 0:
     * how far it stands out, and what the step would take without it (sc_straggler_find). */
    run__own_t mine = {mean - step->comm_us / 1e3 / (steps > 0 ? steps : 1), run->rte->rank};
    run__own_t *own = run->rte->rank == 0 ? calloc((size_t)n, sizeof(*own)) : NULL;
    MPI_Gather(&mine, 1, MPI_DOUBLE_INT, own, 1, MPI_DOUBLE_INT, 0, control);
    MPI_Allreduce(MPI_IN_PLACE, step_ms, steps, MPI_DOUBLE, MPI_MAX, control);
    double frac = step->comm_us / (mean * steps * 1e3 > 0 ? mean * steps * 1e3 : 1.0);
    MPI_Allreduce(MPI_IN_PLACE, &frac, 1, MPI_DOUBLE, MPI_SUM, control);
    MPI_Allreduce(MPI_IN_PLACE, step->counts.calls, SC_PLAN_OP_COUNT, MPI_UINT64_T, MPI_SUM,
                  control);
    MPI_Allreduce(MPI_IN_PLACE, step->counts.bytes, SC_PLAN_OP_COUNT, MPI_UINT64_T, MPI_SUM,
                  control);
    MPI_Allreduce(MPI_IN_PLACE, step->counts.sent, SC_PLAN_OP_COUNT, MPI_UINT64_T, MPI_SUM,
                  control);
    if (run->rte->rank != 0)
        return;
    sc_stats_t st;
    sc_stats_compute(step_ms, (size_t)steps, &st);
    run__straggler(run, own, n, st.median, p);
    free(own);
    int gpus = pt->gpus_per_node * pt->nodes;
    double throughput = sc_workload_samples_per_step(&run->w, l) / (st.median * 1e-3);
    p->gpus = gpus;
    p->nodes = pt->nodes;
    p->dp = l->dp;
    p->tp = l->tp;
    p->pp = l->pp;
    p->micro_batches = l->micro_batches;
    p->steps = steps;
    p->step_time_ms = st.median;
    p->step_time_p99_ms = st.p99;
    p->step_time_cv = st.cv;
    p->throughput = throughput;
    const sc_points_t *done = &run->doc.points; /* the first point is the base */
    sc_scale_base_t base = {0, 0};
    if (done->n > 0)
        base = (sc_scale_base_t){done->items[0].throughput *
                                     run__work_per_sample(run, done->items[0].gpus),
                                 done->items[0].gpus};
    sc_scaling(&base, throughput, run__work_per_sample(run, gpus), gpus, &p->speedup,
               &p->efficiency);
    p->comm_fraction = frac / n;
    run__counts(&step->counts, steps, p);
}

/* Runs of the compute alone and the communication alone (the fastest kept): as many as the timed
 * steps, at most 3. */
#define RUN__ALONE_STEPS 3

/* --trace keeps, of each point's timed steps, the slowest few and a sample of the others. */
#define RUN__TRACE_SLOWEST 3
#define RUN__TRACE_SAMPLED 5

/* The point's timelines to rank 0, and the trace written again with them (what finished is kept
 * whatever ends the run later). */
static sc_status_t run__trace_point(sc_run_t *run, const sc_run_point_t *pt, sc_timeline_t *tl,
                                    MPI_Comm control, sc_err_t *err)
{
    sc_status_t status = sc_timeline_sync(tl, control, err);
    sc_tl_event_t *events = NULL;
    size_t n = 0;
    if (status == SC_OK)
        status = sc_timeline_gather(tl, control, &events, &n, err);
    if (status != SC_OK || run->rte->rank != 0 || run->ntrace == 64) {
        free(events);
        return status;
    }
    sc_trace_point_t *p = &run->trace[run->ntrace++];
    snprintf(p->label, sizeof(p->label), "%d GPU%s x %d node%s", pt->gpus_per_node,
             pt->gpus_per_node == 1 ? "" : "s", pt->nodes, pt->nodes == 1 ? "" : "s");
    p->events = events;
    p->n = n;
    return sc_trace_write(run->opts.trace, run->trace, run->ntrace,
                          (const char(*)[SC_HOST_MAX])run->rte->hosts, run->rte->size, err);
}

/* One point, on the ranks in it. */
static sc_status_t run__point(sc_run_t *run, const sc_run_point_t *pt, sc_comm_t *pc,
                              MPI_Comm control, sc_point_t *out, sc_err_t *err)
{
    sc_step_ready_t r;
    sc_status_t status =
        sc_step_prepare(pc, &run->w, run->opts.bytes_scale, run->opts.compute_scale, &r, err);
    if (status != SC_OK)
        return status;
    double *step_ms = calloc((size_t)run->opts.steps, sizeof(double));
    if (step_ms == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): no memory for step times",
                            run->rte->rank, run->rte->host);
    /* --trace: the timed steps' timelines, the clocks synchronised before and after */
    sc_timeline_t *tl = run->opts.trace != NULL
                            ? sc_timeline_new(run->rte->rank, run->opts.steps, RUN__TRACE_SLOWEST,
                                              RUN__TRACE_SAMPLED)
                            : NULL;
    if (status == SC_OK && run->opts.trace != NULL)
        status = sc_timeline_sync(tl, control, err);
    r.step.timeline = tl;
    if (status == SC_OK)
        status = run__steps(run, &r.step, pc, step_ms, err);
    r.step.timeline = NULL;
    if (status == SC_OK && run->opts.trace != NULL)
        status = run__trace_point(run, pt, tl, control, err);
    sc_timeline_free(tl);
    double alone_c = 0, alone_m = 0; /* the products run: what overlap hid */
    if (status == SC_OK && r.step.kernels)
        status = sc_step_alone(
            &r.step, pc, run->opts.steps < RUN__ALONE_STEPS ? run->opts.steps : RUN__ALONE_STEPS,
            sc_watchdog_progress(run->ses.wd), &alone_c, &alone_m, err);
    if (status == SC_OK) {
        if (pc->size <= 64)
            run__grid(&r.grid, pc, control, out);
        run__combine(run, pt, &r.layout, &r.step, step_ms, control, out);
        sc_run_compute_combine(run, &r.step, pc, alone_c, alone_m, control, out);
    }
    free(step_ms);
    sc_step_release(&r);
    return status;
}

static void run__print_row(sc_run_t *run, const sc_point_t *p)
{
    sc_results_printf(
        &run->ses.res,
        "  %5d %5d %4d %3d %3d %11.3f %11.3f %12.1f %8.3f %6.3f %6.1f  %s (rank %d)\n", p->gpus,
        p->nodes, p->dp, p->tp, p->pp, p->step_time_ms, p->step_time_p99_ms, p->throughput,
        p->speedup, p->efficiency, 100 * p->comm_fraction, p->slowest_host, p->slowest_rank);
    fflush(stdout);
}

static void run__point_free(sc_point_t *p)
{
    for (int g = 0; g < p->ngrid; g++)
        free(p->grid[g].tp_group);
    free(p->grid);
    p->grid = NULL;
    p->ngrid = 0;
}

/* Point i on the ranks in it, the others waiting quietly; the point in *p on rank 0. */
static sc_status_t run__measure(sc_run_t *run, int i, sc_point_t *p, sc_err_t *err)
{
    const sc_rte_t *rte = run->rte;
    const sc_run_point_t *pt = &run->points[i];
    int key = 0;
    bool in = run__in_point(rte, pt, &key);
    bool progress = rte->rank == 0 && isatty(STDERR_FILENO); /* never into a log file */
    if (progress)
        fprintf(stderr, "[%d/%d] %d GPU%s x %d node%s ...\r", i + 1, run->npoints,
                pt->gpus_per_node, pt->gpus_per_node == 1 ? "" : "s", pt->nodes,
                pt->nodes == 1 ? "" : "s");
    char what[96];
    snprintf(what, sizeof(what), "run point %d/%d (splitting)", i + 1, run->npoints);
    sc_watchdog_arm(run->ses.wd, what, run->ses.world->world_rank, run->ses.world->size);
    sc_comm_t *pc = NULL;
    MPI_Comm control = MPI_COMM_NULL;
    sc_status_t status =
        sc_comm_split_group(run->ses.world, rte->world, in, key, &pc, &control, err);
    sc_point_init(p);
    snprintf(what, sizeof(what), "run point %d/%d (training steps)", i + 1, run->npoints);
    sc_watchdog_arm(run->ses.wd, what, run->ses.world->world_rank, run->ses.world->size);
    uint64_t started = sc_clock_ns();
    if (status == SC_OK && in)
        status = run__point(run, pt, pc, control, p, err);
    p->measure_s = (double)(sc_clock_ns() - started) * 1e-9;
    sc_comm_group_close(&pc, &control);
    /* ranks outside the point wait here, watched, and quietly: spinning, they would take
     * the cores of an oversubscribed host from the ranks being measured */
    if (status == SC_OK)
        status = sc_rte_quiet_barrier(rte, rte->world, err);
    sc_watchdog_disarm(run->ses.wd);
    if (progress) /* erased, so that what follows (the row, an error) starts on a clean line */
        fputs("\r\033[K", stderr);
    if (status != SC_OK)
        run__point_free(p);
    return status;
}

/* The most buffer memory a rank of the run needs: the largest point's step buffer, or the
 * sweep's two buffers at --sweep-max. */
static uint64_t run__largest_need(const sc_run_t *run)
{
    uint64_t largest = 2 * run->opts.sweep_max;
    for (int i = 0; i < run->npoints; i++) {
        sc_workload_t at;
        sc_layout_t l;
        sc_plan_t plan;
        sc_err_t ignored; /* a point that does not lay out fails later, with its own message */
        int n = run->points[i].gpus_per_node * run->points[i].nodes;
        sc_workload_at(&run->w, n, &at);
        if (sc_workload_layout(&at, n, &l, &ignored) != SC_OK ||
            sc_plan_build(&at, &l, &plan, &ignored) != SC_OK)
            continue;
        uint64_t need = sc_step_buffer_bytes(&plan, run->opts.bytes_scale);
        largest = need > largest ? need : largest;
        sc_plan_free(&plan);
    }
    return largest;
}

static void run__write_result(sc_run_t *run)
{
    sc_err_t ignored;
    sc_drive_save_doc(&run->ses, &run->doc, "running", &ignored);
}

static sc_status_t run__all_points(sc_run_t *run, sc_err_t *err)
{
    if (run->rte->rank == 0)
        sc_results_printf(&run->ses.res,
                          "#\n# %5s %5s %4s %3s %3s %11s %11s %12s %8s %6s %6s  %s\n", "gpus",
                          "nodes", "dp", "tp", "pp", "step_ms", "p99_ms", "samples/s", "speedup",
                          "eff", "comm%", "slowest");
    for (int i = 0; i < run->npoints; i++) {
        sc_point_t p;
        sc_status_t status = run__measure(run, i, &p, err);
        if (status != SC_OK)
            return status;
        if (run->rte->rank == 0) {
            run__print_row(run, &p);
            sc_point_t *kept = SC_LIST_PUSH(&run->doc.points);
            if (kept != NULL)
                *kept = p; /* the document owns the grid now */
            else
                run__point_free(&p);
            run__write_result(run);
        }
    }
    return SC_OK;
}

sc_status_t sc_run_point_again(sc_run_t *run, int i, sc_err_t *err)
{
    sc_point_t p;
    sc_status_t status = run__measure(run, i, &p, err);
    if (status != SC_OK || run->rte->rank != 0)
        return status;
    sc_point_t *kept = &run->doc.points.items[i];
    int looks = kept->looks + 1;
    double measure_s = kept->measure_s + p.measure_s; /* every look's time, the kept one's or not */
    if (p.step_time_ms > 0 && p.step_time_ms < kept->step_time_ms) {
        run__point_free(kept);
        *kept = p; /* the faster look is kept, with its grid */
        run__print_row(run, kept);
    } else {
        run__point_free(&p);
    }
    kept->looks = looks;
    kept->measure_s = measure_s;
    run__write_result(run);
    return SC_OK;
}

/* The run's own files (sc_drive_ending_t.also, every ending): the points as CSV in the run
 * directory and at --csv. */
static sc_status_t run__own_files(void *ctx, const sc_result_t *doc, sc_err_t *err)
{
    sc_run_t *run = ctx;
    const sc_points_t *points = &doc->points;
    char path[PATH_MAX];
    sc_status_t status = sc_csv_write_records(
        sc_results_path(&run->ses.res, "points.csv", path, sizeof(path)), points->items, points->n,
        sizeof(*points->items), sc_point_fields, err);
    if (status == SC_OK && run->opts.common.csv_path[0] != '\0')
        status = sc_csv_write_records(run->opts.common.csv_path, points->items, points->n,
                                      sizeof(*points->items), sc_point_fields, err);
    return status;
}

/* The document's header: what runs, where, how. */
static void run__document(sc_run_t *run)
{
    sc_result_t *d = &run->doc;
    sc_result_init(d, "run");
    sc_drive_doc_header(d, &run->ses, run->argc, run->argv);
    snprintf(d->workload, sizeof(d->workload), "%s", run->w.name);
    snprintf(d->workload_file, sizeof(d->workload_file), "%s", run->opts.workload);
    d->bytes_scale = run->opts.bytes_scale;
    d->compute_scale = run->opts.compute_scale;
    d->steps = run->opts.steps;
    d->warmup = run->opts.warmup;
}

static sc_status_t run__setup(sc_run_t *run, sc_err_t *err)
{
    const sc_rte_t *rte = run->rte;
    char name[128];
    snprintf(name, sizeof(name), "run-%s", run->w.name);
    sc_session_opts_t so = {.common = &run->opts.common, .default_name = name};
    sc_status_t status = sc_session_open(&run->ses, rte, &so, err);
    if (status != SC_OK)
        return status;
    run->ending = (sc_drive_ending_t){
        .command = "run", .common = &run->opts.common, .also = run__own_files, .ctx = run};
    sc_session_on_end(&run->ses, sc_drive_end_hook, &run->ending);
    sc_kvs_t *rank_info = sc_session_rank_info(&run->ses);
    if (rte->rank != 0)
        return SC_OK;
    const sc_comm_t *world = run->ses.world;
    run__document(run);
    run->doc.rank_info = rank_info;
    sc_results_printf(&run->ses.res,
                      "# scalecheck %s run | workload %s | backend %s (%s) | %d ranks on %d "
                      "host%s\n# %s\n# bytes x%g, compute x%g, %d steps after %d warm-up; "
                      "results %s\n",
                      SC_VERSION, run->w.name, sc_comm_name(world), sc_comm_version(run->ses.world),
                      rte->size, rte->nhosts, rte->nhosts == 1 ? "" : "s",
                      run->ses.note[0] ? run->ses.note : "backend chosen", run->opts.bytes_scale,
                      run->opts.compute_scale, run->opts.steps, run->opts.warmup, run->ses.res.dir);
    /* written whole before anything is measured: an ending in the first point (a signal, a
     * killed rank) finds the header to mark, not an empty folder */
    run__write_result(run);
    return SC_OK;
}

static void run__teardown(sc_run_t *run)
{
    for (int i = 0; i < run->ntrace; i++)
        free(run->trace[i].events);
    sc_session_close(&run->ses);
    sc_result_free(&run->doc);
    sc_baseline_free(&run->baseline);
}

int sc_drive_ranks_per_host(const sc_rte_t *rte)
{
    int least = rte->local_size;
    if (rte->world != MPI_COMM_NULL) /* NULL: alone, the man page being written */
        MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_INT, MPI_MIN, rte->world);
    return least;
}

int sc_drive_run(const sc_rte_t *rte, const sc_run_opts_t *opts, int argc, char **argv)
{
    sc_run_t run = {.rte = rte, .argc = argc, .argv = argv, .opts = *opts};
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_workload_load(run.opts.workload, &run.w, &err);
    if (status == SC_OK)
        status = sc_workload_override(&run.w, run.opts.tp, run.opts.pp, &err);
    if (status == SC_OK)
        status = run__points(&run, &err);
    /* every input and output checked before the session makes a results directory */
    if (status == SC_OK && run.opts.topology)
        status = sc_topology_load(run.opts.topology, &run.topo, &err);
    if (status == SC_OK)
        status = sc_drive_baseline_load(run.opts.baseline, &run.baseline, &err);
    if (status == SC_OK)
        status = sc_drive_check_outputs(&run.opts.common, &err);
    if (status == SC_OK)
        status = sc_files_check_output("--trace", run.opts.trace, &err);
    if (status == SC_OK)
        status = run__setup(&run, &err);
    if (status == SC_OK && rte->nhosts > 1 && !run.opts.common.no_preflight)
        status = sc_drive_preflight_hosts(&run.ses, &run.doc, &err);
    if (status == SC_OK)
        status =
            sc_comm_check_memory(run.ses.world, run__largest_need(&run),
                                 run.opts.sweep_max > 0 ? "--sweep-max" : "--bytes-scale", &err);
    if (status == SC_OK && run.opts.calibrate)
        status = sc_run_calibrate(&run, &err);
    sc_load_mark(&run.load_from); /* what else runs here, from the first probe on */
    if (status == SC_OK)
        status = sc_run_probe(&run, &run.probe_before, &run.probe_before_looks, &err);
    if (status == SC_OK)
        status = run__all_points(&run, &err);
    if (status == SC_OK)
        status = sc_run_sweep_and_verdict(&run, &err);
    if (status == SC_OK)
        sc_session_telemetry(&run.ses, &run.doc.health, &run.doc.nhealth);
    if (status == SC_OK && rte->rank == 0) {
        status = sc_drive_complete(&run.ses, &run.doc, &run.ending, &err);
    }
    if (status != SC_OK && run.doc.command[0] != '\0')
        sc_drive_save_failed(&run.ses, &run.doc, &err, &run.ending);
    /* Every rank leaves with the verdict's exit code (sc_verdict_exit: 1 a check failed or data
     * came back wrong, 5 the FAILs were measured on a disturbed machine). */
    int failed = rte->rank == 0 ? sc_verdict_exit(&run.doc) : 0;
    int code = sc_session_finish(&run.ses, rte, "run", status, &err, failed);
    run__teardown(&run);
    return code;
}
