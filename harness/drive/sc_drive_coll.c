/* sc_drive_coll.c - `scalecheck coll`, driven: nccl-tests-style sweeps of one or all collectives
 * over sizes, types and reductions, out of place and in place, with statistics per size, an exact
 * data check, and results written to the run's own directory. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "drive/sc_drive_coll.h"
#include "drive/sc_drive_coll_choices.h"
#include "drive/sc_drive_coll_run.h"
#include "comm/sc_comm_ops.h"
#include "drive/sc_drive_baseline.h"
#include "drive/sc_drive_end.h"
#include "session/sc_session.h"
#include "report/sc_report.h"
#include "judge/sc_straggler_verdict.h"
#include "judge/sc_verdict.h"
#include "judge/sc_steady.h"
#include "report/sc_verdict_render.h"
#include "engine/sc_engine.h"
#include "engine/sc_looks.h"
#include "engine/sc_sweep.h"
#include "report/sc_coll_report.h"
#include "report/sc_pairs_report.h"
#include "sc_config.h"
#include "util/sc_size.h"
#include "report/sc_json_out.h"
#include "util/sc_files.h"
#include "session/sc_results.h"
#include "drive/sc_drive_preflight.h"
#include "report/sc_prometheus.h"
#include "report/sc_nccl_tests.h"
#include "util/sc_defaults.h"

uint64_t sc_coll_next_size(const sc_coll_opts_t *o, uint64_t size)
{
    if (o->step_set)
        return size + o->step_bytes;
    uint64_t next = (uint64_t)((double)size * o->factor);
    return next > size ? next : size + 1;
}

static double coll__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wrong results on the host path were computed by the MPI library itself (scalecheck's check
 * computes the expected values on its own): one finding per collective, type and operation that
 * came out wrong, naming the library, for a report upstream (MPICH 4.0's uint8 MIN/MAX, say). */
static void coll__wrong_source(sc_coll_run_t *run, const sc_case_t *c)
{
    if (strcmp(sc_comm_name(run->ses.world), "mpi") != 0)
        return;
    char what[256];
    snprintf(what, sizeof(what), "%s %s%s%s: wrong results computed by the MPI library (%s)",
             c->coll->name, sc_dtype_name(c->dtype), c->coll->has_op ? " " : "",
             c->coll->has_op ? sc_redop_name(c->op) : "", run->rte->mpi_version);
    for (size_t i = 0; i < run->doc.findings.n; i++)
        if (strcmp(run->doc.findings.items[i].what, what) == 0)
            return;
    sc_finding_t *f = SC_LIST_PUSH(&run->doc.findings);
    if (f == NULL)
        return;
    snprintf(f->severity, sizeof(f->severity), "error");
    snprintf(f->what, sizeof(f->what), "%s", what);
    f->declared = f->detected = SC_ABSENT;
    run->doc.has_findings = true;
}

static void coll__libraries(const sc_coll_run_t *run, sc_kvs_t *out)
{
    sc_kvs_text(out, "mpi", run->rte->mpi_version);
    sc_kvs_text(out, "backend", sc_comm_version(run->ses.world));
    sc_kvs_text(out, "libyaml", yaml_get_version_string());
    sc_kvs_text(out, "jansson", sc_json_library_version());
}

/* The document's header: what ran, where, with what. */
static void coll__document(sc_coll_run_t *run, int argc, char **argv)
{
    sc_result_t *d = &run->doc;
    sc_drive_doc_header(d, &run->ses, argc, argv);
    coll__libraries(run, &d->libraries);
    sc_drive_coll_options(&run->opts, &d->options);
}

#define COLL__JOURNAL "results.jsonl"

/* A journal goes to the kernel at most this often: a system call a row was a third of a 10 000
 * case sweep of small messages. A row is kept within this much of its case's end however the
 * run ends: a hang, a signal or a fault flushes it first (sc_drive_ending_t.journal); a kill -9
 * loses at most these last rows. */
#define COLL__FLUSH_S 0.1

/* The rows from first on appended to the journal (rank 0): a finished case costs a line, and a
 * later fault keeps every row before it (result.json names the journal until the run ends;
 * sc_json_load_result reads it). */
