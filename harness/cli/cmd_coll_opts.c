/* cmd_coll_opts.c - option handlers and the option table of `scalecheck coll`. */
#include "cli/cmd_coll_opts.h"
#include "cli/sc_cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/sc_defaults.h"
#include "util/sc_files.h"
#include "util/sc_size.h"

static sc_status_t coll__factor(void *t, const char *flag, const char *v, sc_err_t *err)
{
    sc_coll_opts_t *o = t;
    o->factor_set = true;
    return sc_cli_double(flag, v, 1.0001, 1024.0, &o->factor, err);
}

static sc_status_t coll__step(void *t, const char *flag, const char *v, sc_err_t *err)
{
    sc_coll_opts_t *o = t;
    o->step_set = true;
    sc_status_t status = sc_size_parse(v, flag, &o->step_bytes, err);
    if (status == SC_OK && o->step_bytes == 0)
        return sc_err_set(err, SC_ERR_USAGE, "%s: the step must be at least 1 byte", flag);
    return status;
}

static sc_status_t coll__iters(void *t, const char *flag, const char *v, sc_err_t *err)
{
    sc_coll_opts_t *o = t;
    long n = 0;
    if (strcmp(v, "auto") == 0) {
        o->eng.iters = 0;
        return SC_OK;
    }
    if (sc_cli_int(flag, v, 1, 10000000, &n, err) != SC_OK)
        return sc_err_set(err, SC_ERR_USAGE,
                          "%s: '%s' is not an iteration count (1..10000000 or auto)", flag, v);
    o->eng.iters = (int)n;
    return SC_OK;
}

static sc_status_t coll__combine(void *t, const char *flag, const char *v, sc_err_t *err)
{
    ((sc_coll_opts_t *)t)->combine_set = true;
    return sc_combine_parse(v, flag, &((sc_coll_opts_t *)t)->eng.combine, err);
}

static sc_status_t coll__stat(void *t, const char *flag, const char *v, sc_err_t *err)
{
    ((sc_coll_opts_t *)t)->stat_set = true;
    return sc_stat_parse(v, flag, &((sc_coll_opts_t *)t)->eng.statistic, err);
}

/* -r RANK, or all / -1 (nccl-tests): every rank as the root in turn. */
static sc_status_t coll__root(void *t, const char *flag, const char *v, sc_err_t *err)
{
    sc_coll_opts_t *o = t;
    long n = 0;
    o->all_roots = strcmp(v, "all") == 0 || strcmp(v, "-1") == 0;
    if (o->all_roots)
        return SC_OK;
    sc_status_t status = sc_cli_int(flag, v, 0, 1 << 24, &n, err);
    o->root = (int)n;
    return status;
}

/* "all", or a comma-separated list of names: each name's bit (parse_one gives its index). */
static sc_status_t coll__list(const char *flag, const char *v, int count,
                              int (*parse_one)(const char *name, const char *flag, sc_err_t *err),
                              uint32_t *bits, sc_err_t *err)
{
    *bits = 0;
    if (strcmp(v, "all") == 0) {
        *bits = count >= 32 ? UINT32_MAX : (1u << count) - 1;
        return SC_OK;
    }
    char name[64];
    for (const char *p = v;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof(name))
            return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is not a list of names (a,b,...)", flag,
                              v);
        memcpy(name, p, len);
        name[len] = '\0';
        int index = parse_one(name, flag, err);
        if (index < 0)
            return SC_ERR_USAGE;
        *bits |= 1u << index;
        p += len;
        if (*p == '\0')
            return SC_OK;
    }
}

static int coll__op_index(const char *name, const char *flag, sc_err_t *err)
{
    sc_redop_t op;
    if (strcmp(name, "mulsum") == 0) {
        sc_err_set(err, SC_ERR_USAGE,
                   "%s mulsum: NCCL's pre-multiplied sum is not measured here (avg moves the "
                   "same bytes)",
                   flag);
        return -1;
    }
    return sc_redop_parse(name, flag, &op, err) == SC_OK ? (int)op : -1;
}

