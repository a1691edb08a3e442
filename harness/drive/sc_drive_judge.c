/* sc_drive_judge.c - `scalecheck judge --topology T [--baseline B] FILE...`: results other tools
 * wrote (nccl-tests text or -J JSON, OSU micro-benchmarks) held to the topology's model and to
 * a baseline like scalecheck's own runs: the same verdict table, exit code (1 on FAIL),
 * result.json, summary.json, junit.xml and report.html in a results directory. Every file is read
 * before anything is written: a bad file is exit 2 with nothing on disk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive/sc_drive_judge.h"
#include "drive/sc_drive_baseline.h"
#include "coll/sc_coll.h"
#include "ingest/sc_ingest.h"
#include "judge/sc_steady.h"
#include "judge/sc_verdict.h"
#include "report/sc_json_in.h"
#include "report/sc_json_out.h"
#include "report/sc_report.h"
#include "report/sc_verdict_render.h"
#include "sc_config.h"
#include "session/sc_results.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"
#include "util/sc_size.h"

/* One file read and completed from the flags: its collective and its ranks. */
static sc_status_t judge__read(const sc_drive_judge_opts_t *o, const char *path, sc_foreign_t *f,
                               sc_err_t *err)
{
    memset(f, 0, sizeof(*f));
    sc_ingest_kind_t kind;
    sc_status_t status = sc_ingest_kind(path, &kind, err);
    if (status == SC_OK)
        status = kind == SC_INGEST_NCCL_JSON ? sc_json_load_nccl_tests(path, f, err)
                                             : sc_ingest_text(path, kind, f, err);
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
    if (f->gpus == 0) {
        f->gpus = o->gpus;
        f->nodes = o->nodes;
    }
    return sc_ingest_complete(f, err);
}

/* Each row held to the model (with a topology) for its file's ranks and nodes, as `coll` holds its
 * own. */
static void judge__check(const sc_topology_t *t, const sc_foreign_t *f, sc_result_t *doc)
{
    const sc_coll_t *coll = NULL;
    sc_err_t ignored;
    if (sc_coll_find(f->collective, "--collective", &coll, &ignored) != SC_OK)
        return; /* sc_ingest_complete found it before */
    const char *base = strrchr(f->path, '/');
    base = base ? base + 1 : f->path;
    for (size_t i = 0; i < f->rows.n; i++) {
        sc_case_row_t *row = &f->rows.items[i];
        char name[256], size[32];
        snprintf(name, sizeof(name), "%s: %s %s %s B %s, %d GPUs on %d node%s", base, f->collective,
                 row->dtype, sc_size_format(row->size_bytes, size, sizeof(size)),
                 row->in_place ? "in-place" : "out-of-place", f->gpus, f->nodes,
                 f->nodes == 1 ? "" : "s");
        if (t != NULL)
            sc_verdict_case(t, coll, f->gpus / f->nodes, f->nodes, name, row, &doc->checks);
        sc_case_row_t *kept = SC_LIST_PUSH(&doc->cases);
        if (kept != NULL)
            *kept = *row;
    }
    if (t != NULL) {
        sc_verdict_case_claims(t, f->rows.items, f->rows.n, f->gpus / f->nodes, f->nodes,
                               &doc->checks);
        sc_verdict_steadiness(t, f->rows.items, f->rows.n, &doc->checks);
    }
}

static void judge__document(const sc_topology_t *t, const sc_foreign_t *files, int n, int argc,
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
        judge__check(t, &files[i], doc);
    }
}

static sc_status_t judge__write(const sc_drive_judge_opts_t *o, sc_result_t *doc, sc_err_t *err)
{
    sc_results_t res;
    sc_status_t status =
        sc_results_open(&res, o->results_base ? o->results_base : sc_files_results_default(),
                        o->name ? o->name : "judge", err);
    if (status == SC_OK) {
        snprintf(doc->results_dir, sizeof(doc->results_dir), "%s", res.dir);
        sc_verdict_print(stdout, res.log, &doc->checks);
        char path[PATH_MAX];
        status = sc_json_write_result(sc_results_path(&res, "result.json", path, sizeof(path)), doc,
                                      err);
    }
    if (status == SC_OK && o->json_path != NULL)
        status = sc_json_write_result(o->json_path, doc, err);
    if (status == SC_OK)
        status = sc_report_render(res.dir, doc, err);
    if (status == SC_OK)
        printf("judge: %s/report.html (result.json, summary.json, junit.xml)\n", res.dir);
    sc_results_close(&res);
    return status;
}

int sc_drive_judge(const sc_drive_judge_opts_t *opts, int argc, char **argv)
{
    sc_drive_judge_opts_t o = *opts;
    sc_err_t err;
    sc_err_clear(&err);
    sc_topology_t topo;
    sc_status_t status = SC_OK;
    if (o.topology != NULL)
        status = sc_topology_load(o.topology, &topo, &err);
    if (status == SC_OK && o.algo != NULL && o.topology == NULL)
        status = sc_err_set(&err, SC_ERR_USAGE, "--algo: needs --topology (it prices the model)");
    if (status == SC_OK && o.topology != NULL)
        status = sc_topology_algo_choose("--algo", o.algo, &topo, &topo.algo, &err);
    sc_baseline_t baseline = {0};
    if (status == SC_OK)
        status = sc_drive_baseline_load(o.baseline, &baseline, &err);
    if (status == SC_OK)
        status = sc_files_check_output("--json", o.json_path, &err);
    if (status == SC_OK)
        status = sc_results_check_base(o.results_base ? o.results_base : sc_files_results_default(),
                                       &err);
    sc_foreign_t *files = calloc((size_t)o.nfiles + 1, sizeof(*files));
    if (files == NULL && status == SC_OK)
        status = sc_err_set(&err, SC_ERR_NOMEM, "no memory");
    for (int i = 0; status == SC_OK && i < o.nfiles; i++)
        if ((status = judge__read(&o, o.files[i], &files[i], &err)) == SC_OK)
            printf("# %s: read as %s; %zu rows, %s on %d GPUs, %d node%s\n", o.files[i],
                   files[i].read_as, files[i].rows.n, files[i].collective, files[i].gpus,
                   files[i].nodes, files[i].nodes == 1 ? "" : "s");
    sc_result_t doc;
    sc_result_init(&doc, "judge");
    if (status == SC_OK) {
        judge__document(o.topology ? &topo : NULL, files, o.nfiles, argc, argv, &doc);
        sc_drive_baseline_hold(&baseline, o.baseline, &doc);
        status = judge__write(&o, &doc, &err);
    }
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
