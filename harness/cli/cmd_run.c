/* cmd_run.c - `scalecheck run --workload W`: the training step of a workload on the first k
 * ranks of each node (the 1-8 GPU curve) and on 1..N nodes (the multi-node curve), in one
 * launch through sub-communicators. Per point: step time (median, p99), throughput, speedup
 * against the smallest point, scaling efficiency, the exposed-communication share of the step,
 * the slowest rank and its host, and the calls and bytes the step communicated. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_run_opts.h"
#include "cli/sc_cmd.h"
#include "session/sc_session.h"
#include "engine/sc_sweep.h"
#include "judge/sc_run_verdict.h"
#include "report/sc_verdict_render.h"
#include "detect/sc_detect.h"
#include "report/sc_report.h"
#include "judge/sc_verdict.h"
#include "patterns/sc_pattern.h"
#include "sc_config.h"
#include "util/sc_clock.h"
#include "util/sc_stats.h"
#include "report/sc_json_out.h"
#include "util/sc_files.h"
#include "session/sc_results.h"

typedef struct {
    int gpus_per_node, nodes;
} run__point_t;

typedef struct {
    const sc_rte_t *rte;
    sc_run_opts_t opts;
    sc_workload_t w;
    sc_topology_t topo;
    run__point_t points[64];
    int npoints;
    sc_session_t ses;
    json_t *doc, *points_json;
    double base_throughput;
    int base_gpus;
} run__t;

/* Host-major order: ranks of a point on one node are neighbours, so TP groups stay in a node. */
static bool run__in_point(const sc_rte_t *rte, const run__point_t *pt, int *key)
{
    int r = rte->rank;
    *key = rte->host_index[r] * 65536 + rte->local_rank;
    return rte->host_index[r] < pt->nodes && rte->local_rank < pt->gpus_per_node;
}

/* The points to run, each checked against the ranks there are and the workload's layout -
 * before anything runs. */
static sc_status_t run__points(run__t *run, sc_err_t *err)
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
    long long model = run->w.tp * run->w.pp;
    for (int i = 0; i < o->nscales; i++) {
        if (!o->scales_given && o->scales[i] % model != 0)
            continue; /* default scales: only those the layout fits */
        if (o->scales[i] > min_local)
            return sc_err_set(err, SC_ERR_USAGE,
                              "--scales: %d GPUs per node asked, but a node has only %d ranks",
                              o->scales[i], min_local);
        run->points[run->npoints++] = (run__point_t){o->scales[i], 1};
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
            run->points[run->npoints++] = (run__point_t){kmax, n};
    }
    if (run->npoints == 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "workload %s: tp %lld x pp %lld = %lld ranks per model replica, more "
                          "than the %d ranks per node here (--tp/--pp override it)",
                          run->w.name, run->w.tp, run->w.pp, model, min_local);
    for (int i = 0; i < run->npoints; i++) {
        sc_layout_t l;
        int n = run->points[i].gpus_per_node * run->points[i].nodes;
        sc_status_t status = sc_workload_layout(&run->w, n, &l, err);
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

/* The grid as seen from every rank of the point, for the record (and the tests). */
static json_t *run__grid_json(const sc_grid_t *g, sc_comm_t *pc, MPI_Comm control)
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
    json_t *out = NULL;
    if (pc->rank == 0) {
        out = json_array();
        for (int r = 0; r < n; r++) {
            int *row = all + (size_t)r * (size_t)width;
            json_t *lists[3];
            for (int k = 0, pos = 4; k < 3; pos += sizes[k], k++) {
                lists[k] = json_array();
                for (int i = 0; i < sizes[k]; i++)
                    json_array_append_new(lists[k], json_integer(row[pos + i]));
            }
            json_array_append_new(out,
                                  json_pack("{s:i, s:i, s:i, s:i, s:o, s:o, s:o}", "rank", row[0],
                                            "d", row[1], "p", row[2], "t", row[3], "tp_group",
                                            lists[0], "pp_group", lists[1], "dp_group", lists[2]));
        }
    }
    free(mine);
    free(all);
    return out;
}

