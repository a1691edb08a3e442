/* cmd_coll.c - `scalecheck coll`: nccl-tests-style sweeps of one or all collectives over sizes,
 * types and reductions, out of place and in place, with statistics per size, an exact data
 * check, and results written to the run's own directory. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "engine/sc_engine.h"
#include "report/sc_coll_report.h"
#include "sc_config.h"
#include "util/sc_size.h"

typedef struct {
    uint64_t min_bytes, max_bytes;
    double factor;
    uint64_t step_bytes;
    bool factor_set, step_set;
    sc_engine_opts_t eng;
    int root;
    bool all_ops, all_types, all_colls;
    sc_redop_t op;
    sc_dtype_t dtype;
    const sc_coll_t *coll;
    const char *backend;
    const char *json_path, *csv_path, *results_base, *name;
    double timeout_s;
    bool help;
} coll__opts_t;

static sc_status_t coll__min_bytes(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return sc_size_parse(v, flag, &((coll__opts_t *)t)->min_bytes, err);
}

static sc_status_t coll__max_bytes(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return sc_size_parse(v, flag, &((coll__opts_t *)t)->max_bytes, err);
}

static sc_status_t coll__factor(void *t, const char *flag, const char *v, sc_err_t *err)
{
    coll__opts_t *o = t;
    o->factor_set = true;
    return sc_cli_double(flag, v, 1.0001, 1024.0, &o->factor, err);
}

static sc_status_t coll__step(void *t, const char *flag, const char *v, sc_err_t *err)
{
    coll__opts_t *o = t;
    o->step_set = true;
    sc_status_t status = sc_size_parse(v, flag, &o->step_bytes, err);
    if (status == SC_OK && o->step_bytes == 0)
        return sc_err_set(err, SC_ERR_USAGE, "%s: the step must be at least 1 byte", flag);
    return status;
}

static sc_status_t coll__iters(void *t, const char *flag, const char *v, sc_err_t *err)
{
    coll__opts_t *o = t;
    if (strcmp(v, "auto") == 0) {
        o->eng.iters = 0;
        return SC_OK;
    }
    long n = 0;
    sc_status_t status = sc_cli_int(flag, v, 1, 10000000, &n, err);
    o->eng.iters = (int)n;
    if (status == SC_ERR_USAGE && err != NULL)
        sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is not an iteration count (1..10000000 or auto)",
                   flag, v);
    return status;
}

static sc_status_t coll__warmup(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    sc_status_t status = sc_cli_int(flag, v, 0, 1000000, &n, err);
    ((coll__opts_t *)t)->eng.warmup = (int)n;
    return status;
}

static sc_status_t coll__check(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    sc_status_t status = sc_cli_int(flag, v, 0, 1000, &n, err);
    ((coll__opts_t *)t)->eng.check_iters = (int)n;
    return status;
}

static sc_status_t coll__op(void *t, const char *flag, const char *v, sc_err_t *err)
{
    coll__opts_t *o = t;
    o->all_ops = strcmp(v, "all") == 0;
    return o->all_ops ? SC_OK : sc_redop_parse(v, flag, &o->op, err);
}

static sc_status_t coll__dtype(void *t, const char *flag, const char *v, sc_err_t *err)
{
    coll__opts_t *o = t;
    o->all_types = strcmp(v, "all") == 0;
    return o->all_types ? SC_OK : sc_dtype_parse(v, flag, &o->dtype, err);
}

static sc_status_t coll__root(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    sc_status_t status = sc_cli_int(flag, v, 0, 1 << 24, &n, err);
    ((coll__opts_t *)t)->root = (int)n;
    return status;
}

static sc_status_t coll__combine(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return sc_combine_parse(v, flag, &((coll__opts_t *)t)->eng.combine, err);
}

static sc_status_t coll__collective(void *t, const char *flag, const char *v, sc_err_t *err)
{
    coll__opts_t *o = t;
    o->all_colls = strcmp(v, "all") == 0;
    return o->all_colls ? SC_OK : sc_coll_find(v, flag, &o->coll, err);
}

static sc_status_t coll__string(const char **dst, const char *flag, const char *v, sc_err_t *err)
{
    if (*v == '\0')
        return sc_err_set(err, SC_ERR_USAGE, "%s: empty value", flag);
    *dst = v;
    return SC_OK;
}

static sc_status_t coll__backend(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return coll__string(&((coll__opts_t *)t)->backend, flag, v, err);
}

static sc_status_t coll__json(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return coll__string(&((coll__opts_t *)t)->json_path, flag, v, err);
}

static sc_status_t coll__csv(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return coll__string(&((coll__opts_t *)t)->csv_path, flag, v, err);
}

static sc_status_t coll__results_dir(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return coll__string(&((coll__opts_t *)t)->results_base, flag, v, err);
}

static sc_status_t coll__name(void *t, const char *flag, const char *v, sc_err_t *err)
{
    if (strpbrk(v, "/ \t") != NULL)
        return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' may not contain '/' or blanks", flag, v);
    return coll__string(&((coll__opts_t *)t)->name, flag, v, err);
}

static sc_status_t coll__timeout(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return sc_cli_double(flag, v, 0.0, 86400.0, &((coll__opts_t *)t)->timeout_s, err);
}

static sc_status_t coll__target_ci(void *t, const char *flag, const char *v, sc_err_t *err)
{
    double pct = 0;
    sc_status_t status = sc_cli_double(flag, v, 0.01, 100.0, &pct, err);
    ((coll__opts_t *)t)->eng.target_ci = pct / 100.0;
    return status;
}

static sc_status_t coll__budget(void *t, const char *flag, const char *v, sc_err_t *err)
{
    return sc_cli_double(flag, v, 0.001, 3600.0, &((coll__opts_t *)t)->eng.size_budget_s, err);
}

static sc_status_t coll__seed(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    sc_status_t status = sc_cli_int(flag, v, 0, 2147483647L, &n, err);
    ((coll__opts_t *)t)->eng.seed = (uint64_t)n;
    return status;
}

static sc_status_t coll__graph(void *t, const char *flag, const char *v, sc_err_t *err)
{
    long n = 0;
    sc_status_t status = sc_cli_int(flag, v, 0, 100000, &n, err);
    ((coll__opts_t *)t)->eng.graph_ops = (int)n;
    return status;
}

static sc_status_t coll__help(void *t, const char *flag, const char *v, sc_err_t *err)
{
    (void)flag;
    (void)v;
    (void)err;
    ((coll__opts_t *)t)->help = true;
    return SC_OK;
}

static const sc_cli_opt_t coll__options[] = {
    {'b', "minbytes", "SIZE", "smallest size, K/M/G suffixes (default 8)", coll__min_bytes},
    {'e', "maxbytes", "SIZE", "largest size (default 64M)", coll__max_bytes},
    {'f', "stepfactor", "F", "multiply the size by F each step (default 2)", coll__factor},
    {'i', "stepbytes", "SIZE", "add SIZE each step instead of -f", coll__step},
    {'n', "iters", "N|auto", "timed iterations per size, or auto (default 20)", coll__iters},
    {'w', "warmup_iters", "N", "untimed iterations first (default 5)", coll__warmup},
    {'c', "check", "N", "data-check iterations per size, 0 = none (default 1)", coll__check},
    {'o', "op", "OP", "sum, prod, min, max, avg or all (default sum)", coll__op},
    {'d', "datatype", "TYPE",
     "int8 uint8 int32 uint32 int64 uint64 float double fp16 bf16, or all (default float)",
     coll__dtype},
    {'r', "root", "RANK", "root of broadcast/reduce/gather/scatter (default 0)", coll__root},
    {'a', "average", "HOW", "iteration time across ranks: 0|rank0 1|avg 2|min 3|max (default max)",
     coll__combine},
    {'G', "cudagraph", "N",
     "capture N operations into one CUDA graph per timed step, GPU backends (default 0: none)",
     coll__graph},
    {0, "collective", "NAME",
     "allreduce allgather reducescatter broadcast reduce alltoall "
     "sendrecv gather scatter, or all (default allreduce)",
     coll__collective},
    {0, "backend", "NAME", "nccl, mpi or auto: NCCL where every rank has a GPU (default auto)",
     coll__backend},
    {0, "json", "FILE", "also write the JSON results to FILE", coll__json},
    {0, "csv", "FILE", "also write the CSV results to FILE", coll__csv},
    {0, "results-dir", "DIR", "where run directories go (default results)", coll__results_dir},
    {0, "name", "NAME", "run name in the directory name (default coll-<collective>)", coll__name},
    {0, "timeout", "SECONDS", "bound on every wait on other ranks, 0 = none (default 120)",
     coll__timeout},
    {0, "target-ci", "PCT", "-n auto: stop at this 95 % CI half-width of the median (default 2)",
     coll__target_ci},
    {0, "size-budget", "SECONDS", "-n auto: time budget per size (default 2)", coll__budget},
    {0, "seed", "N", "seed of the data-check values", coll__seed},
    {'h', "help", NULL, "this help", coll__help},
    {0, NULL, NULL, NULL, NULL},
};

static void coll__defaults(coll__opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->min_bytes = 8;
    o->max_bytes = 64ull << 20;
    o->factor = 2.0;
    sc_engine_opts_default(&o->eng);
    o->op = SC_REDOP_sum;
    o->dtype = SC_DTYPE_float;
    o->coll = &sc_coll_allreduce;
    o->backend = "auto";
    o->results_base = "results";
    o->timeout_s = 120.0;
}

/* Checks that need the whole command line (and the rank count). */
static sc_status_t coll__validate(const coll__opts_t *o, int nranks, sc_err_t *err)
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
    return SC_OK;
}