static int coll__dtype_index(const char *name, const char *flag, sc_err_t *err)
{
    sc_dtype_t dtype;
    return sc_dtype_parse(name, flag, &dtype, err) == SC_OK ? (int)dtype : -1;
}

static int coll__coll_index(const char *name, const char *flag, sc_err_t *err)
{
    const sc_coll_t *coll = NULL;
    if (sc_coll_find(name, flag, &coll, err) != SC_OK)
        return -1;
    int index = 0;
    for (const sc_coll_t *const *cp = sc_coll_list(); *cp != coll; cp++)
        index++;
    return index;
}

static sc_status_t coll__op(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return coll__list(flag, v, SC_REDOP_COUNT, coll__op_index, &((sc_coll_opts_t *)t)->ops, err);
}

static sc_status_t coll__dtype(void *t, const char *flag, const char *v, sc_err_t *err)
{
    sc_coll_opts_t *o = t;
    o->all_types = strcmp(v, "all") == 0;
    return coll__list(flag, v, SC_DTYPE_COUNT, coll__dtype_index, &o->types, err);
}

static sc_status_t coll__collective(void *t, const char *flag, const char *v, sc_err_t *err)
{
    sc_coll_opts_t *o = t;
    int count = 0;
    for (const sc_coll_t *const *cp = sc_coll_list(); *cp != NULL; cp++)
        count++;
    o->all_colls = strcmp(v, "all") == 0;
    return coll__list(flag, v, count, coll__coll_index, &o->colls, err);
}

static sc_status_t coll__target_ci(void *t, const char *flag, const char *v, sc_err_t *err)
{
    double pct = 0;
    sc_status_t status = sc_cli_double(flag, v, 0.01, 100.0, &pct, err);
    ((sc_coll_opts_t *)t)->eng.target_ci = pct / 100.0;
    return status;
}

static sc_status_t coll__seed(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    sc_status_t status = sc_cli_int(flag, v, 0, 2147483647L, &n, err);
    ((sc_coll_opts_t *)t)->eng.seed = (uint64_t)n;
    return status;
}