static sc_status_t coll__journal_rows(sc_coll_run_t *run, size_t first, sc_err_t *err)
{
    if (run->journal == NULL)
        return SC_OK;
    double t0 = coll__now();
    for (size_t i = first; i < run->doc.cases.n; i++)
        sc_json_write_row(run->journal, &run->doc.cases.items[i], sc_case_row_fields);
    sc_status_t status = SC_OK;
    if ((t0 - run->flushed >= COLL__FLUSH_S && fflush(run->journal) != 0) || ferror(run->journal)) {
        char path[PATH_MAX];
        sc_results_path(&run->ses.res, COLL__JOURNAL, path, sizeof(path));
        status = sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    run->flushed = t0 - run->flushed >= COLL__FLUSH_S ? t0 : run->flushed;
    run->write_s += coll__now() - t0;
    return status;
}

/* rank 0: the journal opened, and result.json written once while running: the header, and
 * where the rows will be. */
static sc_status_t coll__journal_open(sc_coll_run_t *run, sc_err_t *err)
{
    if (run->rte->rank != 0 || run->ses.res.dir[0] == '\0')
        return SC_OK;
    char path[PATH_MAX];
    sc_results_path(&run->ses.res, COLL__JOURNAL, path, sizeof(path));
    if ((run->journal = fopen(path, "we")) == NULL)
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    snprintf(run->doc.journal, sizeof(run->doc.journal), "%s", COLL__JOURNAL);
    double t0 = coll__now();
    sc_status_t status = sc_drive_save_doc(&run->ses, &run->doc, "running", err);
    run->write_s += coll__now() - t0;
    return status;
}

/* The rows as CSV, in the run directory and at --csv. */
static sc_status_t coll__save_csv(sc_coll_run_t *run, const sc_result_t *doc, sc_err_t *err)
{
    const sc_case_rows_t *rows = &doc->cases;
    char path[PATH_MAX];
    sc_status_t status =
        sc_csv_write_records(sc_results_path(&run->ses.res, "result.csv", path, sizeof(path)),
                             rows->items, rows->n, sizeof(*rows->items), sc_case_row_fields, err);
    if (status == SC_OK && run->opts.common.csv_path[0] != '\0')
        status = sc_csv_write_records(run->opts.common.csv_path, rows->items, rows->n,
                                      sizeof(*rows->items), sc_case_row_fields, err);
    return status;
}

static void coll__print_header(sc_coll_run_t *run)
{
    const sc_rte_t *rte = run->rte;
    const sc_coll_opts_t *o = &run->opts;
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
        &run->ses.res, "# scalecheck %s coll | backend %s (%s) | %d rank%s on %d host%s\n",
        SC_VERSION, sc_comm_name(run->ses.world), sc_comm_version(run->ses.world), rte->size,
        rte->size == 1 ? "" : "s", rte->nhosts, rte->nhosts == 1 ? "" : "s");
    sc_results_printf(
        &run->ses.res, "# sizes %s..%s B (%s)  iters %s  warm-up %d  check %d  timeout %g s\n",
        sc_size_format(o->min_bytes, lo, sizeof(lo)), sc_size_format(o->max_bytes, hi, sizeof(hi)),
        step, iters, o->eng.warmup, o->eng.check_iters, o->common.timeout_s);
    sc_results_printf(&run->ses.res,
                      "# time: the %s of each size's iterations (--stat), rank times combined by "
                      "%s (-a %d); nccl-tests: the mean, by avg (-a 1)\n",
                      sc_stat_name(o->eng.statistic), sc_combine_name(o->eng.combine),
                      (int)o->eng.combine);
    sc_results_printf(&run->ses.res, "# libyaml %s  jansson %s  results %s\n",
                      yaml_get_version_string(), sc_json_library_version(), run->ses.res.dir);
    if (run->ses.note[0] != '\0')
        sc_results_printf(&run->ses.res, "# %s\n", run->ses.note);
    for (int r = 0; r < rte->size && r < 64; r++)
        sc_results_printf(&run->ses.res, "#  rank %3d on host %s\n", r, rte->hosts[r]);
}

/* What nccl-tests' header and JSON say of this run (rank 0). */
static void coll__nt_config(sc_coll_run_t *run)
{
    sc_drive_coll_nt_config(&run->opts, run->doc.rank_info, run->ses.res.dir, &run->nt);
}

/* -J: nccl-tests' JSON of doc's rows, named after the first collective's program. */
static sc_status_t coll__write_nccl_json(const sc_coll_run_t *run, const sc_result_t *doc,
                                         sc_err_t *err)
{
    if (run->rte->rank != 0 || run->opts.nccl_json_path == NULL)
        return SC_OK;
    const sc_coll_t *first = NULL;
    for (const sc_coll_t *const *cp = sc_coll_list(); *cp != NULL && first == NULL; cp++)
        if (run->opts.colls & 1u << (cp - sc_coll_list()))
            first = *cp;
    return sc_nt_write_json(run->opts.nccl_json_path, &run->nt, first->nccl_tests, run->argc,
                            run->argv, run->rte, run->doc.rank_info, doc->cases.items, doc->cases.n,
                            err);
}