/* Runs warm-up and timed steps on this rank; step_ms[i] gets this rank's step times. */
static sc_status_t run__steps(run__t *run, sc_step_t *step, sc_comm_t *pc, double *step_ms,
                              sc_err_t *err)
{
    const sc_run_opts_t *o = &run->opts;
    sc_status_t status = SC_OK;
    for (int i = 0; i < o->warmup + o->steps && status == SC_OK; i++) {
        if (i == o->warmup) { /* what was counted in warm-up does not count */
            memset(&step->counts, 0, sizeof(step->counts));
            step->comm_us = step->compute_us = 0;
            status = pc->ops->barrier(pc, err);
        }
        uint64_t t0 = sc_clock_ns();
        if (status == SC_OK)
            status = sc_step_run(step, err);
        if (i >= o->warmup)
            step_ms[i - o->warmup] = (double)(sc_clock_ns() - t0) * 1e-6;
        sc_watchdog_tick(sc_watchdog_progress(run->ses.wd));
    }
    return status;
}

static json_t *run__counts_json(const sc_pattern_counts_t *c, int steps)
{
    json_t *obj = json_object();
    for (int op = 0; op < SC_PLAN_OP_COUNT; op++)
        if (c->calls[op] > 0)
            json_object_set_new(obj, sc_plan_op_index_name(op),
                                json_pack("{s:f, s:f}", "calls", (double)c->calls[op] / steps,
                                          "bytes", (double)c->bytes[op] / steps));
    return obj;
}

/* Combines the point's per-rank measurements on the control communicator; rank 0 (always in
 * the point) returns the point's JSON. */
static json_t *run__combine(run__t *run, const run__point_t *pt, const sc_layout_t *l,
                            sc_step_t *step, double *step_ms, MPI_Comm control, json_t *grid)
{
    int steps = run->opts.steps, n = 0;
    MPI_Comm_size(control, &n);
    double mean = 0;
    for (int i = 0; i < steps; i++)
        mean += step_ms[i] / steps;
    struct {
        double v;
        int rank;
    } slow = {mean, run->rte->rank};
    MPI_Allreduce(MPI_IN_PLACE, &slow, 1, MPI_DOUBLE_INT, MPI_MAXLOC, control);
    MPI_Allreduce(MPI_IN_PLACE, step_ms, steps, MPI_DOUBLE, MPI_MAX, control);
    double frac = step->comm_us / (mean * steps * 1e3 > 0 ? mean * steps * 1e3 : 1.0);
    MPI_Allreduce(MPI_IN_PLACE, &frac, 1, MPI_DOUBLE, MPI_SUM, control);
    MPI_Allreduce(MPI_IN_PLACE, step->counts.calls, SC_PLAN_OP_COUNT, MPI_UINT64_T, MPI_SUM,
                  control);
    MPI_Allreduce(MPI_IN_PLACE, step->counts.bytes, SC_PLAN_OP_COUNT, MPI_UINT64_T, MPI_SUM,
                  control);
    if (run->rte->rank != 0)
        return NULL;
    sc_stats_t st;
    sc_stats_compute(step_ms, (size_t)steps, &st);
    int gpus = pt->gpus_per_node * pt->nodes;
    double throughput = sc_workload_samples_per_step(&run->w, l) / (st.median * 1e-3);
    if (run->base_gpus == 0) {
        run->base_gpus = gpus;
        run->base_throughput = throughput;
    }
    double speedup = throughput / run->base_throughput;
    json_t *p = json_pack(
        "{s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:s, s:f, s:o}",
        "gpus", gpus, "nodes", pt->nodes, "dp", l->dp, "tp", l->tp, "pp", l->pp, "micro_batches",
        l->micro_batches, "step_time_ms", st.median, "step_time_p99_ms", st.p99, "step_time_cv",
        st.cv, "throughput", throughput, "speedup", speedup, "efficiency",
        speedup / ((double)gpus / run->base_gpus), "comm_fraction", frac / n, "slowest_rank",
        slow.rank, "slowest_host", run->rte->hosts[slow.rank], "slowest_rank_mean_ms", slow.v,
        "comm", run__counts_json(&step->counts, steps));
    json_object_set_new(p, "steps", json_integer(steps));
    if (grid != NULL)
        json_object_set_new(p, "grid", grid);
    return p;
}