static uint64_t coll__next_size(const coll__opts_t *o, uint64_t size)
{
    if (o->step_set)
        return size + o->step_bytes;
    uint64_t next = (uint64_t)((double)size * o->factor);
    return next > size ? next : size + 1;
}

/* Everything one run carries from start to end. */
typedef struct {
    const sc_rte_t *rte;
    coll__opts_t opts;
    sc_comm_t *comm;
    sc_engine_t *eng;
    sc_watchdog_t *wd;
    sc_results_t res;
    json_t *doc;
    json_t *results;
    char backend_note[512];
    uint64_t wrong_total;
    double busbw_sum;
    size_t busbw_rows;
} coll__run_t;

static json_t *coll__libraries(const coll__run_t *run)
{
    return json_pack("{s:s, s:s, s:s, s:s}", "mpi", run->rte->mpi_version, "backend",
                     run->comm->ops->version(run->comm), "libyaml", yaml_get_version_string(),
                     "jansson", jansson_version_str());
}

static json_t *coll__hosts(const sc_rte_t *rte, bool per_rank)
{
    json_t *list = json_array();
    for (int r = 0; r < rte->size; r++)
        if (per_rank || rte->host_index[r] == (int)json_array_size(list))
            json_array_append_new(list, json_string(rte->hosts[r]));
    return list;
}