/* coll's own files (sc_drive_ending_t.also, every ending): the rows as CSV, and -J, from the
 * document as it ended (the sizes that finished). */
static sc_status_t coll__own_files(void *ctx, const sc_result_t *doc, sc_err_t *err)
{
    sc_coll_run_t *run = ctx;
    sc_status_t status = coll__save_csv(run, doc, err);
    if (status == SC_OK)
        status = sc_traffic_save_csv(&run->ses.res, &doc->traffic, err);
    return status == SC_OK ? coll__write_nccl_json(run, doc, err) : status;
}

/* With a topology: the model's expectation for this case, and its check. */
static void coll__expect(sc_coll_run_t *run, const sc_case_t *c, sc_case_row_t *row,
                         double measure_s)
{
    const sc_rte_t *rte = run->rte;
    char name[160], size[32];
    snprintf(name, sizeof(name), "%s %s %s %s B %s", c->coll->name, sc_dtype_name(c->dtype),
             c->coll->has_op ? sc_redop_name(c->op) : "", sc_size_format(c->size_bytes, size, 32),
             c->in_place ? "in-place" : "out-of-place");
    size_t before = run->doc.checks.n;
    sc_verdict_case(&run->topo, c->coll, rte->size / rte->nhosts, rte->nhosts, name, row,
                    &run->doc.checks);
    if (run->doc.checks.n > before) /* JUnit's time for it: the case's looks, measured */
        run->doc.checks.items[run->doc.checks.n - 1].measure_s = measure_s;
}

/* A case's looks: the case, the best look so far, their count and the slowest one's median. */
typedef struct {
    sc_coll_run_t *run;
    sc_case_t *c;
    sc_case_result_t *best;
    int looks;
    double slowest_us;
} coll__looks_t;

/* rank 0: whether the best look is still slower than the model lets it PASS */
static void coll__off(void *ctx, unsigned char *again)
{
    coll__looks_t *l = ctx;
    const sc_rte_t *rte = l->run->rte;
    sc_case_row_t row;
    sc_case_row_fill(l->c, l->best, l->run->ses.world->size, &row);
    snprintf(row.nccl_asked, sizeof(row.nccl_asked), "%s", l->run->asked);
    again[0] =
        sc_verdict_case_slow(&l->run->topo, l->c->coll, rte->size / rte->nhosts, rte->nhosts, &row);
}

/* Another look: the faster kept, data errors of any look kept, the slowest remembered. */
static sc_status_t coll__again(void *ctx, int i, sc_err_t *err)
{
    (void)i;
    coll__looks_t *l = ctx;
    sc_case_result_t next;
    sc_status_t status = sc_engine_run_case(l->run->eng, l->c, &next, err);
    if (status != SC_OK)
        return status;
    l->looks++;
    if (next.time_us.median > l->slowest_us)
        l->slowest_us = next.time_us.median;
    uint64_t wrong = l->best->wrong > next.wrong ? l->best->wrong : next.wrong;
    if (next.time_stat_us < l->best->time_stat_us)
        *l->best = next;
    l->best->wrong = wrong;
    return SC_OK;
}

/* With a topology, a case slower than the model lets it PASS is measured again, up to --looks
 * times in all, and the faster look kept (sc_looks_run: rank 0 decides, every rank learns it by
 * a watched broadcast). The slowest look's median is kept too: the spread between looks is a
 * steadiness check. */
static sc_status_t coll__looks(sc_coll_run_t *run, sc_case_t *c, sc_case_result_t *best, int *looks,
                               double *slowest_us, sc_err_t *err)
{
    coll__looks_t l = {run, c, best, 1, best->time_us.median};
    sc_looks_t spec = {1,
                       run->opts.topology != NULL ? run->opts.looks : 1,
                       "rank 0's choice of another look",
                       coll__off,
                       coll__again,
                       &l};
    sc_status_t status = sc_looks_run(&spec, run->ses.wd, run->rte, run->rte->world, err);
    *looks = l.looks;
    *slowest_us = l.slowest_us;
    return status;
}