/* One point, on the ranks in it. */
static sc_status_t run__point(run__t *run, const run__point_t *pt, sc_comm_t *pc, MPI_Comm control,
                              json_t **out, sc_err_t *err)
{
    sc_layout_t l;
    sc_grid_t grid;
    sc_plan_t plan;
    sc_status_t status = sc_workload_layout(&run->w, pc->size, &l, err);
    if (status == SC_OK)
        status = sc_plan_build(&run->w, &l, &plan, err);
    if (status != SC_OK)
        return status;
    status = sc_grid_create(pc, &l, &grid, err);
    if (status != SC_OK) {
        sc_plan_free(&plan);
        return status;
    }
    sc_step_t step = {.plan = &plan,
                      .grid = &grid,
                      .world = pc,
                      .bytes_scale = run->opts.bytes_scale,
                      .compute_scale = run->opts.compute_scale};
    step.buf_bytes = sc_step_buffer_bytes(&plan, run->opts.bytes_scale);
    step.buf = pc->ops->alloc(pc, step.buf_bytes);
    double *step_ms = calloc((size_t)run->opts.steps, sizeof(double));
    if (step.buf == NULL || step_ms == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d (host %s): cannot allocate %zu bytes",
                            run->rte->rank, run->rte->host, step.buf_bytes);
    if (status == SC_OK)
        status = pc->ops->fill_bytes(pc, step.buf, 0, step.buf_bytes, err);
    if (status == SC_OK)
        status = run__steps(run, &step, pc, step_ms, err);
    if (status == SC_OK) {
        json_t *g = pc->size <= 64 ? run__grid_json(&grid, pc, control) : NULL;
        *out = run__combine(run, pt, &l, &step, step_ms, control, g);
    }
    if (step.buf != NULL)
        pc->ops->free(pc, step.buf);
    free(step_ms);
    sc_grid_destroy(&grid);
    sc_plan_free(&plan);
    return status;
}

static void run__print_row(run__t *run, const json_t *p)
{
    json_t *c = json_object_get(p, "comm");
    (void)c;
    sc_results_printf(
        &run->ses.res,
        "  %5lld %5lld %4lld %3lld %3lld %11.3f %11.3f %12.1f %8.3f %6.3f %6.1f  %s (rank %lld)\n",
        json_integer_value(json_object_get(p, "gpus")),
        json_integer_value(json_object_get(p, "nodes")),
        json_integer_value(json_object_get(p, "dp")), json_integer_value(json_object_get(p, "tp")),
        json_integer_value(json_object_get(p, "pp")),
        json_real_value(json_object_get(p, "step_time_ms")),
        json_real_value(json_object_get(p, "step_time_p99_ms")),
        json_real_value(json_object_get(p, "throughput")),
        json_real_value(json_object_get(p, "speedup")),
        json_real_value(json_object_get(p, "efficiency")),
        100 * json_real_value(json_object_get(p, "comm_fraction")),
        json_string_value(json_object_get(p, "slowest_host")),
        json_integer_value(json_object_get(p, "slowest_rank")));
    fflush(stdout);
}

static sc_status_t run__all_points(run__t *run, sc_err_t *err)
{
    const sc_rte_t *rte = run->rte;
    if (rte->rank == 0)
        sc_results_printf(&run->ses.res,
                          "#\n# %5s %5s %4s %3s %3s %11s %11s %12s %8s %6s %6s  %s\n", "gpus",
                          "nodes", "dp", "tp", "pp", "step_ms", "p99_ms", "samples/s", "speedup",
                          "eff", "comm%", "slowest");
    for (int i = 0; i < run->npoints; i++) {
        const run__point_t *pt = &run->points[i];
        int key = 0;
        bool in = run__in_point(rte, pt, &key);
        if (rte->rank == 0)
            fprintf(stderr, "[%d/%d] %d GPU%s x %d node%s ...\r", i + 1, run->npoints,
                    pt->gpus_per_node, pt->gpus_per_node == 1 ? "" : "s", pt->nodes,
                    pt->nodes == 1 ? "" : "s");
        char what[96];
        snprintf(what, sizeof(what), "run point %d/%d (splitting)", i + 1, run->npoints);
        sc_watchdog_arm(run->ses.wd, what, run->ses.world->world_rank, run->ses.world->size);
        sc_comm_t *pc = NULL;
        MPI_Comm control = MPI_COMM_NULL;
        sc_status_t status = run->ses.world->ops->split(run->ses.world, in ? 0 : -1, key, &pc, err);
        MPI_Comm_split(rte->world, in ? 0 : MPI_UNDEFINED, key, &control);
        json_t *p = NULL;
        snprintf(what, sizeof(what), "run point %d/%d (training steps)", i + 1, run->npoints);
        sc_watchdog_arm(run->ses.wd, what, run->ses.world->world_rank, run->ses.world->size);
        if (status == SC_OK && in)
            status = run__point(run, pt, pc, control, &p, err);
        if (pc != NULL)
            pc->ops->close(pc);
        if (control != MPI_COMM_NULL)
            MPI_Comm_free(&control);
        if (status != SC_OK)
            return status;
        /* ranks outside the point wait here, watched, and quietly: spinning, they would take
         * the cores of an oversubscribed host from the ranks being measured */
        status = sc_rte_quiet_barrier(rte, rte->world, err);
        if (status != SC_OK)
            return status;
        if (rte->rank == 0) {
            run__print_row(run, p);
            json_array_append_new(run->points_json, p);
            sc_err_t ignored;
            char path[PATH_MAX];
            sc_json_write_file(sc_results_path(&run->ses.res, "result.json", path, sizeof(path)),
                               run->doc, &ignored);
        }
    }
    sc_watchdog_disarm(run->ses.wd);
    return SC_OK;
}

