/* sc_drive_judge.c - `scalecheck judge --topology T [--baseline B] FILE...`: results other tools
 * wrote (nccl-tests text or -J JSON, OSU micro-benchmarks) held to the topology's model and to
 * a baseline like scalecheck's own runs: the same verdict table, exit code (1 on FAIL),
 * result.json, summary.json, junit.xml and report.html in a results directory. Every file is read
 * before anything is written: a bad file is exit 2 with nothing on disk. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drive/sc_drive_judge.h"
#include "drive/sc_drive_baseline.h"
#include "drive/sc_drive_end.h"
#include "coll/sc_coll.h"
#include "ingest/sc_ingest.h"
#include "judge/sc_digest.h"
#include "record/sc_shown.h"
#include "judge/sc_verdict.h"
#include "report/sc_json_async.h"
#include "report/sc_json_in.h"
#include "report/sc_json_out.h"
#include "report/sc_report.h"
#include "report/sc_verdict_render.h"
#include "sc_config.h"
#include "session/sc_results.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"
#include "util/sc_numtext.h"
#include "util/sc_size.h"

/* The first read of a text file checks every row and learns what its header says; the rows are
 * read again to be judged (judge__stream_file), never held. */
static bool judge__count(void *ctx, sc_case_row_t *row)
{
    (void)ctx, (void)row;
    return true;
}

/* One file read and completed from the flags: its collective and its ranks. */
static sc_status_t judge__read(const sc_drive_judge_opts_t *o, const char *path, sc_foreign_t *f,
                               sc_err_t *err)
{
    memset(f, 0, sizeof(*f));
    sc_ingest_kind_t kind;
    sc_status_t status = sc_ingest_kind(path, &kind, err);
    if (status == SC_OK)
        status = kind == SC_INGEST_NCCL_JSON
                     ? sc_json_load_nccl_tests(path, f, err)
                     : sc_ingest_text_visit(path, kind, f, judge__count, NULL, err);
    if (status != SC_OK)
        return status;
    const sc_coll_t *named = NULL, *said = NULL;
    if (o->collective != NULL &&
        (status = sc_coll_find(o->collective, "--collective", &named, err)) != SC_OK)
        return status;
    if (named != NULL && f->collective[0] != '\0' &&
        sc_coll_find(f->collective, "--collective", &said, err) == SC_OK && said != named)
        return sc_err_set(err, SC_ERR_USAGE, "--collective %s: %s says it measured %s", named->name,
                          path, said->name);
    if (f->collective[0] == '\0' && named != NULL)
        snprintf(f->collective, sizeof(f->collective), "%s", named->name);
    if (o->gpus > 0) /* what the user says wins over what a file lists (a list cut short) */
        f->gpus = o->gpus;
    if (o->nodes > 0)
        f->nodes = o->nodes;
    return sc_ingest_complete(f, err);
}

/* ---- the rows judged as they are read, while result.json is written: each held to the model,
 * written into the document, its checks into a file the document takes them from after the
 * rows, and offered to what the reports show; nothing grows with the rows but the files (a
 * fleet's million rows are never held) ---- */
typedef struct {
    const sc_drive_judge_opts_t *o;
    const sc_topology_t *t;     /* NULL: no model, the rows are kept as they are */
    const sc_topology_t *t_mpi; /* the same hardware under its MPI library (OSU's files) */
    const sc_foreign_t *files, *f;
    const sc_baseline_t *baseline;
    const sc_coll_t *coll;
    const char *base; /* the file's name, in each check's */
    sc_result_t *doc;
    sc_shown_t shown;
    sc_digest_t digest;
    sc_list_out_t *rows;
    FILE *checks;
    sc_json_async_t *checks_out; /* writes them, on a thread of its own */
    sc_checks_t made;            /* one row's checks */
    sc_err_t *err; /* the rows' own failure: the writer's "cannot write" would hide it */
    sc_status_t status;
} judge__stream_t;

static bool judge__checks_out(judge__stream_t *s, const sc_check_t *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sc_json_async_put(s->checks_out, &c[i]);
        if (!sc_shown_check(&s->shown, s->doc, &c[i]))
            return false;
    }
    return true;
}