/* Runs one size out of place and in place; rank 0 prints and records the row. */
static sc_status_t coll__run_size(sc_coll_run_t *run, sc_case_t *c, sc_err_t *err)
{
    sc_case_result_t results[2];
    bool ran[2] = {false, false};
    for (int ip = 0; ip < 2; ip++) {
        c->in_place = ip == 1;
        if (!sc_engine_supports(run->eng, c))
            continue; /* e.g. NCCL has no in-place alltoall: the row says n/a */
        int looks;
        double slowest_us, started = coll__now();
        sc_status_t status = sc_engine_run_case(run->eng, c, &results[ip], err);
        if (status == SC_OK)
            status = coll__looks(run, c, &results[ip], &looks, &slowest_us, err);
        if (status != SC_OK)
            return status;
        ran[ip] = true;
        run->wrong_total += results[ip].wrong;
        if (results[ip].wrong > 0 && run->rte->rank == 0)
            coll__wrong_source(run, c);
        run->busbw_sum += results[ip].busbw_GBps;
        run->busbw_rows++;
        run->coll_wrong += results[ip].wrong;
        run->coll_busbw_sum += results[ip].busbw_GBps;
        run->coll_busbw_rows++;
        size_t first = run->doc.cases.n;
        sc_case_row_t *row = run->rte->rank == 0 ? SC_LIST_PUSH(&run->doc.cases) : NULL;
        if (row != NULL) {
            sc_case_row_fill(c, &results[ip], run->ses.world->size, row);
            snprintf(row->nccl_asked, sizeof(row->nccl_asked), "%s", run->asked);
            row->looks = looks;
            row->slowest_look_us = looks > 1 ? slowest_us : SC_ABSENT;
            row->cycle = run->cycle;
            if (run->opts.topology != NULL) /* held to the topology */
                coll__expect(run, c, row, coll__now() - started);
        }
        status = coll__journal_rows(run, first, err);
        if (status != SC_OK)
            return status;
    }
    if (run->rte->rank == 0 && run->opts.nccl_tests_output)
        sc_nt_row(&run->ses.res, &run->nt, c, ran[0] ? &results[0] : NULL,
                  ran[1] ? &results[1] : NULL);
    else if (run->rte->rank == 0)
        sc_coll_report_table_row(&run->ses.res, c, ran[0] ? &results[0] : NULL,
                                 ran[1] ? &results[1] : NULL, run->opts.eng.iters == 0);
    fflush(stdout);
    return SC_OK;
}

/* -N 0 runs until stopped: result.json and its journal keep the latest rows only (the journal
 * written anew from them, once every SC_DEFAULT_FOREVER_ROWS / 2 rows). */