/* The columns of points.csv. */
static const char *const run__csv_fields[] = {"gpus",
                                              "nodes",
                                              "dp",
                                              "tp",
                                              "pp",
                                              "step_time_ms",
                                              "step_time_p99_ms",
                                              "throughput",
                                              "speedup",
                                              "efficiency",
                                              "comm_fraction",
                                              "slowest_rank",
                                              "slowest_host",
                                              NULL};

static sc_status_t run__save(run__t *run, const char *state, sc_err_t *err)
{
    if (run->rte->rank != 0 || run->doc == NULL)
        return SC_OK;
    json_object_set_new(run->doc, "state", json_string(state));
    char path[PATH_MAX];
    sc_status_t status = sc_json_write_file(
        sc_results_path(&run->ses.res, "result.json", path, sizeof(path)), run->doc, err);
    if (status == SC_OK)
        status = sc_csv_write_rows(sc_results_path(&run->ses.res, "points.csv", path, sizeof(path)),
                                   run->points_json, run__csv_fields, err);
    if (status == SC_OK && run->opts.json_path)
        status = sc_json_write_file(run->opts.json_path, run->doc, err);
    if (status == SC_OK && run->opts.csv_path)
        status = sc_csv_write_rows(run->opts.csv_path, run->points_json, run__csv_fields, err);
    return status;
}

static sc_status_t run__setup(run__t *run, sc_err_t *err)
{
    const sc_rte_t *rte = run->rte;
    char name[128];
    snprintf(name, sizeof(name), "run-%s", run->w.name);
    sc_session_opts_t so = {.backend = run->opts.backend,
                            .device = -1,
                            .timeout_s = run->opts.timeout_s,
                            .telemetry_s = run->opts.telemetry_s,
                            .results_base = run->opts.results_base,
                            .name = run->opts.name ? run->opts.name : name};
    sc_status_t status = sc_session_open(&run->ses, rte, &so, err);
    if (status != SC_OK)
        return status;
    json_t *rank_info = sc_session_rank_info(&run->ses);
    if (rte->rank != 0)
        return SC_OK;
    const sc_comm_t *world = run->ses.world;
    run->points_json = json_array();
    run->doc =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:f, s:f, s:i, s:i, s:O, "
                  "s:s, s:o}",
                  "tool", "scalecheck", "version", SC_VERSION, "command", "run", "workload",
                  run->w.name, "workload_file", run->opts.workload, "ranks", rte->size, "nhosts",
                  rte->nhosts, "backend", world->ops->name, "backend_note", run->ses.note,
                  "bytes_scale", run->opts.bytes_scale, "compute_scale", run->opts.compute_scale,
                  "steps", run->opts.steps, "warmup", run->opts.warmup, "points", run->points_json,
                  "results_dir", run->ses.res.dir, "rank_info", rank_info);
    sc_results_printf(&run->ses.res,
                      "# scalecheck %s run | workload %s | backend %s (%s) | %d ranks on %d "
                      "host%s\n# %s\n# bytes x%g, compute x%g, %d steps after %d warm-up; "
                      "results %s\n",
                      SC_VERSION, run->w.name, world->ops->name,
                      world->ops->version(run->ses.world), rte->size, rte->nhosts,
                      rte->nhosts == 1 ? "" : "s",
                      run->ses.note[0] ? run->ses.note : "backend chosen", run->opts.bytes_scale,
                      run->opts.compute_scale, run->opts.steps, run->opts.warmup, run->ses.res.dir);
    return SC_OK;
}

static void run__teardown(run__t *run)
{
    sc_session_close(&run->ses);
    json_decref(run->points_json);
    json_decref(run->doc);
}