/* text appended at *at, cut short before end (which stays the terminator's). */
static void judge__cat(char **at, const char *end, const char *text)
{
    size_t n = strnlen(text, (size_t)(end - *at));
    memcpy(*at, text, n);
    *at += n;
    **at = '\0';
}

/* "FILE: allreduce float 1K B out-of-place, 8 GPUs on 1 node": a row's checks' name, built
 * without printf (a million rows). */
static void judge__check_name(const judge__stream_t *s, const sc_case_row_t *row, char *name,
                              size_t len)
{
    const sc_foreign_t *f = s->f;
    char size[32], gpus[24], nodes[24], *at = name, *end = name + len - 1;
    sc_size_format(row->size_bytes, size, sizeof(size));
    sc_numtext_int(f->gpus, gpus);
    sc_numtext_int(f->nodes, nodes);
    const char *parts[] = {s->base,
                           ": ",
                           f->collective,
                           " ",
                           row->dtype,
                           " ",
                           size,
                           " B ",
                           row->in_place ? "in-place" : "out-of-place",
                           ", ",
                           gpus,
                           " GPUs on ",
                           nodes,
                           f->nodes == 1 ? " node" : " nodes"};
    *at = '\0';
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        judge__cat(&at, end, parts[i]);
}

/* What a file's rows are held to: OSU measures the MPI library, whatever the system's collective
 * library is - its algorithms and protocols, over the same hardware. */
static const sc_topology_t *judge__model(const judge__stream_t *s)
{
    return s->t != NULL && strcmp(s->f->tool, "osu") == 0 ? s->t_mpi : s->t;
}

static bool judge__row(void *ctx, sc_case_row_t *row)
{
    judge__stream_t *s = ctx;
    const sc_foreign_t *f = s->f;
    sc_ingest_complete_row(f, s->coll, row);
    s->made.n = 0;
    if (s->t != NULL) {
        char name[256];
        judge__check_name(s, row, name, sizeof(name));
        sc_verdict_case(judge__model(s), s->coll, f->gpus / f->nodes, f->nodes, name, row,
                        &s->made);
        if (!sc_digest_row(&s->digest, row))
            return false;
    }
    bool notable = false;
    for (size_t i = 0; i < s->made.n; i++)
        notable |= s->made.items[i].level != SC_LEVEL_PASS;
    sc_json_list_put(s->rows, row, sc_case_row_fields);
    return judge__checks_out(s, s->made.items, s->made.n) &&
           sc_shown_row(&s->shown, s->doc, row, notable);
}

/* One file's rows through judge__row (read again: the first read only checked it), then its
 * whole-run checks (claims, steadiness) on the digest. */
static sc_status_t judge__stream_file(judge__stream_t *s, sc_err_t *err)
{
    const sc_foreign_t *f = s->f;
    if (sc_coll_find(f->collective, "--collective", &s->coll, err) != SC_OK)
        return err->status; /* sc_ingest_complete found it before */
    const char *base = strrchr(f->path, '/');
    s->base = base ? base + 1 : f->path;
    if (s->t != NULL && !sc_digest_init(&s->digest, judge__model(s), f->gpus / f->nodes, f->nodes))
        return sc_err_set(err, SC_ERR_NOMEM, "no memory");
    sc_status_t status = SC_OK;
    if (f->rows.n > 0) { /* nccl-tests -J: read whole (one run's sizes) */
        for (size_t i = 0; status == SC_OK && i < f->rows.n; i++) {
            sc_case_row_t row = f->rows.items[i];
            if (!judge__row(s, &row))
                status = sc_err_set(err, SC_ERR_NOMEM, "%s: no memory", f->path);
        }
    } else {
        sc_ingest_kind_t kind;
        sc_foreign_t again = {.nrows = 0};
        snprintf(again.dtype, sizeof(again.dtype), "%s", f->dtype);
        status = sc_ingest_kind(f->path, &kind, err);
        if (status == SC_OK)
            status = sc_ingest_text_visit(f->path, kind, &again, judge__row, s, err);
        if (status == SC_OK && again.nrows != f->nrows)
            status =
                sc_err_set(err, SC_ERR_INPUT, "%s: changed while it was read (%zu rows, then %zu)",
                           f->path, f->nrows, again.nrows);
    }
    if (s->t != NULL) {
        s->made.n = 0;
        sc_digest_finish(&s->digest, &s->made);
        if (status == SC_OK && !judge__checks_out(s, s->made.items, s->made.n))
            status = sc_err_set(err, SC_ERR_NOMEM, "no memory");
    }
    return status;
}