static sc_status_t coll__forget_old_rows(sc_coll_run_t *run, sc_err_t *err)
{
    sc_case_rows_t *rows = &run->doc.cases;
    if (run->opts.cycles != 0 || rows->n <= SC_DEFAULT_FOREVER_ROWS)
        return SC_OK;
    size_t drop = rows->n - SC_DEFAULT_FOREVER_ROWS / 2;
    memmove(rows->items, rows->items + drop, (rows->n - drop) * sizeof(*rows->items));
    rows->n -= drop;
    if (run->journal == NULL)
        return SC_OK;
    char path[PATH_MAX];
    sc_results_path(&run->ses.res, COLL__JOURNAL, path, sizeof(path));
    run->journal = freopen(path, "we", run->journal); /* NULL: it was closed */
    if (run->journal == NULL) {
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    return coll__journal_rows(run, 0, err);
}

/* Every size of one case, -N times (0: until stopped), as nccl-tests repeats them. */
static sc_status_t coll__sweep_one(sc_coll_run_t *run, const sc_coll_t *coll, sc_dtype_t dtype,
                                   sc_redop_t op, int root, sc_err_t *err)
{
    const sc_coll_opts_t *o = &run->opts;
    for (run->cycle = 1; o->cycles == 0 || run->cycle <= o->cycles; run->cycle++) {
        for (uint64_t size = o->min_bytes; size <= o->max_bytes;
             size = sc_coll_next_size(o, size)) {
            sc_case_t c = {.coll = coll, .dtype = dtype, .op = op, .root = root};
            if (!sc_engine_shape_case(run->eng, &c, size))
                continue; /* too small for one element per rank */
            sc_status_t status = coll__run_size(run, &c, err);
            if (status == SC_OK && run->rte->rank == 0)
                status = coll__forget_old_rows(run, err);
            if (status != SC_OK)
                return status;
        }
    }
    return SC_OK;
}

/* The roots of one case: -r's, or every rank in turn (-r all) for a collective with a root. */
static sc_status_t coll__sweep_roots(sc_coll_run_t *run, const sc_coll_t *coll, sc_dtype_t dtype,
                                     sc_redop_t op, sc_err_t *err)
{
    const sc_coll_opts_t *o = &run->opts;
    bool every = o->all_roots && coll->has_root;
    int first = every ? 0 : o->root;
    int last = every ? run->rte->size - 1 : first;
    sc_status_t status = SC_OK;
    for (int root = first; root <= last && status == SC_OK; root++)
        status = coll__sweep_one(run, coll, dtype, op, root, err);
    return status;
}

/* A collective's table starts: nccl-tests' header per program, or scalecheck's title. */
static void coll__collective_begin(sc_coll_run_t *run, const sc_coll_t *coll)
{
    run->coll_wrong = 0;
    run->coll_busbw_sum = 0;
    run->coll_busbw_rows = 0;
    if (run->rte->rank != 0)
        return;
    if (run->opts.nccl_tests_output) {
        sc_nt_header(&run->ses.res, &run->nt, coll->nccl_tests, run->rte, run->doc.rank_info);
        return;
    }
    sc_results_printf(&run->ses.res, "#\n# collective %s\n", coll->name);
    sc_coll_report_table_header(&run->ses.res, run->opts.eng.iters == 0);
}

/* ... and ends: its own footer (one per program in nccl-tests; several collectives here). */
static void coll__collective_end(sc_coll_run_t *run, const sc_coll_t *coll)
{
    if (run->rte->rank != 0)
        return;
    double avg = run->coll_busbw_rows ? run->coll_busbw_sum / (double)run->coll_busbw_rows : 0;
    if (run->opts.nccl_tests_output)
        sc_nt_footer(&run->ses.res, coll->nccl_tests, run->coll_wrong, avg, run->opts.min_avg_busbw,
                     run->opts.memory_report ? run->need_bytes : 0);
    else if (!run->opts.all_colls && (run->opts.colls & (run->opts.colls - 1)) == 0)
        return; /* one collective: the run's summary is its footer */
    else
        sc_results_printf(&run->ses.res,
                          "# %s: Out of bounds values : %" PRIu64 " %s, Avg bus bandwidth : %g\n",
                          coll->name, run->coll_wrong, run->coll_wrong ? "FAILED" : "OK", avg);
}

/* The buffers the largest size needs on this rank, over the collectives of the run. */
static uint64_t coll__largest_need(const sc_coll_run_t *run)
{
    const sc_coll_opts_t *o = &run->opts;
    uint64_t largest = 0, size = o->min_bytes; /* to the last size the sweep reaches */
    if (o->step_set && o->step_bytes > 0 && o->max_bytes > size)
        size += (o->max_bytes - size) / o->step_bytes * o->step_bytes;
    while (!o->step_set && size < o->max_bytes && sc_coll_next_size(o, size) <= o->max_bytes)
        size = sc_coll_next_size(o, size);
    for (const sc_coll_t *const *cp = sc_coll_list(); *cp != NULL; cp++) {
        sc_case_t c = {.coll = *cp, .dtype = SC_DTYPE_int8, .root = o->root};
        if ((o->colls & 1u << (cp - sc_coll_list())) && sc_engine_shape_case(run->eng, &c, size)) {
            uint64_t need = sc_engine_case_bytes(run->eng, &c);
            largest = need > largest ? need : largest;
        }
    }
    return largest;
}

sc_status_t sc_coll_sweep_colls(sc_coll_run_t *run, sc_err_t *err)
{
    const sc_coll_opts_t *o = &run->opts;
    for (const sc_coll_t *const *cp = sc_coll_list(); *cp != NULL; cp++) {
        const sc_coll_t *coll = *cp;
        if (!(o->colls & 1u << (cp - sc_coll_list())))
            continue;
        coll__collective_begin(run, coll);
        for (int d = 0; d < SC_DTYPE_COUNT; d++) {
            if (!(o->types & 1u << d))
                continue;
            if (!sc_comm_supports(run->ses.world, coll->id, (sc_dtype_t)d, false))
                continue; /* -d all: only the types this backend has (checked for -d X) */
            for (int op = 0; op < SC_REDOP_COUNT; op++) {
                bool wanted = coll->has_op ? (o->ops & 1u << op) != 0 : op == 0;
                if (!wanted)
                    continue;
                sc_status_t status =
                    coll__sweep_roots(run, coll, (sc_dtype_t)d, (sc_redop_t)op, err);
                if (status != SC_OK)
                    return status;
            }
        }
        coll__collective_end(run, coll);
    }
    return SC_OK;
}

/* A selection that measured nothing (every size too small to give each rank an element) is
 * not a pass: it is said, exit 2, nothing left on disk. */
sc_status_t sc_coll_measured_some(sc_coll_run_t *run, sc_err_t *err)
{
    const sc_coll_opts_t *o = &run->opts;
    if (run->busbw_rows == 0) {
        char lo[32], hi[32];
        return sc_err_set(err, SC_ERR_USAGE,
                          "-b/-e: nothing measured: no size from %s to %s B gives the selected "
                          "collectives and types an element per rank on %d ranks",
                          sc_size_format(o->min_bytes, lo, sizeof(lo)),
                          sc_size_format(o->max_bytes, hi, sizeof(hi)), run->rte->size);
    }
    return SC_OK;
}

static sc_status_t coll__sweep(sc_coll_run_t *run, sc_err_t *err)
{
    sc_status_t status = sc_coll_sweep_colls(run, err);
    return status == SC_OK ? sc_coll_measured_some(run, err) : status;
}

/* What writing the results cost, beside the run (bench/fleet.py reads it: issue 31's goal is
 * under 2 % of the wall time at 10 000 cases): the rows (journal, result.json, CSV), which grow
 * with the run, and the report's plots and pages, about the same whatever the run's length. */
static void coll__print_write_share(sc_coll_run_t *run, double run_s)
{
    if (run->opts.nccl_tests_output || !(run_s > 0))
        return;
    double rows_s = run->write_s - run->report_s;
    sc_results_printf(
        &run->ses.res,
        "# results written in %.3f s (%.2f %% of the run's %.1f s, %zu rows): the rows "
        "%.3f s (%.2f %%), the report and plots %.3f s\n",
        run->write_s, 100.0 * run->write_s / run_s, run_s, run->doc.cases.n, rows_s,
        100.0 * rows_s / run_s, run->report_s);
}

/* The run's average bus bandwidth over its rows, as nccl-tests' footer gives it. */
static double coll__avg_busbw(const sc_coll_run_t *run)
{
    return run->busbw_rows ? run->busbw_sum / (double)run->busbw_rows : 0.0;
}

/* NCCL_TESTS_MIN_BW as a check of the verdict: FAIL (exit 1) below 90 % of it, as nccl-tests
 * fails then; in the table, result.json and JUnit like every other check. */
static void coll__min_bw_check(sc_coll_run_t *run)
{
    if (!(run->opts.min_avg_busbw > 0))
        return;
    double avg = coll__avg_busbw(run);
    sc_band_t band = {.tolerance = 0.1, .fail_tolerance = 0.1};
    sc_verdict_band(&run->doc.checks, "average bus bandwidth over the run (NCCL_TESTS_MIN_BW)",
                    "busbw_GBps", avg, run->opts.min_avg_busbw, &band, true, "NCCL_TESTS_MIN_BW");
    run->doc.judged = true;
}

/* The rank that came last to most cases, named with its lag and what it cost: a check of the
 * verdict, and a line under the table. */
static void coll__straggler_check(sc_coll_run_t *run)
{
    char line[512];
    char crowded[128];
    sc_session_crowded(run->rte, crowded, sizeof(crowded));
    if (!sc_verdict_straggler(&run->doc.cases, run->rte->size, crowded, &run->doc.checks, line,
                              sizeof(line)))
        return;
    run->doc.judged = true;
    sc_results_printf(&run->ses.res, "# straggler: %s\n", line);
}

static void coll__print_summary(sc_coll_run_t *run)
{
    double avg = coll__avg_busbw(run);
    run->doc.wrong_total = run->wrong_total;
    run->doc.avg_busbw_GBps = avg;
    if (run->opts.nccl_tests_output)
        return; /* each collective's footer said it */
    sc_results_printf(&run->ses.res, "# Out of bounds values : %" PRIu64 " %s\n", run->wrong_total,
                      run->wrong_total ? "FAILED" : "OK");
    sc_results_printf(&run->ses.res, "# Avg bus bandwidth    : %g %s\n#\n", avg,
                      sc_nt_min_bw_word(avg, run->opts.min_avg_busbw));
    for (size_t i = 0; i < run->doc.findings.n; i++) /* the MPI library's wrong results */
        if (strstr(run->doc.findings.items[i].what, "computed by the MPI library") != NULL)
            sc_results_printf(&run->ses.res,
                              "# %s: scalecheck computes the expected values "
                              "itself - report it to the library's developers\n",
                              run->doc.findings.items[i].what);
}

/* coll-<collective>, coll-all, or coll-<first>+<second>... (as much as fits). */
static void coll__run_name(const sc_coll_opts_t *o, char *name, size_t len)
{
    size_t used = (size_t)snprintf(name, len, "coll");
    for (const sc_coll_t *const *cp = sc_coll_list(); *cp != NULL && !o->all_colls; cp++)
        if ((o->colls & 1u << (cp - sc_coll_list())) && used + strlen((*cp)->name) + 2 < len)
            used += (size_t)snprintf(name + used, len - used, "%s%s", used == 4 ? "-" : "+",
                                     (*cp)->name);
    if (o->all_colls)
        snprintf(name, len, "coll-all");
    if (o->concurrent != NULL)
        snprintf(name, len, "coll-concurrent");
}

/* --algo: the model prices it (with a topology), and NCCL is told to use it before any
 * communicator exists (the MPI backend chooses its own). */
static sc_status_t coll__algo(sc_coll_run_t *run, sc_err_t *err)
{
    sc_status_t listed =
        sc_coll_choices_parse(run->opts.algo, run->opts.proto, run->choices, &run->nchoices, err);
    if (listed != SC_OK)
        return listed;
    if (run->nchoices > 0 && run->opts.topology != NULL)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--algo/--proto lists: a sweep of NCCL's choices is not held to "
                          "--topology (one --algo is)");
    if (run->opts.algo == NULL || run->nchoices > 0)
        return SC_OK;
    int algo;
    sc_status_t status = sc_topology_algo_choose(
        "--algo", run->opts.algo, run->opts.topology ? &run->topo : NULL, &algo, err);
    if (status == SC_OK && sc_topology_algo_nccl(algo) != NULL)
        setenv("NCCL_ALGO", sc_topology_algo_nccl(algo), 1);
    return status;
}

