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

/* Runs the phase on this rank into its record. */
static sc_status_t compute__run(sc_comm_t *comm, const sc_drive_compute_opts_t *o,
                                sc_compute_row_t *out, sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    if (o->gemm) {
        sc_gemm_result_t r;
        sc_status_t status = sc_comm_gemm(comm, &o->spec, &r, err);
        snprintf(out->dtype, sizeof(out->dtype), "%s", sc_gemm_type_name(o->spec.type));
        out->size = o->spec.m;
        out->iters = o->spec.iters;
        out->seconds = r.seconds;
        out->tflops = r.tflops;
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
            printf("rank %d (%s): gemm %s %d^3 x %d: %.2f TFLOP/s\n", r, rte->hosts[r],
                   sc_gemm_type_name(o->spec.type), o->spec.m, o->spec.iters, all[r].tflops);
        else
            printf("rank %d (%s): spin asked %.1f us, took %.1f us on average (error: median "
                   "%.1f us, worst %.1f us)\n",
                   r, rte->hosts[r], o->time_us, all[r].mean_us, all[r].median_error_us,
                   all[r].worst_error_us);
    }
}

/* Rank 0: every rank's record printed, and written with --json. */
static sc_status_t compute__report(const sc_rte_t *rte, const sc_drive_compute_opts_t *o,
                                   const sc_comm_t *comm, const sc_compute_row_t *all,
                                   sc_err_t *err)
{
    compute__print(rte, o, all);
    if (o->common.json_path[0] == '\0')
        return SC_OK;
    sc_kvs_t head = {0};
    sc_kvs_text(&head, "mode", o->gemm ? "gemm" : "spin");
    sc_kvs_text(&head, "backend", sc_comm_name(comm));
    sc_json_list_t ranks = {"ranks", all, (size_t)rte->size, sizeof(*all),
                            o->gemm ? sc_gemm_row_fields : sc_spin_row_fields};
    sc_status_t status = sc_json_write_lists(o->common.json_path, &head, &ranks, 1, err);
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
    sc_backend_opts_t bopts = {.device = -1, .timeout_s = o.common.timeout_s};
    sc_status_t status = sc_drive_check_outputs(&o.common, &err);
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
    if (rte->rank == 0) {
        if (note[0])
            printf("# %s\n", note);
        if (compute__report(rte, &o, comm, all, &err) != SC_OK) {
            fprintf(stderr, "scalecheck compute: %s\n", err.msg);
            status = err.status;
        }
    }
    free(all);
    free(lens);
    free(offsets);
    sc_comm_close(comm);
    return sc_status_exit_code(status);
}