/* The optional sweep, then (with a topology) expectations, checks and the verdict. */
static sc_status_t run__sweep_and_verdict(run__t *run, sc_err_t *err)
{
    json_t *sweep = NULL;
    sc_status_t status = SC_OK;
    if (run->opts.sweep_max > 0) {
        sc_watchdog_arm(run->ses.wd, "all-reduce sweep", run->ses.world->world_rank,
                        run->ses.world->size);
        status = sc_run_sweep(run->ses.world, run->rte->world, run->ses.wd, run->opts.sweep_max,
                              &sweep, err);
        sc_watchdog_disarm(run->ses.wd);
    }
    sc_detected_t *hosts = NULL;
    if (status == SC_OK && run->opts.topology)
        status = sc_detect_all(run->rte, &hosts, err);
    if (status != SC_OK || run->rte->rank != 0) {
        json_decref(sweep);
        free(hosts);
        return status;
    }
    if (sweep != NULL)
        json_object_set_new(run->doc, "sweep", sweep);
    if (run->opts.topology == NULL)
        return SC_OK;
    int per_node = run->rte->size / run->rte->nhosts;
    sc_topology_t actual;
    json_t *findings = sc_detect_compare(&run->topo, hosts, run->rte->nhosts, per_node, &actual);
    free(hosts);
    sc_run_expect_detected(&actual, &run->w, run->opts.bytes_scale, run->opts.compute_scale,
                           run->points_json);
    sc_run_print_findings(&run->ses.res, findings);
    json_object_set_new(run->doc, "findings", findings);
    json_t *checks =
        sc_run_verdict(&run->topo, &run->w, run->opts.bytes_scale, run->opts.compute_scale,
                       per_node, run->rte->nhosts, run->points_json, sweep);
    json_object_set_new(run->doc, "topology", json_string(run->topo.name));
    json_object_set_new(run->doc, "checks", checks);
    json_object_set_new(run->doc, "verdict", sc_verdict_summary(checks));
    sc_verdict_print(stdout, run->ses.res.log, checks);
    return SC_OK;
}

int sc_cmd_run(const sc_rte_t *rte, int argc, char **argv)
{
    run__t run = {.rte = rte};
    sc_err_t err;
    sc_err_clear(&err);
    int local_max = rte->local_size;
    MPI_Allreduce(MPI_IN_PLACE, &local_max, 1, MPI_INT, MPI_MIN, rte->world);
    sc_status_t status = sc_run_opts_parse(&run.opts, argc, argv, 2, local_max, rte->nhosts, &err);
    if (status == SC_OK && run.opts.help) {
        if (rte->rank == 0) {
            printf("usage: mpirun -np N scalecheck run --workload FILE [options]\n\n");
            sc_run_opts_help(stdout);
        }
        return 0;
    }
    if (status == SC_OK)
        status = sc_workload_load(run.opts.workload, &run.w, &err);
    if (status == SC_OK && run.opts.tp > 0)
        run.w.tp = run.opts.tp;
    if (status == SC_OK && run.opts.pp > 0)
        run.w.pp = run.opts.pp;
    if (status == SC_OK)
        status = run__points(&run, &err);
    /* every input and output checked before the session makes a results directory */
    if (status == SC_OK && run.opts.topology)
        status = sc_topology_load(run.opts.topology, &run.topo, &err);
    if (status == SC_OK)
        status = sc_files_check_output("--json", run.opts.json_path, &err);
    if (status == SC_OK)
        status = sc_files_check_output("--csv", run.opts.csv_path, &err);
    if (status == SC_OK)
        status = run__setup(&run, &err);
    if (status == SC_OK)
        status = run__all_points(&run, &err);
    if (status == SC_OK)
        status = run__sweep_and_verdict(&run, &err);
    json_t *telemetry = status == SC_OK ? sc_session_telemetry(&run.ses) : NULL;
    if (telemetry != NULL)
        json_object_set_new(run.doc, "telemetry", telemetry);
    if (status == SC_OK)
        status = run__save(&run, "complete", &err);
    if (status == SC_OK && rte->rank == 0) {
        status = sc_report_render(run.ses.res.dir, run.doc, &err);
        if (status == SC_OK)
            sc_results_printf(&run.ses.res, "# report: %s/report.html\n", run.ses.res.dir);
    }
    if (status != SC_OK) {
        sc_err_t ignored;
        run__save(&run, "failed", &ignored);
    }
    /* Every rank leaves with the verdict's exit code: 1 when a check failed. */
    int failed =
        rte->rank == 0 && run.doc &&
        json_integer_value(json_object_get(json_object_get(run.doc, "verdict"), "fail")) > 0;
    int code = sc_session_finish(&run.ses, rte, "run", status, &err, failed);
    run__teardown(&run);
    return code;
}