/* The collectives asked for that the backend does not run: named ones are bad usage; those of
 * --collective all are left out, and rank 0 says which (none left: bad usage too). */
static sc_status_t coll__backend_runs(sc_coll_run_t *run, sc_err_t *err)
{
    sc_comm_t *world = run->ses.world;
    for (const sc_coll_t *const *cp = sc_coll_list(); *cp != NULL; cp++) {
        uint32_t bit = 1u << (cp - sc_coll_list());
        if (!(run->opts.colls & bit) || sc_comm_runs(world, (*cp)->id))
            continue;
        if (!run->opts.all_colls)
            return sc_err_set(err, SC_ERR_USAGE, "--collective: %s is not run by backend %s",
                              (*cp)->name, sc_comm_name(world));
        run->opts.colls &= ~bit;
        if (run->rte->rank == 0)
            sc_results_printf(&run->ses.res, "# %s: not run by backend %s (left out)\n",
                              (*cp)->name, sc_comm_name(world));
    }
    return run->opts.colls != 0
               ? SC_OK
               : sc_err_set(err, SC_ERR_USAGE, "--collective all: backend %s runs no collective",
                            sc_comm_name(world));
}

/* Opens what the run needs: the session (backend, results directory, watchdog, telemetry)
 * and the engine. */