/* The checks file written to its end: the document reads it next. */
static sc_status_t judge__close_checks(judge__stream_t *s)
{
    sc_json_async_close(s->checks_out);
    s->checks_out = NULL;
    bool bad = fflush(s->checks) != 0 || ferror(s->checks);
    int saved = errno;
    fclose(s->checks);
    s->checks = NULL;
    if (bad && s->status == SC_OK)
        s->status = sc_err_set(s->err, SC_ERR_IO, "cannot write %s: %s", s->doc->checks_file,
                               strerror(saved));
    return s->status;
}

/* result.json's rows (sc_list_source_t): every file's rows judged and written, then the
 * baseline's checks (a baseline keeps every row in the document: it reads them there). */
static bool judge__rows_write(sc_list_out_t *out, void *ctx)
{
    judge__stream_t *s = ctx;
    s->rows = out;
    for (int i = 0; s->status == SC_OK && i < s->o->nfiles; i++) {
        s->f = &s->files[i];
        s->status = judge__stream_file(s, s->err);
    }
    sc_shown_finish(&s->shown, s->doc);
    if (s->status == SC_OK && s->o->baseline != NULL) {
        size_t before = s->doc->checks.n;
        sc_drive_baseline_hold(s->baseline, s->o->baseline, s->doc);
        for (size_t i = before; i < s->doc->checks.n; i++)
            sc_json_async_put(s->checks_out, &s->doc->checks.items[i]);
    }
    return judge__close_checks(s) == SC_OK;
}

static void judge__header(const sc_topology_t *t, const sc_foreign_t *files, int n, int argc,
                          char **argv, sc_result_t *doc)
{
    sc_result_init(doc, "judge");
    snprintf(doc->version, sizeof(doc->version), "%s", SC_VERSION);
    snprintf(doc->state, sizeof(doc->state), "complete");
    snprintf(doc->topology, sizeof(doc->topology), "%s", t ? t->name : "");
    snprintf(doc->backend, sizeof(doc->backend), "%s", files[0].tool);
    doc->ranks = files[0].gpus;
    doc->nhosts = files[0].nodes;
    doc->judged = true;
    doc->argv = calloc((size_t)argc + 1, sizeof(char *));
    for (int i = 0; doc->argv != NULL && i < argc; i++)
        doc->argv[i] = strdup(argv[i]);
    for (int i = 0; i < n; i++) {
        sc_kvs_text(&doc->options, "file", files[i].path);
        sc_kvs_text(&doc->options, "read_as", files[i].read_as);
    }
}

/* result.json written as the rows are judged (judge__rows_write), --json a copy of it. */
static sc_status_t judge__result(judge__stream_t *s, const sc_results_t *res, sc_err_t *err)
{
    sc_result_t *doc = s->doc;
    sc_list_source_t rows = {judge__rows_write, s};
    sc_results_path(res, ".judge-checks.json", doc->checks_file, sizeof(doc->checks_file));
    s->checks = fopen(doc->checks_file, "we");
    if (s->checks == NULL)
        return sc_err_set(s->err, SC_ERR_IO, "cannot write %s: %s", doc->checks_file,
                          strerror(errno));
    if ((s->checks_out = sc_json_async_open(s->checks, sizeof(sc_check_t), sc_check_fields)) ==
        NULL) {
        fclose(s->checks);
        s->checks = NULL;
        unlink(doc->checks_file);
        return sc_err_set(s->err, SC_ERR_NOMEM, "no memory for the writer of %s", doc->checks_file);
    }
    /* a baseline holds every row: they are kept (sc_verdict_baseline reads the document's) */
    sc_shown_init(&s->shown, s->o->baseline != NULL ? 0 : SC_DEFAULT_SHOWN);
    doc->cases_source = &rows;
    char path[PATH_MAX];
    sc_results_path(res, "result.json", path, sizeof(path));
    sc_status_t status = sc_json_write_result(path, doc, err);
    if (s->checks != NULL) /* the writer failed before the rows */
        judge__close_checks(s);
    if (s->status != SC_OK) { /* the rows' failure, not the writer's word on it */
        *err = *s->err;
        status = s->status;
    }
    doc->cases_source = NULL;
    unlink(doc->checks_file);
    doc->checks_file[0] = '\0';
    if (status == SC_OK && s->o->common.json_path[0] != '\0')
        status = sc_files_copy(path, s->o->common.json_path, err);
    sc_list_free(&s->made);
    return status;
}