/* the shared options coll takes (record/sc_common_opts.h) */
#define COLL__COMMON (SC_COMMON_MEASURE | SC_COMMON_DEVICE | SC_COMMON_CSV | SC_COMMON_TELEMETRY)

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_coll_opts_t, field, lo, hi)
static const sc_cli_opt_t coll__options[] = {
    O('b', "minbytes", "SIZE", "smallest size, K/M/G suffixes (default 8)", SC_OPT_SIZE, min_bytes,
      1, 0),
    O('e', "maxbytes", "SIZE", "largest size (default 64M)", SC_OPT_SIZE, max_bytes, 1, 0),
    SC_OPT_CUSTOM_ROW('f', "stepfactor", "F", "multiply the size by F each step (default 2)",
                      coll__factor),
    SC_OPT_CUSTOM_ROW('i', "stepbytes", "SIZE", "add SIZE each step instead of -f", coll__step),
    SC_OPT_CUSTOM_ROW('n', "iters", "N|auto", "timed iterations per size, or auto (default 20)",
                      coll__iters),
    O('w', "warmup_iters", "N", "untimed iterations first (default 5)", SC_OPT_INT, eng.warmup, 0,
      1000000),
    O('c', "check", "N", "data-check iterations per size, 0 = none (default 1)", SC_OPT_INT,
      eng.check_iters, 0, 1000),
    SC_OPT_CUSTOM_ROW('o', "op", "OP",
                      "sum prod min max avg, a list (sum,max) or all (default sum)", coll__op),
    SC_OPT_CUSTOM_ROW('d', "datatype", "TYPE",
                      "int8 uint8 int32 uint32 int64 uint64 float double fp16 bf16, a list "
                      "(float,bf16) or all (default float)",
                      coll__dtype),
    SC_OPT_CUSTOM_ROW('r', "root", "RANK",
                      "root of broadcast/reduce/gather/scatter, or all (-1) for every rank in "
                      "turn (default 0)",
                      coll__root),
    SC_OPT_CUSTOM_ROW('a', "average", "HOW",
                      "iteration time across ranks: 0|rank0 1|avg 2|min 3|max (default max; avg "
                      "with --nccl-tests-output, as nccl-tests)",
                      coll__combine),
    SC_OPT_CUSTOM_ROW(0, "stat", "median|mean",
                      "the statistic of the iteration times that time and bandwidths come from "
                      "(default median; mean with --nccl-tests-output, as nccl-tests)",
                      coll__stat),
    O('m', "agg_iters", "N",
      "operations per timed iteration, in one NCCL group on GPUs (default 1)", SC_OPT_INT,
      eng.agg_ops, 1, 100000),
    O('G', "cudagraph", "N",
      "GPU backends: capture an iteration's operations into a CUDA graph and launch it N times "
      "per timed iteration, the time per operation (default 0: no graph)",
      SC_OPT_INT, eng.graph_launches, 0, 100000),
    O('N', "run_cycles", "N",
      "sweep every size N times, printing each; 0: until stopped (default 1)", SC_OPT_INT, cycles,
      0, 1000000),
    O('C', "report_cputime", "0|1", "time from the host clock, not the GPU's events (default 0)",
      SC_OPT_INT, eng.host_time, 0, 1),
    O('z', "blocking", "0-3",
      "1 or 3: a barrier after every timed iteration, outside its time (on a GPU each is then "
      "timed alone, not back to back with the others) (default 0)",
      SC_OPT_INT, blocking, 0, 3),
    O('S', "report_timestamps", "0|1", "a timestamp at the end of every row (default 0)",
      SC_OPT_INT, timestamps, 0, 1),
    O('I', "per_iter_timing", "0|1",
      "with --nccl-tests-output: each half's i_min i_max i_p99 i_cv% columns (default 0)",
      SC_OPT_INT, per_iter, 0, 1),
    O('K', "per_iter_skip", "N",
      "leave the first N timed iterations out of every statistic (run as warm-up)", SC_OPT_INT,
      skip, 0, 1000000),
    O('M', "memory", "0|1", "print the memory the buffers take (default 0)", SC_OPT_INT,
      memory_report, 0, 1),
    O('J', "output_file", "FILE", "also write nccl-tests' JSON (its -J) to FILE", SC_OPT_STRING,
      nccl_json_path, 0, 0),
    O(0, "nccl-tests-output", NULL,
      "print the table, header and footer exactly as nccl-tests does, for its parsers", SC_OPT_FLAG,
      nccl_tests_output, 0, 0),
    O('t', "nthreads", "1", "nccl-tests' threads per process: 1 (one rank per GPU here)",
      SC_OPT_INT, nthreads, 1, 1024),
    O('g', "ngpus", "1", "nccl-tests' GPUs per thread: 1 (one rank per GPU here)", SC_OPT_INT,
      ngpus, 1, 1024),
    O('p', "parallel_init", "0|1", "accepted: one thread per rank initialises (default 0)",
      SC_OPT_INT, parallel_init, 0, 1),
    O('y', "stream_null", "0", "0 only: operations run on scalecheck's own stream", SC_OPT_INT,
      stream_null, 0, 1),
    O('R', "local_register", "0|1",
      "1: buffers from ncclMemAlloc, registered with the communicator (NCCL; default 0)",
      SC_OPT_INT, local_register, 0, 2),
    O('u', "unalign", "0", "0 only: buffers are page-aligned", SC_OPT_INT, unalign, 0, 1 << 20),
    O('x', "cta_policy", "0", "0 only: NCCL's default CTA policy", SC_OPT_INT, cta_policy, 0,
      1 << 20),
    O('D', "device_implementation", "0", "0 only: NCCL's own implementation", SC_OPT_INT,
      device_impl, 0, 1 << 20),
    O('V', "device_cta_count", "N", "accepted: it only counts with -D, not measured here",
      SC_OPT_INT, device_ctas, 0, 1 << 20),
    SC_OPT_CUSTOM_ROW(0, "collective", "NAME",
                      "allreduce allgather reducescatter broadcast reduce alltoall sendrecv "
                      "gather scatter, a list or all (default allreduce)",
                      coll__collective),
    O('Y', "topology", "FILE",
      "hold every case to what this hardware should deliver (topologies/*.yaml); verdict",
      SC_OPT_STRING, topology, 0, 0),
    O(0, "looks", "N",
      "with --topology: a case slower than expected is measured up to N times, the best kept "
      "(default " SC_DEFAULT_LOOKS_TEXT ")",
      SC_OPT_INT, looks, 1, 10),
    O(0, "algo", "NAME[,NAME]",
      "ring, tree, nvls or sharp: NCCL uses it (NCCL_ALGO) and the model prices it (default "
      "auto); a list, or all, sweeps each on NCCL (with --proto: each combination) and says the "
      "fastest per case",
      SC_OPT_STRING, algo, 0, 0),
    O(0, "proto", "P[,P]",
      "LL, LL128, Simple (NCCL_PROTO), a list or all: each swept on NCCL as --algo's lists are",
      SC_OPT_STRING, proto, 0, 0),
    O(0, "concurrent", "KIND[,KIND]",
      "traffic that collides: tp (all-reduce in groups of --tp ranks), dp (all-reduce across "
      "them), a2a (all-to-all over every rank), a list or all - each size timed with each kind "
      "alone, then all at once; the slowdown per group",
      SC_OPT_STRING, concurrent, 0, 0),
    O(0, "tp", "N", "with --concurrent: consecutive ranks in a TP group (default: a host's)",
      SC_OPT_INT, tp, 1, 1 << 20),
    O(0, "baseline", "FILE",
      "also hold every case to known-good runs (scalecheck baseline create); verdict",
      SC_OPT_STRING, baseline, 0, 0),
    SC_OPT_COMMON_ROW(sc_coll_opts_t, common, COLL__COMMON, "coll-<collective>"),
    SC_OPT_CUSTOM_ROW(0, "target-ci", "PCT",
                      "-n auto: stop at this 95 % CI half-width of the median (default 2)",
                      coll__target_ci),
    O(0, "size-budget", "SECONDS", "-n auto: time budget per size (default 2)", SC_OPT_DOUBLE,
      eng.size_budget_s, 0.001, 3600.0),
    SC_OPT_CUSTOM_ROW(0, "seed", "N", "seed of the data-check values", coll__seed),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

static void coll__defaults(sc_coll_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->min_bytes = 8;
    o->max_bytes = 64ull << 20;
    o->factor = 2.0;
    sc_engine_opts_default(&o->eng);
    o->ops = 1u << SC_REDOP_sum;
    o->types = 1u << SC_DTYPE_float;
    o->colls = 1u; /* allreduce, the first of sc_coll_list() */
    sc_common_opts_default(&o->common, COLL__COMMON);
    o->looks = SC_DEFAULT_LOOKS;
    o->nthreads = o->ngpus = 1;
    o->cycles = 1;
}

/* nccl-tests' flags with a value that has no meaning here: the flag and why. */
static sc_status_t coll__nccl_tests_limits(const sc_coll_opts_t *o, sc_err_t *err)
{
    if (o->nthreads > 1 || o->ngpus > 1)
        return sc_err_set(err, SC_ERR_USAGE,
                          "%s %d: scalecheck drives one GPU per rank with one thread; launch "
                          "%d ranks per process you would have started (mpirun -np, srun "
                          "--ntasks-per-node)",
                          o->nthreads > 1 ? "-t" : "-g", o->nthreads > 1 ? o->nthreads : o->ngpus,
                          o->nthreads * o->ngpus);
    if (o->stream_null)
        return sc_err_set(err, SC_ERR_USAGE,
                          "-y 1: operations run on scalecheck's own stream, "
                          "not the NULL stream");
    if (o->local_register == 2)
        return sc_err_set(err, SC_ERR_USAGE,
                          "-R 2: symmetric registration (NCCL windows) is not measured by "
                          "scalecheck; -R 1 registers the buffers with the communicator");
    if (o->unalign)
        return sc_err_set(err, SC_ERR_USAGE, "-u %d: scalecheck measures page-aligned buffers",
                          o->unalign);
    if (o->device_impl || o->cta_policy)
        return sc_err_set(err, SC_ERR_USAGE,
                          "%s: NCCL's device API and CTA policies are not measured by scalecheck",
                          o->device_impl ? "-D" : "-x");
    if (o->cycles == 0 && (o->topology || o->baseline))
        return sc_err_set(err, SC_ERR_USAGE,
                          "-N 0: a run until stopped has no end to judge at (%s); "
                          "scalecheck soak judges a system over time",
                          o->topology ? "--topology" : "--baseline");
    return SC_OK;
}

/* Checks that need the whole command line (and the rank count). */
/* nccl-tests' NCCL_TESTS_MIN_BW, read strictly: what nccl-tests' atof takes as 0 (no floor) for a
 * typo is refused here, as a bad flag is. */
static sc_status_t coll__min_bw(sc_coll_opts_t *o, sc_err_t *err)
{
    const char *v = getenv("NCCL_TESTS_MIN_BW");
    if (v == NULL || v[0] == '\0')
        return SC_OK;
    char *end = NULL;
    double gbps = strtod(v, &end);
    if (end == v || *end != '\0' || !(gbps >= 0) || gbps > 1e9)
        return sc_err_set(err, SC_ERR_USAGE,
                          "NCCL_TESTS_MIN_BW: '%s' is not a bandwidth in GB/s (nccl-tests' floor "
                          "on the average bus bandwidth)",
                          v);
    o->min_avg_busbw = gbps;
    return SC_OK;
}

static sc_status_t coll__validate(const sc_coll_opts_t *o, int nranks, sc_err_t *err)
{
    if (o->factor_set && o->step_set)
        return sc_err_set(err, SC_ERR_USAGE, "-f and -i: give one way to step, not both");
    if (o->min_bytes > o->max_bytes)
        return sc_err_set(err, SC_ERR_USAGE,
                          "-b: minimum size %" PRIu64 " is larger than the maximum (-e) %" PRIu64,
                          o->min_bytes, o->max_bytes);
    if (o->root >= nranks)
        return sc_err_set(err, SC_ERR_USAGE, "-r: root %d does not exist with %d rank%s", o->root,
                          nranks, nranks == 1 ? "" : "s");
    return coll__nccl_tests_limits(o, err);
}

sc_status_t sc_coll_opts_parse(sc_coll_opts_t *o, int argc, char **argv, int first, int nranks,
                               sc_err_t *err)
{
    coll__defaults(o);
    sc_status_t status = sc_cli_parse(coll__options, argc, argv, first, o, err);
    if (status != SC_OK)
        return status;
    /* nccl-tests' statistic where its figures are to be compared, unless told otherwise */
    sc_engine_opts_t nccl_tests = o->eng;
    sc_engine_opts_nccl_tests(&nccl_tests);
    if (o->nccl_tests_output && !o->combine_set)
        o->eng.combine = nccl_tests.combine;
    if (o->nccl_tests_output && !o->stat_set)
        o->eng.statistic = nccl_tests.statistic;
    o->eng.warmup += o->skip; /* -K: the first timed iterations are left out */
    if ((status = coll__min_bw(o, err)) != SC_OK)
        return status;
    o->eng.barrier_each = o->blocking == 1 || o->blocking == 3;
    return coll__validate(o, nranks, err);
}

void sc_coll_opts_help(FILE *out)
{
    sc_cli_print_help(coll__options, out);
}
