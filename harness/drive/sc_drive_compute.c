/* sc_drive_compute.c - `scalecheck compute`, driven: the compute phase alone, to see that it is
 * what it says.
 * --mode spin asks for a time and reports what it took (GPU: calibrated kernel; host: a sleep
 * that keeps MPI progressing); --mode gemm runs cuBLAS matrix multiplies and reports TFLOP/s
 * (GPU backends only). Every rank runs; rank 0 prints one line per rank and the JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive/sc_drive_compute.h"
#include "comm/sc_backend.h"
#include "comm/sc_comm_ops.h"
#include "drive/sc_drive_end.h"
#include "session/sc_results.h"
#include "util/sc_defaults.h"
#include "report/sc_json_out.h"
#include "util/sc_files.h"
#include "util/sc_stats.h"
#include "judge/sc_compute_verdict.h"
#include "report/sc_verdict_render.h"

/* Runs the phase on this rank into its record. */
static sc_status_t compute__run(sc_comm_t *comm, const sc_drive_compute_opts_t *o,
                                sc_compute_row_t *out, sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    if (o->gemm) {
        sc_gemm_result_t r;
        sc_status_t status = sc_comm_gemm(comm, &o->spec, &r, err);
        snprintf(out->dtype, sizeof(out->dtype), "%s", sc_gemm_type_name(o->spec.type));
        snprintf(out->device, sizeof(out->device), "%s", comm->device);
        out->size = o->spec.m;
        out->iters = o->spec.iters;
        out->seconds = r.seconds;
        out->tflops = r.tflops;
        sc_gemm_check_t check = {.first_wrong = -1};
        int size = o->spec.m < SC_DEFAULT_CHECK_SIZE_MAX ? o->spec.m : SC_DEFAULT_CHECK_SIZE_MAX;
        if (status == SC_OK && !o->no_check)
            status = sc_comm_gemm_check(comm, o->spec.type, size, &check, err);
        out->digest = check.digest;
        out->check_size = check.sampled > 0 ? size : 0;
        out->check_sampled = check.sampled;
        out->check_wrong = check.wrong;
        out->check_worst = check.worst;
        out->check_first_wrong = check.first_wrong;
        return status;
    }
    /* one spin first, untimed: a GPU loads its kernels lazily, on their first launch */
    double us = 0;
    sc_status_t status = sc_comm_compute_spin(comm, o->time_us, &us, err);
    double sum = 0, worst = 0, *off = calloc((size_t)o->repeats, sizeof(double));
    if (off == NULL && status == SC_OK)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d: no memory for %d spins", comm->rank,
                            o->repeats);
    for (int i = 0; i < o->repeats && status == SC_OK; i++) {
        status = sc_comm_compute_spin(comm, o->time_us, &us, err);
        sum += us;
        off[i] = fabs(us - o->time_us);
        worst = off[i] > worst ? off[i] : worst;
    }
    if (status == SC_OK) {
        sc_stats_t stats;
        sc_stats_compute(off, (size_t)o->repeats, &stats);
        out->median_error_us = stats.median;
    }
    free(off);
    if (status != SC_OK)
        return status;
    out->requested_us = o->time_us;
    out->mean_us = sum / o->repeats;
    out->worst_error_us = worst;
    out->repeats = o->repeats;
    return SC_OK;
}

static void compute__print(const sc_rte_t *rte, const sc_drive_compute_opts_t *o,
                           const sc_compute_row_t *all)
{
    for (int r = 0; r < rte->size; r++) {
        if (o->gemm)
            printf("rank %d (%s%s%s): gemm %s %d^3 x %d: %.4g TFLOP/s%s\n", r, rte->hosts[r],
                   all[r].device[0] ? ", " : "", all[r].device, sc_gemm_type_name(o->spec.type),
                   o->spec.m, o->spec.iters, all[r].tflops,
                   all[r].check_sampled == 0 ? ""
                   : all[r].check_wrong > 0  ? "; result WRONG"
                                             : "; result checked");
        else
            printf("rank %d (%s): spin asked %.1f us, took %.1f us on average (error: median "
                   "%.1f us, worst %.1f us)\n",
                   r, rte->hosts[r], o->time_us, all[r].mean_us, all[r].median_error_us,
                   all[r].worst_error_us);
    }
}

