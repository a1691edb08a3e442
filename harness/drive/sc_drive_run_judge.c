/* sc_drive_run_judge.c - what `scalecheck run` does around its measured points: calibration in the
 * same launch, the reference probe before and after, the all-reduce sweep with second looks at
 * sizes slower than the model allows, and on rank 0 the checks against the topology (and what
 * the hosts really have) and the baseline, and the verdict. */
#include <stdio.h>
#include <stdlib.h>

#include "calibrate/sc_calibrate.h"
#include "comm/sc_comm_ops.h"
#include "drive/sc_drive_run.h"
#include "drive/sc_drive_baseline.h"
#include "detect/sc_detect.h"
#include "engine/sc_looks.h"
#include "engine/sc_sweep.h"
#include "judge/sc_straggler_verdict.h"
#include "judge/sc_run_verdict.h"
#include "judge/sc_verdict.h"
#include "report/sc_verdict_render.h"
#include "session/sc_results.h"

/* What the model needs of the run to price it as it ran. */
static sc_run_shape_t run__shape(const sc_run_t *run)
{
    return (sc_run_shape_t){.w = &run->w,
                            .bytes_scale = run->opts.bytes_scale,
                            .compute_scale = run->opts.compute_scale,
                            .gpus_per_node = run->rte->size / run->rte->nhosts,
                            .nodes = run->rte->nhosts,
                            .products = run->w.compute_mode == SC_COMPUTE_FLOPS &&
                                        sc_comm_has_gemm(run->ses.world)};
}

/* With a topology: what the hosts really have against what was declared, the expectations,
 * the checks and the verdict (rank 0). */
static void run__verdict(sc_run_t *run, const sc_detected_t *hosts)
{
    sc_result_t *d = &run->doc;
    int per_node = run->rte->size / run->rte->nhosts;
    sc_run_shape_t shape = run__shape(run);
    sc_topology_t actual;
    sc_detect_compare(&run->topo, hosts, run->rte->nhosts, per_node, &actual, &d->findings);
    d->has_findings = true;
    sc_run_expect_detected(&actual, &shape, &d->points);
    sc_print_findings(&run->ses.res, &d->findings);
    sc_verdict_probe(&run->topo, "before the run", run->probe_before, run->probe_before_looks,
                     &d->checks);
    sc_run_verdict(&run->topo, &shape, &d->points, &d->sweep, &d->checks);
    sc_verdict_probe(&run->topo, "after the run", run->probe_after, run->probe_after_looks,
                     &d->checks);
    bool probe_off = sc_verdict_probe_off(&run->topo, run->probe_before) ||
                     sc_verdict_probe_off(&run->topo, run->probe_after);
    if (run->probe_before > 0 || run->probe_after > 0) /* the probes say what "disturbed" is */
        sc_verdict_quiet(run->foreign_cores, run->foreign_host, probe_off, &d->checks);
    sc_verdict_sysfs(run->ses.no_sysfs_host, &d->checks);
    d->judged = true;
    snprintf(d->topology, sizeof(d->topology), "%s", run->topo.name);
}

sc_status_t sc_run_calibrate(sc_run_t *run, sc_err_t *err)
{
    sc_calibrate_opts_t co = {.max_bytes = run->opts.sweep_max > 0 ? run->opts.sweep_max
                                                                   : SC_CALIBRATE_MAX_BYTES,
                              .iters = SC_CALIBRATE_ITERS,
                              .w = &run->w,
                              .compute_scale = run->opts.compute_scale};
    sc_calibration_t cal;
    sc_status_t measured =
        sc_calibrate_measure(run->ses.world, run->rte->world, run->ses.wd, &co, &cal, err);
    sc_status_t status = measured;
    if (status == SC_OK && run->rte->rank == 0) {
        char by[256], path[PATH_MAX];
        sc_calibrate_by(run->ses.world, by, sizeof(by));
        sc_results_path(&run->ses.res, "calibrated-topology.yaml", path, sizeof(path));
        /* the file the declared topology was loaded from (a shipped name resolved) */
        char declared[sizeof(run->topo.path)];
        snprintf(declared, sizeof(declared), "%s", run->topo.path);
        status = sc_calibrate_write(declared, path, &cal, by, err);
        if (status == SC_OK)
            status = sc_topology_load(path, &run->topo, err);
        if (status == SC_OK)
            sc_results_printf(&run->ses.res, "# calibrated first: held to %s\n", path);
    }
    sc_calibration_free(&cal);
    if (measured != SC_OK)
        return measured;
    /* every rank learns whether rank 0 has its topology: nobody runs on alone */
    unsigned char ok = status == SC_OK;
    sc_status_t told = sc_watchdog_bcast(run->ses.wd, run->rte, run->rte->world,
                                         "rank 0's calibrated topology", &ok, 1, err);
    return told != SC_OK     ? told
           : ok              ? SC_OK
           : status != SC_OK ? status
                             : sc_err_set(err, SC_ERR_RUNTIME,
                                          "rank 0 (%s) could not write "
                                          "or load the calibrated topology",
                                          run->rte->hosts[0]);
}

/* A probe's looks: the run, the best time and its count. */
typedef struct {
    sc_run_t *run;
    double *us;
    int *looks;
} run__probe_t;

static void run__probe_off(void *ctx, unsigned char *again)
{
    run__probe_t *p = ctx;
    again[0] = sc_verdict_probe_off(&p->run->topo, *p->us);
}

static sc_status_t run__probe_again(void *ctx, int i, sc_err_t *err)
{
    (void)i;
    run__probe_t *p = ctx;
    double look = 0, spread;
    sc_status_t status =
        sc_probe(p->run->ses.world, p->run->rte->world, p->run->ses.wd, &look, &spread, err);
    if (status == SC_OK && look < *p->us)
        *p->us = look;
    (*p->looks)++;
    return status;
}