static sc_status_t coll__setup(sc_coll_run_t *run, int argc, char **argv, sc_err_t *err)
{
    const sc_rte_t *rte = run->rte;
    char name[128];
    coll__run_name(&run->opts, name, sizeof(name));
    sc_session_opts_t so = {.common = &run->opts.common,
                            .default_name = name,
                            .register_buffers = run->opts.local_register == 1};
    /* every input and output checked before the session makes a results directory */
    sc_status_t status =
        run->opts.topology ? sc_topology_load(run->opts.topology, &run->topo, err) : SC_OK;
    if (status == SC_OK)
        status = coll__algo(run, err);
    if (status == SC_OK)
        status = sc_coll_concurrent_setup(run, err);
    if (status == SC_OK)
        status = sc_drive_baseline_load(run->opts.baseline, &run->baseline, err);
    if (status == SC_OK)
        status = sc_drive_check_outputs(&run->opts.common, err);
    if (status == SC_OK)
        status = sc_files_check_output("-J", run->opts.nccl_json_path, err);
    if (status == SC_OK)
        status = sc_session_open(&run->ses, rte, &so, err);
    if (status != SC_OK)
        return status;
    run->ending = (sc_drive_ending_t){.command = "coll",
                                      .journal = &run->journal,
                                      .report_s = &run->report_s,
                                      .common = &run->opts.common,
                                      .also = coll__own_files,
                                      .ctx = run};
    sc_session_on_end(&run->ses, sc_drive_end_hook, &run->ending);
    if (rte->rank == 0) {
        sc_result_init(&run->doc, "coll");
        run->doc.judged = run->opts.topology != NULL; /* every case is checked */
        if (run->doc.judged)
            snprintf(run->doc.topology, sizeof(run->doc.topology), "%s", run->topo.name);
    }
    sc_comm_t *world = run->ses.world;
    status = coll__backend_runs(run, err);
    if (status != SC_OK)
        return status;
    for (int d = 0; d < SC_DTYPE_COUNT && !run->opts.all_types; d++)
        if ((run->opts.types & 1u << d) && !sc_comm_supports(world, SC_COLL_allreduce, d, false))
            return sc_err_set(err, SC_ERR_USAGE, "-d: type %s is not supported by backend %s",
                              sc_dtype_name((sc_dtype_t)d), sc_comm_name(world));
    if (run->opts.eng.graph_launches > 0 && !sc_comm_has_graph(world))
        return sc_err_set(err, SC_ERR_USAGE, "-G: CUDA graphs need a GPU backend (backend %s)",
                          sc_comm_name(world));
    if (run->nchoices > 0 && !sc_comm_on_gpu(world))
        return sc_err_set(
            err, SC_ERR_USAGE,
            "--algo/--proto lists: NCCL_ALGO and NCCL_PROTO are NCCL's and RCCL's (backend %s)",
            sc_comm_name(world));
    if (run->opts.local_register == 1 && !sc_comm_on_gpu(world))
        return sc_err_set(
            err, SC_ERR_USAGE,
            "-R 1: registering buffers with the communicator needs NCCL or RCCL (backend %s)",
            sc_comm_name(world));
    status = sc_engine_create(world, rte->world, &run->opts.eng, run->ses.wd, &run->eng, err);
    run->need_bytes = coll__largest_need(run);
    if (status == SC_OK)
        status = sc_comm_check_memory(world, run->need_bytes, "-e", err);
    sc_kvs_t *rank_info = sc_session_rank_info(&run->ses);
    if (rte->rank == 0) {
        coll__document(run, argc, argv);
        run->doc.rank_info = rank_info;
        coll__nt_config(run);
    }
    if (status == SC_OK && rte->rank == 0 && !run->opts.nccl_tests_output)
        coll__print_header(run);
    if (status == SC_OK && rte->nhosts > 1 && !run->opts.common.no_preflight)
        status = sc_drive_preflight_hosts(&run->ses, &run->doc, err);
    if (status == SC_OK)
        status = coll__journal_open(run, err);
    return status;
}