/* The products judged (rank 0): against peers, the topology's peak and the reference. */
static void compute__judge(const sc_rte_t *rte, const sc_topology_t *t, const sc_compute_row_t *all,
                           sc_checks_t *checks)
{
    char(*who)[192] = calloc((size_t)rte->size, sizeof(*who));
    for (int r = 0; who != NULL && r < rte->size; r++)
        snprintf(who[r], sizeof(who[r]), "host %s, rank %d: %s", rte->hosts[r], r,
                 all[r].device[0] ? all[r].device : "its CPU");
    if (who != NULL)
        sc_compute_verdict(all, (const char(*)[192])who, rte->size, t, checks);
    free(who);
}

/* Rank 0: every rank's record printed, and written with --json. */
static sc_status_t compute__report(const sc_rte_t *rte, const sc_drive_compute_opts_t *o,
                                   const sc_comm_t *comm, const sc_compute_row_t *all,
                                   const sc_checks_t *checks, sc_err_t *err)
{
    compute__print(rte, o, all);
    if (o->gemm)
        sc_verdict_print(stdout, NULL, checks);
    if (o->common.json_path[0] == '\0')
        return SC_OK;
    sc_kvs_t head = {0};
    sc_kvs_text(&head, "mode", o->gemm ? "gemm" : "spin");
    sc_kvs_text(&head, "backend", sc_comm_name(comm));
    sc_json_list_t lists[2] = {
        {"ranks", all, (size_t)rte->size, sizeof(*all),
         o->gemm ? sc_gemm_row_fields : sc_spin_row_fields},
        {"checks", checks->items, checks->n, sizeof(*checks->items), sc_check_fields}};
    sc_status_t status =
        sc_json_write_lists(o->common.json_path, &head, lists, o->gemm ? 2 : 1, err);
    sc_list_free(&head);
    return status;
}

int sc_drive_compute(const sc_rte_t *rte, const sc_drive_compute_opts_t *opts)
{
    sc_drive_compute_opts_t o = *opts;
    sc_err_t err;
    sc_err_clear(&err);
    sc_comm_t *comm = NULL;
    char note[512];
    sc_backend_opts_t bopts = {.device = -1, .timeout_s = SC_BACKEND_TIMEOUT_S(o.common.timeout_s)};
    sc_topology_t topo;
    sc_status_t status = o.topology != NULL ? sc_topology_load(o.topology, &topo, &err) : SC_OK;
    if (status == SC_OK)
        status = sc_drive_check_outputs(&o.common, &err);
    if (status == SC_OK)
        status = sc_backend_open(o.common.backend, rte, &bopts, &comm, note, sizeof(note), &err);
    if (status == SC_OK && o.gemm && !sc_comm_has_gemm(comm))
        status = sc_err_set(&err, SC_ERR_USAGE,
                            "--mode gemm: matrix multiplies need a GPU backend (backend %s)",
                            sc_comm_name(comm));
    sc_compute_row_t mine;
    if (status == SC_OK)
        status = compute__run(comm, &o, &mine, &err);
    if (status != SC_OK) {
        if (rte->rank == 0 || sc_status_exit_code(status) != 2)
            fprintf(stderr, "scalecheck compute: %s\n", err.msg);
        if (comm != NULL)
            sc_comm_close(comm);
        if (sc_status_exit_code(status) == 3)
            sc_rte_abort(rte, 3);
        return sc_status_exit_code(status);
    }
    int *lens = NULL, *offsets = NULL;
    sc_compute_row_t *all =
        (sc_compute_row_t *)sc_results_gather_bytes(rte, &mine, sizeof(mine), &lens, &offsets);
    sc_checks_t checks = {0};
    int failed = 0;
    if (rte->rank == 0) {
        if (note[0])
            printf("# %s\n", note);
        if (o.gemm)
            compute__judge(rte, o.topology != NULL ? &topo : NULL, all, &checks);
        if (compute__report(rte, &o, comm, all, &checks, &err) != SC_OK) {
            fprintf(stderr, "scalecheck compute: %s\n", err.msg);
            status = err.status;
        }
        for (size_t i = 0; i < checks.n; i++)
            failed |= checks.items[i].level == SC_LEVEL_FAIL;
    }
    /* every rank leaves with the verdict's code */
    MPI_Bcast(&failed, 1, MPI_INT, 0, rte->world);
    sc_list_free(&checks);
    free(all);
    free(lens);
    free(offsets);
    sc_comm_close(comm);
    return status != SC_OK ? sc_status_exit_code(status) : failed ? 1 : 0;
}