/* Every rank knows whether there is a probe to take: the declared file was loaded everywhere,
 * and --calibrate makes one. A probe off the calibrated one is taken again (sc_looks_run). */
sc_status_t sc_run_probe(sc_run_t *run, double *us, int *looks, sc_err_t *err)
{
    if (!run->opts.calibrate && !(run->opts.topology && run->topo.cal_probe_us > 0))
        return SC_OK;
    double spread;
    sc_status_t status = sc_probe(run->ses.world, run->rte->world, run->ses.wd, us, &spread, err);
    *looks = 1;
    run__probe_t probe = {run, us, looks};
    sc_looks_t l = {
        1, run->opts.looks, "whether to probe again", run__probe_off, run__probe_again, &probe};
    if (status == SC_OK)
        status = sc_looks_run(&l, run->ses.wd, run->rte, run->rte->world, err);
    return status;
}

/* The sweep's looks: the run and its rows. */
typedef struct {
    sc_run_t *run;
    sc_case_rows_t *rows;
} run__sweep_t;

/* rank 0: the sweep's sizes slower than the topology allows */
static void run__sweep_off(void *ctx, unsigned char *again)
{
    run__sweep_t *s = ctx;
    const sc_rte_t *rte = s->run->rte;
    for (size_t i = 0; i < s->rows->n; i++)
        again[i] = sc_verdict_case_slow(&s->run->topo, &sc_coll_allreduce, rte->size / rte->nhosts,
                                        rte->nhosts, &s->rows->items[i]);
}

static sc_status_t run__sweep_again(void *ctx, int i, sc_err_t *err)
{
    run__sweep_t *s = ctx;
    return sc_sweep_again(s->run->ses.world, s->run->rte->world, s->run->ses.wd, &s->rows->items[i],
                          err);
}

/* rank 0: the points of the curve below the model's band (a step slowed by a moment of the
 * machine is not a system that fails to scale) */
static void run__points_off(void *ctx, unsigned char *again)
{
    sc_run_t *run = ctx;
    sc_run_shape_t shape = run__shape(run);
    sc_run_points_slow(&run->topo, &shape, &run->doc.points, again);
}

static sc_status_t run__point_again(void *ctx, int i, sc_err_t *err)
{
    return sc_run_point_again(ctx, i, err);
}

sc_status_t sc_run_sweep_and_verdict(sc_run_t *run, sc_err_t *err)
{
    sc_status_t status = SC_OK;
    if (run->opts.topology != NULL) {
        sc_looks_t points = {run->npoints,    run->opts.looks,  "which points to look at again",
                             run__points_off, run__point_again, run};
        status = sc_looks_run(&points, run->ses.wd, run->rte, run->rte->world, err);
    }
    sc_case_rows_t sweep = {0};
    if (status == SC_OK && run->opts.sweep_max > 0) {
        sc_watchdog_arm(run->ses.wd, "all-reduce sweep", run->ses.world->world_rank,
                        run->ses.world->size);
        status = sc_run_sweep(run->ses.world, run->rte->world, run->ses.wd, run->opts.sweep_max,
                              &sweep, err);
        sc_watchdog_disarm(run->ses.wd);
        run__sweep_t rows = {run, &sweep};
        sc_looks_t sizes = {
            (int)sweep.n,   run->opts.looks,  "rank 0's list of sizes to look at again",
            run__sweep_off, run__sweep_again, &rows};
        if (status == SC_OK && run->opts.topology != NULL)
            status = sc_looks_run(&sizes, run->ses.wd, run->rte, run->rte->world, err);
    }
    if (status == SC_OK)
        status = sc_run_probe(run, &run->probe_after, &run->probe_after_looks, err);
    run->foreign_cores = -1;
    if (status == SC_OK && run->opts.topology != NULL)
        status = sc_session_foreign_load(&run->ses, &run->load_from, &run->foreign_cores,
                                         run->foreign_host, sizeof(run->foreign_host), err);
    sc_detected_t *hosts = NULL;
    if (status == SC_OK && run->opts.topology)
        status = sc_detect_all(run->rte, &hosts, err);
    if (status == SC_OK && run->rte->rank == 0) {
        for (size_t i = 0; i < sweep.n; i++)
            run->doc.wrong_total += sweep.items[i].wrong;
        if (sweep.n > 0)
            sc_results_printf(&run->ses.res, "# sweep data check: %llu wrong element%s %s\n",
                              (unsigned long long)run->doc.wrong_total,
                              run->doc.wrong_total == 1 ? "" : "s",
                              run->doc.wrong_total ? "FAILED" : "OK");
        run->doc.sweep = sweep; /* the document owns the rows now */
        sweep = (sc_case_rows_t){0};
        if (run->opts.topology != NULL)
            run__verdict(run, hosts);
        size_t before = run->doc.checks.n; /* the GPUs' products need no topology */
        sc_run_compute_checks(run, &run->doc.checks);
        char crowded[128];
        sc_session_crowded(run->rte, crowded, sizeof(crowded));
        for (size_t i = 0; i < run->doc.points.n; i++) { /* nor does a straggler */
            char line[512];
            if (sc_verdict_point_straggler(&run->doc.points.items[i], crowded, &run->doc.checks,
                                           line, sizeof(line)))
                sc_results_printf(&run->ses.res, "# straggler: %s\n", line);
        }
        run->doc.judged = run->doc.judged || run->doc.checks.n > before;
        sc_drive_baseline_hold(&run->baseline, run->opts.baseline, &run->doc);
        if (run->doc.judged)
            sc_verdict_print(stdout, run->ses.res.log, &run->doc.checks);
    }
    sc_list_free(&sweep);
    free(hosts);
    return status;
}