static void coll__teardown(sc_coll_run_t *run)
{
    sc_engine_destroy(run->eng);
    if (run->journal != NULL)
        fclose(run->journal);
    sc_session_close(&run->ses);
    sc_result_free(&run->doc);
    sc_baseline_free(&run->baseline);
}

int sc_drive_coll(const sc_rte_t *rte, const sc_coll_opts_t *opts, int argc, char **argv)
{
    sc_coll_run_t run = {
        .rte = rte, .argc = argc, .argv = argv, .opts = *opts, .started = coll__now()};
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = coll__setup(&run, argc, argv, &err);
    if (status == SC_OK)
        status = run.concurrent     ? sc_coll_sweep_concurrent(&run, run.concurrent, &err)
                 : run.nchoices > 0 ? sc_coll_sweep_choices(&run, &err)
                                    : coll__sweep(&run, &err);
    if (status == SC_OK)
        sc_session_telemetry(&run.ses, &run.doc.health, &run.doc.nhealth);
    if (status == SC_OK && rte->rank == 0) {
        if (run.opts.topology != NULL) {
            sc_verdict_case_claims(&run.topo, run.doc.cases.items, run.doc.cases.n,
                                   rte->size / rte->nhosts, rte->nhosts, &run.doc.checks);
            sc_verdict_steadiness(&run.topo, run.doc.cases.items, run.doc.cases.n, &run.doc.checks);
            sc_verdict_sysfs(run.ses.no_sysfs_host, &run.doc.checks);
        }
        sc_drive_baseline_hold(&run.baseline, run.opts.baseline, &run.doc);
        coll__min_bw_check(&run);
        coll__straggler_check(&run);
        if (run.doc.judged) /* nccl-tests' parsers read stdout: the verdict goes beside it */
            sc_verdict_print(run.opts.nccl_tests_output ? stderr : stdout, run.ses.res.log,
                             &run.doc.checks);
    }
    if (status == SC_OK && rte->rank == 0) {
        if (!run.concurrent)
            coll__print_summary(&run);
        double t0 = coll__now();
        /* every row is in the journal already: result.json copies its lines */
        run.doc.journal_whole = run.journal != NULL && fflush(run.journal) == 0;
        status = sc_drive_complete(&run.ses, &run.doc, &run.ending, &err);
        double t1 = coll__now();
        run.write_s += t1 - t0;
        coll__print_write_share(&run, t1 - run.started);
    }
    if (status != SC_OK && rte->rank == 0 && run.doc.command[0] != '\0')
        sc_drive_save_failed(&run.ses, &run.doc, &err, &run.ending); /* -J: the sizes done */
    /* Every rank leaves with the same exit code, the verdict's (sc_verdict_exit); a rank that
     * saw wrong data says so whatever rank 0's document holds. */
    int failed = rte->rank == 0 ? sc_verdict_exit(&run.doc) : 0;
    int code = sc_session_finish(&run.ses, rte, "coll", status, &err, failed);
    coll__teardown(&run);
    return code == 0 && run.wrong_total > 0 ? 1 : code;
}
