/* cmd_compute.c - `scalecheck compute`: the compute phase alone, to see that it is what it says.
 * --mode spin asks for a time and reports what it took (GPU: calibrated kernel; host: a sleep
 * that keeps MPI progressing); --mode gemm runs cuBLAS matrix multiplies and reports TFLOP/s
 * (GPU backends only). Every rank runs; rank 0 prints one line per rank and the JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "comm/sc_backend.h"
#include "session/sc_results.h"
#include "util/sc_defaults.h"
#include "report/sc_json_out.h"
#include "util/sc_files.h"
#include "util/sc_stats.h"

typedef struct {
    bool gemm;
    double time_us;
    int repeats;
    double timeout_s;
    sc_gemm_spec_t spec;
    const char *backend, *json_path;
    bool help;
} compute__opts_t;

static sc_status_t compute__mode(void *t, const char *flag, const char *v, sc_err_t *err)
{
    compute__opts_t *o = t;
    if (strcmp(v, "spin") != 0 && strcmp(v, "gemm") != 0)
        return sc_err_set(err, SC_ERR_USAGE, "%s: unknown mode '%s' (valid: spin, gemm)", flag, v);
    o->gemm = strcmp(v, "gemm") == 0;
    return SC_OK;
}

static sc_status_t compute__repeats(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    sc_status_t status = sc_cli_int(flag, v, 1, 100000, &n, err);
    ((compute__opts_t *)t)->repeats = (int)n;
    ((compute__opts_t *)t)->spec.iters = (int)n;
    return status;
}

static sc_status_t compute__dtype(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return sc_gemm_type_parse(v, flag, &((compute__opts_t *)t)->spec.type, err);
}

static sc_status_t compute__size(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    compute__opts_t *o = t;
    sc_status_t status = sc_cli_int(flag, v, 16, 65536, &n, err);
    o->spec.m = o->spec.n = o->spec.k = (int)n;
    return status;
}

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, compute__opts_t, field, lo, hi)
static const sc_cli_opt_t compute__options[] = {
    SC_OPT_CUSTOM_ROW(0, "mode", "spin|gemm",
                      "spin for --time-us, or matrix multiplies (default spin)", compute__mode),
    O(0, "time-us", "US", "spin: requested length in microseconds (default 1000)", SC_OPT_DOUBLE,
      time_us, 1.0, 60e6),
    SC_OPT_CUSTOM_ROW('n', "repeats", "N",
                      "spins to time, or matrix multiplies to run (default 10)", compute__repeats),
    SC_OPT_CUSTOM_ROW('d', "dtype", "TYPE", "gemm: fp32, tf32, fp16 or bf16 (default bf16)",
                      compute__dtype),
    SC_OPT_CUSTOM_ROW(0, "size", "N", "gemm: N x N x N matrices (default 8192)", compute__size),
    O(0, "backend", "NAME", "nccl, mpi or auto (default auto)", SC_OPT_STRING, backend, 0, 0),
    SC_OPT_TIMEOUT_ROW(compute__opts_t, timeout_s),
    O(0, "json", "FILE", "write the results as JSON to FILE", SC_OPT_STRING, json_path, 0, 0),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

/* Runs the phase on this rank into its record. */
static sc_status_t compute__run(sc_comm_t *comm, const compute__opts_t *o, sc_compute_row_t *out,
                                sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    if (o->gemm) {
        sc_gemm_result_t r;
        sc_status_t status = comm->ops->gemm->run(comm, &o->spec, &r, err);
        snprintf(out->dtype, sizeof(out->dtype), "%s", sc_gemm_type_name(o->spec.type));
        out->size = o->spec.m;
        out->iters = o->spec.iters;
        out->seconds = r.seconds;
        out->tflops = r.tflops;
        return status;
    }
    /* one spin first, untimed: a GPU loads its kernels lazily, on their first launch */
    double us = 0;
    sc_status_t status = comm->ops->compute_spin(comm, o->time_us, &us, err);
    double sum = 0, worst = 0, *off = calloc((size_t)o->repeats, sizeof(double));
    if (off == NULL && status == SC_OK)
        status = sc_err_set(err, SC_ERR_NOMEM, "rank %d: no memory for %d spins", comm->rank,
                            o->repeats);
    for (int i = 0; i < o->repeats && status == SC_OK; i++) {
        status = comm->ops->compute_spin(comm, o->time_us, &us, err);
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

static void compute__print(const sc_rte_t *rte, const compute__opts_t *o,
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
static sc_status_t compute__report(const sc_rte_t *rte, const compute__opts_t *o,
                                   const sc_comm_t *comm, const sc_compute_row_t *all,
                                   sc_err_t *err)
{
    compute__print(rte, o, all);
    if (o->json_path == NULL)
        return SC_OK;
    sc_kvs_t head = {0};
    sc_kvs_text(&head, "mode", o->gemm ? "gemm" : "spin");
    sc_kvs_text(&head, "backend", comm->ops->name);
    sc_json_list_t ranks = {"ranks", all, (size_t)rte->size, sizeof(*all),
                            o->gemm ? sc_gemm_row_fields : sc_spin_row_fields};
    sc_status_t status = sc_json_write_lists(o->json_path, &head, &ranks, 1, err);
    sc_list_free(&head);
    return status;
}

int sc_cmd_compute(const sc_rte_t *rte, int argc, char **argv)
{
    compute__opts_t o = {
        .time_us = 1000, .repeats = 10, .backend = "auto", .timeout_s = SC_DEFAULT_TIMEOUT_S};
    o.spec = (sc_gemm_spec_t){.type = SC_GEMM_bf16, .m = 8192, .n = 8192, .k = 8192, .iters = 10};
    sc_err_t err;
    sc_err_clear(&err);
    sc_comm_t *comm = NULL;
    char note[512];
    sc_backend_opts_t bopts = {.device = -1, .timeout_s = o.timeout_s};
    sc_status_t status = sc_cli_parse(compute__options, argc, argv, 2, &o, &err);
    if (status == SC_OK && o.help) {
        if (rte->rank == 0)
            sc_cli_print_help(compute__options, stdout);
        return 0;
    }
    if (status == SC_OK)
        status = sc_files_check_output("--json", o.json_path, &err);
    if (status == SC_OK)
        status = sc_backend_open(o.backend, rte, &bopts, &comm, note, sizeof(note), &err);
    if (status == SC_OK && o.gemm && comm->ops->gemm == NULL)
        status = sc_err_set(&err, SC_ERR_USAGE,
                            "--mode gemm: matrix multiplies need a GPU backend (backend %s)",
                            comm->ops->name);
    sc_compute_row_t mine;
    if (status == SC_OK)
        status = compute__run(comm, &o, &mine, &err);
    if (status != SC_OK) {
        if (rte->rank == 0 || sc_status_exit_code(status) != 2)
            fprintf(stderr, "scalecheck compute: %s\n", err.msg);
        if (comm != NULL)
            comm->ops->close(comm);
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
    comm->ops->close(comm);
    return sc_status_exit_code(status);
}
