/* sc_drive_calibrate.c - `scalecheck calibrate --topology FILE [--output FILE]`, driven: measures
 * what this host and this cluster deliver (calibrate/sc_calibrate.h) and writes the declared
 * topology with those figures as its `calibrated:` block. Runs that take the written file are held
 * to this machine, with a tight tolerance. */
#include <stdio.h>
#include <string.h>

#include "calibrate/sc_calibrate.h"
#include "comm/sc_comm_ops.h"
#include "drive/sc_drive_calibrate.h"
#include "report/sc_json_out.h"
#include "session/sc_session.h"
#include "sc_config.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

static void calibrate__print_path(const char *what, const sc_calibrated_path_t *p)
{
    if (p->fit.n == 0) {
        printf("# %s: not measured (%s)\n", what,
               p->ranks == 0 ? "one rank there" : "too few sizes");
        return;
    }
    printf("# %s: all-reduce on %s, %d regime%s, worst fit error %.1f %%\n", what, p->where,
           p->fit.n, p->fit.n == 1 ? "" : "s", p->worst_error * 100);
    for (int i = 0; i < p->fit.n; i++) {
        const sc_regime_t *r = &p->fit.r[i];
        char upto[32] = "larger";
        if (r->upto > 0)
            snprintf(upto, sizeof(upto), "<= %.0f B", r->upto);
        printf("#   %-14s latency %9.3f us/step  bandwidth %9.3f GB/s\n", upto, r->latency_us,
               r->GBps);
    }
}

static sc_status_t calibrate__save(const sc_drive_calibrate_opts_t *o, const sc_session_t *ses,
                                   const sc_calibration_t *cal, sc_err_t *err)
{
    char by[256];
    sc_calibrate_by(ses->world, by, sizeof(by));
    char kept[PATH_MAX];
    /* the ladders themselves, for whoever doubts the fit */
    const sc_calibrated_path_t *paths[2] = {&cal->intra, &cal->inter};
    const char *names[2] = {"ladder-intra.csv", "ladder-inter.csv"};
    for (int i = 0; i < 2; i++) {
        const sc_case_rows_t *rows = &paths[i]->rows;
        sc_status_t status =
            rows->n == 0
                ? SC_OK
                : sc_csv_write_records(sc_results_path(&ses->res, names[i], kept, sizeof(kept)),
                                       rows->items, rows->n, sizeof(*rows->items),
                                       sc_case_row_fields, err);
        if (status != SC_OK)
            return status;
    }
    /* the file the load found: a shipped name (-Y localhost) is not a path from here */
    const char *declared = o->declared_path;
    sc_status_t status = sc_calibrate_write(
        declared, sc_results_path(&ses->res, "calibrated-topology.yaml", kept, sizeof(kept)), cal,
        by, err);
    if (status == SC_OK)
        status = sc_calibrate_write(declared, o->output, cal, by, err);
    return status;
}

int sc_drive_calibrate(const sc_rte_t *rte, const sc_drive_calibrate_opts_t *opts)
{
    sc_drive_calibrate_opts_t o = *opts;
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = SC_OK;
    if (o.topology == NULL)
        status = sc_err_set(&err, SC_ERR_USAGE, "--topology: required (the file to calibrate)");
    if (status == SC_OK && (o.m.max_bytes < 64 || o.m.max_bytes > ((uint64_t)1 << 30)))
        status = sc_err_set(&err, SC_ERR_USAGE, "--max-size: %llu is outside 64 B to 1 GiB",
                            (unsigned long long)o.m.max_bytes);
    sc_topology_t declared;
    if (status == SC_OK)
        status = sc_topology_load(o.topology, &declared, &err);
    sc_workload_t w;
    if (status == SC_OK && o.workload != NULL &&
        (status = sc_workload_load(o.workload, &w, &err)) == SC_OK)
        o.m.w = &w;
    o.declared_path = declared.path;
    if (status == SC_OK)
        status = sc_files_check_output("--output", o.output, &err);
    sc_session_t ses = {0};
    if (status == SC_OK) {
        sc_session_opts_t so = {.common = &o.common, .default_name = "calibrate"};
        status = sc_session_open(&ses, rte, &so, &err);
    }
    sc_calibration_t cal = {0};
    if (status == SC_OK)
        status = sc_calibrate_measure(ses.world, rte->world, ses.wd, &o.m, &cal, &err);
    if (status == SC_OK && rte->rank == 0) {
        printf("# scalecheck %s calibrate | %s | %d ranks on %d host%s\n", SC_VERSION,
               sc_comm_version(ses.world), rte->size, rte->nhosts, rte->nhosts == 1 ? "" : "s");
        calibrate__print_path("inside a host", &cal.intra);
        calibrate__print_path("between hosts", &cal.inter);
        if (cal.overlap >= 0)
            printf("# overlap: %.2f of a started all-reduce's pace kept beside compute\n",
                   cal.overlap);
        if (cal.memory_GBps > 0)
            printf("# memory copy: %.2f GB/s\n", cal.memory_GBps);
        printf("# reference probe: 8 B all-reduce %.2f us (spread %.0f %%)\n", cal.probe_us,
               cal.probe_spread * 100);
        if (cal.compute_tflops > 0)
            printf("# %s's products: %.4g TFLOP/s the median GPU of %d, the slowest %.4g "
                   "(compute scale %g)\n",
                   cal.compute_workload, cal.compute_tflops, cal.compute_gpus,
                   cal.compute_tflops_min, cal.compute_scale);
        else if (o.m.w != NULL)
            printf("# %s's products: not timed (a GPU backend and compute.mode flops time them)\n",
                   o.m.w->name);
        status = calibrate__save(&o, &ses, &cal, &err);
        if (status == SC_OK)
            printf("# written: %s\n", o.output);
    }
    int code = sc_session_finish(&ses, rte, "calibrate", status, &err, 0);
    sc_calibration_free(&cal);
    sc_session_close(&ses);
    return code;
}