static json_t *coll__options_json(const coll__opts_t *o)
{
    return json_pack(
        "{s:I, s:I, s:f, s:I, s:i, s:i, s:i, s:s, s:f, s:f, s:f, s:I}", "minbytes",
        (json_int_t)o->min_bytes, "maxbytes", (json_int_t)o->max_bytes, "stepfactor",
        o->step_set ? 0.0 : o->factor, "stepbytes", (json_int_t)(o->step_set ? o->step_bytes : 0),
        "iters", o->eng.iters, "warmup_iters", o->eng.warmup, "check_iters", o->eng.check_iters,
        "average", sc_combine_name(o->eng.combine), "timeout_s", o->timeout_s, "target_ci",
        o->eng.target_ci, "size_budget_s", o->eng.size_budget_s, "seed", (json_int_t)o->eng.seed);
}

static json_t *coll__document(const coll__run_t *run, int argc, char **argv)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &utc);
    json_t *args = json_array();
    for (int i = 0; i < argc; i++)
        json_array_append_new(args, json_string(argv[i]));
    return json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:i, s:i, s:o, s:o, s:s, s:o, s:o, s:[]}",
                     "tool", "scalecheck", "version", SC_VERSION, "command", "coll", "argv", args,
                     "start_utc", stamp, "results_dir", run->res.dir, "ranks", run->rte->size,
                     "nhosts", run->rte->nhosts, "hosts", coll__hosts(run->rte, false),
                     "rank_hosts", coll__hosts(run->rte, true), "backend", run->comm->ops->name,
                     "libraries", coll__libraries(run), "options", coll__options_json(&run->opts),
                     "results");
}

