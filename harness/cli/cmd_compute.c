/* cmd_compute.c - `scalecheck compute`: the compute phase alone, to see that it is what it says
 * (--mode spin: a requested time; --mode gemm: cuBLAS TFLOP/s); its options declared and parsed
 * here, the phase driven by drive/sc_drive_compute.h. */
#include <stdio.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_compute.h"
#include "util/sc_defaults.h"

static sc_status_t compute__mode(void *t, const char *flag, const char *v, sc_err_t *err)
{
    sc_drive_compute_opts_t *o = t;
    if (strcmp(v, "spin") != 0 && strcmp(v, "gemm") != 0)
        return sc_err_set(err, SC_ERR_USAGE, "%s: unknown mode '%s' (valid: spin, gemm)", flag, v);
    o->gemm = strcmp(v, "gemm") == 0;
    return SC_OK;
}

static sc_status_t compute__repeats(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    sc_status_t status = sc_cli_int(flag, v, 1, 100000, &n, err);
    ((sc_drive_compute_opts_t *)t)->repeats = (int)n;
    ((sc_drive_compute_opts_t *)t)->spec.iters = (int)n;
    return status;
}

static sc_status_t compute__dtype(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return sc_gemm_type_parse(v, flag, &((sc_drive_compute_opts_t *)t)->spec.type, err);
}

static sc_status_t compute__size(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    sc_drive_compute_opts_t *o = t;
    sc_status_t status = sc_cli_int(flag, v, 16, 65536, &n, err);
    o->spec.m = o->spec.n = o->spec.k = (int)n;
    return status;
}

/* the shared options compute takes (record/sc_common_opts.h) */
#define COMPUTE__COMMON (SC_COMMON_BACKEND | SC_COMMON_TIMEOUT | SC_COMMON_JSON)

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_drive_compute_opts_t, field, lo, hi)
static const sc_cli_opt_t compute__options[] = {
    SC_OPT_CUSTOM_ROW(0, "mode", "spin|gemm",
                      "spin for --time-us, or matrix multiplies (default spin)", compute__mode),
    O(0, "time-us", "US", "spin: requested length in microseconds (default 1000)", SC_OPT_DOUBLE,
      time_us, 1.0, 60e6),
    SC_OPT_CUSTOM_ROW('n', "repeats", "N",
                      "spins to time, or matrix multiplies to run (default 10)", compute__repeats),
    SC_OPT_CUSTOM_ROW('d', "dtype", "fp32|tf32|fp16|bf16", "gemm: the type (default bf16)",
                      compute__dtype),
    SC_OPT_CUSTOM_ROW(0, "size", "N", "gemm: N x N x N matrices (default 8192)", compute__size),
    O('Y', "topology", "FILE",
      "gemm: also hold each GPU to the topology's peak x the share a large product reaches",
      SC_OPT_STRING, topology, 0, 0),
    O(0, "no-check", NULL,
      "gemm: skip the corruption check (a seeded product compared bit for bit across GPUs and "
      "with an fp64 reference)",
      SC_OPT_FLAG, no_check, 0, 0),
    SC_OPT_COMMON_ROW(sc_drive_compute_opts_t, common, COMPUTE__COMMON, NULL),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

int sc_cmd_compute(const sc_rte_t *rte, int argc, char **argv)
{
    sc_drive_compute_opts_t o = {.time_us = 1000, .repeats = 10};
    sc_common_opts_default(&o.common, COMPUTE__COMMON);
    o.spec = (sc_gemm_spec_t){.type = SC_GEMM_bf16, .m = 8192, .n = 8192, .k = 8192, .iters = 10};
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse(compute__options, argc, argv, 2, &o, &err);
    if (status != SC_OK)
        return sc_cli_refuse(rte, "compute", &err);
    if (o.help) {
        if (rte->rank == 0)
            sc_cli_print_help(compute__options, stdout);
        return 0;
    }
    return sc_drive_compute(rte, &o);
}