/* The run directory's documents: result.json, the verdict, then what a person reads. */
static sc_status_t judge__write(judge__stream_t *s, sc_results_t *res, sc_err_t *err)
{
    sc_result_t *doc = s->doc;
    snprintf(doc->results_dir, sizeof(doc->results_dir), "%s", res->dir);
    sc_status_t status = judge__result(s, res, err);
    if (status != SC_OK)
        return status;
    sc_verdict_print_result(stdout, res->log, doc);
    status = sc_report_render(res->dir, doc, err);
    if (status == SC_OK)
        printf("judge: %s/report.html (result.json, summary.json, junit.xml)\n", res->dir);
    return status;
}

int sc_drive_judge(const sc_drive_judge_opts_t *opts, int argc, char **argv)
{
    sc_drive_judge_opts_t o = *opts;
    sc_err_t err;
    sc_err_clear(&err);
    sc_topology_t topo = {0};
    sc_status_t status = SC_OK;
    if (o.topology != NULL)
        status = sc_topology_load(o.topology, &topo, &err);
    if (status == SC_OK && o.algo != NULL && o.topology == NULL)
        status = sc_err_set(&err, SC_ERR_USAGE, "--algo: needs --topology (it prices the model)");
    if (status == SC_OK && o.topology != NULL)
        status = sc_topology_algo_choose("--algo", o.algo, &topo, &topo.algo, &err);
    topo.symmetric = o.symmetric;
    sc_baseline_t baseline = {0};
    if (status == SC_OK)
        status = sc_drive_baseline_load(o.baseline, &baseline, &err);
    if (status == SC_OK)
        status = sc_drive_check_outputs(&o.common, &err);
    if (status == SC_OK)
        status = sc_results_check_base(o.common.results_base, &err);
    sc_foreign_t *files = calloc((size_t)o.nfiles + 1, sizeof(*files));
    if (files == NULL && status == SC_OK)
        status = sc_err_set(&err, SC_ERR_NOMEM, "no memory");
    for (int i = 0; status == SC_OK && i < o.nfiles; i++)
        if ((status = judge__read(&o, o.files[i], &files[i], &err)) == SC_OK)
            printf("# %s: read as %s; %zu rows, %s on %d GPUs, %d node%s\n", o.files[i],
                   files[i].read_as, files[i].nrows, files[i].collective, files[i].gpus,
                   files[i].nodes, files[i].nodes == 1 ? "" : "s");
    sc_result_t doc;
    sc_result_init(&doc, "judge");
    sc_results_t res;
    bool opened = false;
    if (status == SC_OK) {
        judge__header(o.topology ? &topo : NULL, files, o.nfiles, argc, argv, &doc);
        status = sc_results_open(&res, o.common.results_base,
                                 o.common.name[0] ? o.common.name : "judge", &err);
        opened = status == SC_OK;
    }
    sc_err_t rows_err;
    sc_err_clear(&rows_err);
    sc_topology_t mpi_topo = topo;
    mpi_topo.library = SC_LIB_mpi;
    judge__stream_t stream = {.o = &o,
                              .t = o.topology ? &topo : NULL,
                              .t_mpi = &mpi_topo,
                              .files = files,
                              .baseline = &baseline,
                              .doc = &doc,
                              .err = &rows_err};
    if (status == SC_OK)
        status = judge__write(&stream, &res, &err);
    if (opened)
        sc_results_close(&res);
    for (int i = 0; files != NULL && i < o.nfiles; i++)
        sc_list_free(&files[i].rows);
    free(files);
    sc_baseline_free(&baseline);
    int failed = status == SC_OK ? sc_verdict_exit(&doc) : 0;
    sc_result_free(&doc);
    if (status != SC_OK) {
        fprintf(stderr, "scalecheck judge: %s\n", err.msg);
        return sc_status_exit_code(status);
    }
    return failed;
}