/* Rewrites result.json (and --json) so that finished rows survive a later fault. */
static sc_status_t coll__save(coll__run_t *run, const char *state, sc_err_t *err)
{
    if (run->rte->rank != 0)
        return SC_OK;
    json_object_set_new(run->doc, "state", json_string(state));
    char path[PATH_MAX];
    sc_status_t status = sc_results_write_json(
        sc_results_path(&run->res, "result.json", path, sizeof(path)), run->doc, err);
    if (status == SC_OK && run->opts.json_path != NULL)
        status = sc_results_write_json(run->opts.json_path, run->doc, err);
    return status;
}

static sc_status_t coll__save_csv(coll__run_t *run, sc_err_t *err)
{
    if (run->rte->rank != 0)
        return SC_OK;
    char path[PATH_MAX];
    sc_status_t status = sc_coll_report_write_csv(
        sc_results_path(&run->res, "result.csv", path, sizeof(path)), run->results, err);
    if (status == SC_OK && run->opts.csv_path != NULL)
        status = sc_coll_report_write_csv(run->opts.csv_path, run->results, err);
    return status;
}

static void coll__print_header(coll__run_t *run)
{
    const sc_rte_t *rte = run->rte;
    const coll__opts_t *o = &run->opts;
    char lo[32], hi[32], step[48];
    if (o->step_set)
        snprintf(step, sizeof(step), "+%s", sc_size_format(o->step_bytes, lo, sizeof(lo)));
    else
        snprintf(step, sizeof(step), "x%g", o->factor);
    char iters[64];
    if (o->eng.iters > 0)
        snprintf(iters, sizeof(iters), "%d", o->eng.iters);
    else
        snprintf(iters, sizeof(iters), "auto (CI %.1f %%, budget %g s)", o->eng.target_ci * 100,
                 o->eng.size_budget_s);
    sc_results_printf(
        &run->res, "# scalecheck %s coll | backend %s (%s) | %d rank%s on %d host%s\n", SC_VERSION,
        run->comm->ops->name, run->comm->ops->version(run->comm), rte->size,
        rte->size == 1 ? "" : "s", rte->nhosts, rte->nhosts == 1 ? "" : "s");
    sc_results_printf(&run->res,
                      "# sizes %s..%s B (%s)  iters %s  warm-up %d  check %d  rank times: %s  "
                      "timeout %g s\n",
                      sc_size_format(o->min_bytes, lo, sizeof(lo)),
                      sc_size_format(o->max_bytes, hi, sizeof(hi)), step, iters, o->eng.warmup,
                      o->eng.check_iters, sc_combine_name(o->eng.combine), o->timeout_s);
    sc_results_printf(&run->res, "# libyaml %s  jansson %s  results %s\n",
                      yaml_get_version_string(), jansson_version_str(), run->res.dir);
    if (run->backend_note[0] != '\0')
        sc_results_printf(&run->res, "# %s\n", run->backend_note);
    for (int r = 0; r < rte->size && r < 64; r++)
        sc_results_printf(&run->res, "#  rank %3d on host %s\n", r, rte->hosts[r]);
}

/* Runs one size out of place and in place; rank 0 prints and records the row. */
static sc_status_t coll__run_size(coll__run_t *run, sc_case_t *c, sc_err_t *err)
{
    sc_case_result_t results[2];
    bool ran[2] = {false, false};
    for (int ip = 0; ip < 2; ip++) {
        c->in_place = ip == 1;
        if (!sc_engine_supports(run->eng, c))
            continue; /* e.g. NCCL has no in-place alltoall: the row says n/a */
        sc_status_t status = sc_engine_run_case(run->eng, c, &results[ip], err);
        if (status != SC_OK)
            return status;
        ran[ip] = true;
        run->wrong_total += results[ip].wrong;
        run->busbw_sum += results[ip].busbw_GBps;
        run->busbw_rows++;
        if (run->rte->rank == 0)
            json_array_append_new(run->results,
                                  sc_coll_report_case_json(c, &results[ip], run->comm->size));
    }
    if (run->rte->rank == 0) {
        sc_coll_report_table_row(&run->res, c, ran[0] ? &results[0] : NULL,
                                 ran[1] ? &results[1] : NULL, run->opts.eng.iters == 0);
        fflush(stdout);
    }
    return coll__save(run, "running", err);
}

static sc_status_t coll__sweep_one(coll__run_t *run, const sc_coll_t *coll, sc_dtype_t dtype,
                                   sc_redop_t op, sc_err_t *err)
{
    const coll__opts_t *o = &run->opts;
    for (uint64_t size = o->min_bytes; size <= o->max_bytes; size = coll__next_size(o, size)) {
        sc_case_t c = {.coll = coll, .dtype = dtype, .op = op, .root = o->root};
        if (!sc_engine_shape_case(run->eng, &c, size))
            continue; /* too small for one element per rank */
        sc_status_t status = coll__run_size(run, &c, err);
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

static sc_status_t coll__sweep(coll__run_t *run, sc_err_t *err)
{
    const coll__opts_t *o = &run->opts;
    for (const sc_coll_t *const *cp = sc_coll_list(); *cp != NULL; cp++) {
        const sc_coll_t *coll = *cp;
        if (!o->all_colls && coll != o->coll)
            continue;
        if (run->rte->rank == 0) {
            sc_results_printf(&run->res, "#\n# collective %s\n", coll->name);
            sc_coll_report_table_header(&run->res, o->eng.iters == 0);
        }
        for (int d = 0; d < SC_DTYPE_COUNT; d++) {
            if (!o->all_types && d != (int)o->dtype)
                continue;
            if (!run->comm->ops->supports(run->comm, coll->name, (sc_dtype_t)d, false))
                continue; /* -d all: only the types this backend has (checked for -d X) */
            for (int op = 0; op < SC_REDOP_COUNT; op++) {
                bool wanted = coll->has_op ? (o->all_ops || op == (int)o->op) : op == 0;
                if (!wanted)
                    continue;
                sc_status_t status = coll__sweep_one(run, coll, (sc_dtype_t)d, (sc_redop_t)op, err);
                if (status != SC_OK)
                    return status;
            }
        }
    }
    return SC_OK;
}

static void coll__print_summary(coll__run_t *run)
{
    double avg = run->busbw_rows ? run->busbw_sum / (double)run->busbw_rows : 0.0;
    sc_results_printf(&run->res, "# Out of bounds values : %" PRIu64 " %s\n", run->wrong_total,
                      run->wrong_total ? "FAILED" : "OK");
    sc_results_printf(&run->res, "# Avg bus bandwidth    : %g\n#\n", avg);
    json_object_set_new(run->doc, "summary",
                        json_pack("{s:I, s:f, s:I}", "wrong_total", (json_int_t)run->wrong_total,
                                  "avg_busbw_GBps", avg, "cases",
                                  (json_int_t)json_array_size(run->results)));
}

/* Opens what the run needs: backend, results directory, watchdog, engine. */
static sc_status_t coll__setup(coll__run_t *run, int argc, char **argv, sc_err_t *err)
{
    const sc_rte_t *rte = run->rte;
    sc_status_t status = sc_backend_open(run->opts.backend, rte, &run->comm, run->backend_note,
                                         sizeof(run->backend_note), err);
    if (status != SC_OK)
        return status;
    if (!run->opts.all_types &&
        !run->comm->ops->supports(run->comm, "allreduce", run->opts.dtype, false))
        return sc_err_set(err, SC_ERR_USAGE, "-d: type %s is not supported by backend %s",
                          sc_dtype_name(run->opts.dtype), run->comm->ops->name);
    if (run->opts.eng.graph_ops > 0 && run->comm->ops->graph_begin == NULL)
        return sc_err_set(err, SC_ERR_USAGE, "-G: CUDA graphs need a GPU backend (backend %s)",
                          run->comm->ops->name);
    if (rte->rank == 0) {
        char name[128];
        snprintf(name, sizeof(name), "coll-%s", run->opts.all_colls ? "all" : run->opts.coll->name);
        status = sc_results_open(&run->res, run->opts.results_base,
                                 run->opts.name ? run->opts.name : name, err);
    }
    /* Every rank learns whether rank 0 could make its directory: nobody half-runs. */
    int ok = status == SC_OK, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, rte->world);
    if (!all_ok)
        return status != SC_OK ? status
                               : sc_err_set(err, SC_ERR_IO,
                                            "rank 0 could not create the "
                                            "results directory");
    status =
        sc_watchdog_start(rte, run->opts.timeout_s, sc_results_flush, &run->res, &run->wd, err);
    if (status == SC_OK)
        status = sc_engine_create(run->comm, rte->world, &run->opts.eng, run->wd, &run->eng, err);
    if (status == SC_OK && rte->rank == 0) {
        run->doc = coll__document(run, argc, argv);
        run->results = json_object_get(run->doc, "results");
        coll__print_header(run);
    }
    return status;
}

static void coll__teardown(coll__run_t *run)
{
    sc_engine_destroy(run->eng);
    sc_watchdog_stop(run->wd);
    if (run->comm != NULL)
        run->comm->ops->close(run->comm);
    sc_results_close(&run->res);
    json_decref(run->doc);
}

static int coll__usage_error(const sc_rte_t *rte, const sc_err_t *err)
{
    if (rte->rank == 0)
        fprintf(stderr, "scalecheck coll: %s\n", err->msg);
    return sc_status_exit_code(err->status);
}

int sc_cmd_coll(const sc_rte_t *rte, int argc, char **argv)
{
    coll__run_t run = {.rte = rte};
    sc_err_t err;
    sc_err_clear(&err);
    coll__defaults(&run.opts);
    if (sc_cli_parse(coll__options, argc, argv, 2, &run.opts, &err) != SC_OK ||
        coll__validate(&run.opts, rte->size, &err) != SC_OK)
        return coll__usage_error(rte, &err);
    if (run.opts.help) {
        if (rte->rank == 0) {
            printf("usage: mpirun -np N scalecheck coll [options]\n\n");
            sc_cli_print_help(coll__options, stdout);
        }
        return 0;
    }
    sc_status_t status = coll__setup(&run, argc, argv, &err);
    if (status == SC_OK)
        status = coll__sweep(&run, &err);
    if (status == SC_OK && rte->rank == 0) {
        coll__print_summary(&run);
        status = coll__save(&run, "complete", &err);
        if (status == SC_OK)
            status = coll__save_csv(&run, &err);
    }
    if (status != SC_OK) {
        /* Usage and input errors are the same on every rank: one of them says it. */
        if (rte->rank == 0 || sc_status_exit_code(status) != 2)
            fprintf(stderr, "scalecheck coll: %s\n", err.msg);
        if (rte->rank == 0 && run.doc != NULL) {
            sc_err_t ignored;
            coll__save(&run, "failed", &ignored);
            coll__save_csv(&run, &ignored);
        }
        if (sc_status_exit_code(status) == 3) /* peers may be stuck in a collective */
            MPI_Abort(rte->world, 3);
        coll__teardown(&run);
        return sc_status_exit_code(status);
    }
    coll__teardown(&run);
    return run.wrong_total > 0 ? 1 : 0;
}
