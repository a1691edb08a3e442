/* sc_drive_pairs.c - `scalecheck pairs`, driven: the point-to-point matrix between nodes (one rank
 * per node, or every rank with --per rank: the GPU-pair view inside a node). Latency (ping-pong),
 * uni- and bi-directional bandwidth for every pair, scheduled as n-1 rounds of disjoint pairs run
 * at the same time (or one pair at a time with --mode serial; the ranks not measuring then wait
 * without spinning). A pair below the slow line gets up to --looks looks, spaced in time, and
 * keeps its best. Then the localisation: a node whose every pair is slow, or a single slow link;
 * PASS/FAIL per pair; exit 1 when anything failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairs/sc_pairs.h"
#include "report/sc_pairs_report.h"
#include "drive/sc_drive_pairs.h"
#include "drive/sc_drive_pairs_background.h"
#include "judge/sc_verdict.h"
#include "drive/sc_drive_baseline.h"
#include "drive/sc_drive_end.h"
#include "report/sc_verdict_render.h"
#include "session/sc_session.h"
#include "report/sc_report.h"
#include "topology/sc_switches.h"
#include "topology/sc_topology.h"
#include "util/sc_defaults.h"
#include "report/sc_json_out.h"
#include "sc_config.h"
#include "util/sc_files.h"
#include "drive/sc_drive_preflight.h"
#include "report/sc_prometheus.h"

/* What a pair should reach by the topology (0: no topology, the matrix's median), and the
 * switch map's leaf of every rank's host when --strategy switch asks for it (all are checked
 * before anything runs: a host under no leaf is exit 2). */
static sc_status_t pairs__topology(const sc_drive_pairs_opts_t *o, const sc_rte_t *rte,
                                   double *expected, sc_leaves_t *leaves, sc_cut_spec_t *cut,
                                   sc_err_t *err)
{
    sc_topology_t t;
    *expected = 0;
    if (o->topology == NULL)
        return o->m.strategy == SC_PAIRS_switch
                   ? sc_err_set(err, SC_ERR_USAGE,
                                "--strategy switch: needs --topology FILE with a switches: map")
                   : SC_OK;
    sc_status_t status = sc_topology_load(o->topology, &t, err);
    if (status != SC_OK)
        return status;
    /* between nodes: the node's NICs; inside one: a GPU's intra bandwidth */
    *expected = rte->nhosts > 1 && !o->per_rank ? sc_topology_inter_GBps(&t, 1)
                                                : sc_topology_intra_GBps(&t);
    *cut = (sc_cut_spec_t){
        .held = true, .oversubscription = t.oversubscription, .nodes_per_leaf = t.nodes_per_leaf};
    snprintf(cut->topology, sizeof(cut->topology), "%s", t.name);
    /* --background reports per leaf and spine where the topology has a map */
    bool leaves_wanted = o->m.strategy == SC_PAIRS_switch ||
                         ((o->background != NULL || o->bisection) && t.switches_file[0] != '\0');
    if (!leaves_wanted)
        return SC_OK;
    const char **hosts = calloc((size_t)rte->size, sizeof(char *));
    for (int r = 0; hosts != NULL && r < rte->size; r++)
        hosts[r] = rte->hosts[r];
    status = hosts ? sc_switches_leaves(&t, hosts, rte->size, leaves, err)
                   : sc_err_set(err, SC_ERR_NOMEM, "no memory for the switch map");
    free(hosts);
    return status;
}

/* The leaves of the participants (from every rank's): the plan's and the judge's map. */
static void pairs__participant_leaves(const sc_leaves_t *ranks, const sc_comm_t *pc,
                                      sc_drive_pairs_opts_t *o, sc_leaves_t *out)
{
    memset(out, 0, sizeof(*out));
    if (ranks->nleaves == 0 || pc == NULL)
        return;
    out->leaf_of = calloc((size_t)pc->size, sizeof(int));
    out->names = calloc((size_t)ranks->nleaves, sizeof(*out->names));
    if (out->leaf_of == NULL || out->names == NULL) {
        sc_leaves_free(out); /* no map: switch plans as one leaf */
        return;
    }
    out->n = pc->size;
    out->nleaves = ranks->nleaves;
    memcpy(out->names, ranks->names, (size_t)ranks->nleaves * sizeof(*out->names));
    for (int i = 0; i < pc->size; i++)
        out->leaf_of[i] = ranks->leaf_of[pc->world_rank[i]];
    o->m.leaf_of = out->leaf_of;
    o->m.nleaves = out->nleaves;
}

/* The document's header: what ran, where, how. */
static void pairs__header(sc_result_t *doc, const sc_drive_pairs_opts_t *o, const sc_session_t *ses,
                          int argc, char **argv)
{
    sc_drive_doc_header(doc, ses, argc, argv);
    snprintf(doc->mode, sizeof(doc->mode), "%s", o->mode);
    snprintf(doc->per, sizeof(doc->per), "%s", o->per);
    snprintf(doc->method, sizeof(doc->method), "%s", o->method);
    snprintf(doc->strategy, sizeof(doc->strategy), "%s", o->strategy);
    doc->pair_size_bytes = o->m.size;
    doc->pair_iters = o->m.iters;
    doc->looks = o->m.looks;
}

/* --baseline: the pairs held to known-good runs too, those checks printed after the matrix's. */
static void pairs__baseline(const sc_baseline_t *b, const char *path, sc_results_t *res,
                            sc_result_t *doc)
{
    size_t before = doc->checks.n;
    sc_drive_baseline_hold(b, path, doc);
    sc_checks_t added = {doc->checks.items + before, doc->checks.n - before, 0};
    if (added.n > 0)
        sc_verdict_print(stdout, res->log, &added);
}

/* What one pairs run carries on rank 0: the participants' names and the document the rounds
 * are saved into as they finish. */
typedef struct {
    const sc_drive_pairs_opts_t *o;
    sc_session_t *ses;
    char **names;
    int n;
    sc_result_t doc;
} pairs__run_t;

static void pairs__run_free(pairs__run_t *run)
{
    for (int i = 0; run->names != NULL && i < run->n; i++)
        free(run->names[i]);
    free(run->names);
    run->names = NULL;
    if (run->doc.command[0] != '\0')
        sc_result_free(&run->doc);
}

/* The participants' names (host, or host:rank with --per rank) and the document (rank 0). */
static sc_status_t pairs__start(pairs__run_t *run, const sc_comm_t *pc, const sc_rte_t *rte,
                                int argc, char **argv, sc_err_t *err)
{
    run->n = pc != NULL ? pc->size : 0;
    run->names = calloc((size_t)run->n + 1, sizeof(char *));
    for (int i = 0; run->names != NULL && i < run->n; i++) {
        int w = pc->world_rank[i];
        char label[SC_HOST_MAX + 16];
        if (run->o->per_rank)
            snprintf(label, sizeof(label), "%s:%d", rte->hosts[w], w);
        else
            snprintf(label, sizeof(label), "%s", rte->hosts[w]);
        run->names[i] = strdup(label);
        if (run->names[i] == NULL)
            return sc_err_set(err, SC_ERR_NOMEM, "pairs: no memory for the names");
    }
    if (run->names == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "pairs: no memory for the names");
    sc_result_init(&run->doc, "pairs");
    pairs__header(&run->doc, run->o, run->ses, argc, argv);
    return sc_drive_save_doc(run->ses, &run->doc, "running", err);
}

/* The matrices of doc for the run's participants, made (zero) where no round has filled them
 * yet; false without memory. */
static bool pairs__doc_matrices(const pairs__run_t *run, sc_result_t *doc)
{
    int n = run->n;
    size_t bytes = (size_t)n * (size_t)n * sizeof(double);
    if (doc->uni == NULL && n > 0) {
        doc->npairs_nodes = n;
        doc->pair_names = calloc((size_t)n, sizeof(*doc->pair_names));
        for (int i = 0; doc->pair_names != NULL && i < n; i++)
            snprintf(doc->pair_names[i], sizeof(doc->pair_names[i]), "%s", run->names[i]);
        doc->uni = calloc(1, bytes);
        doc->bidir = calloc(1, bytes);
        doc->latency = calloc(1, bytes);
    }
    return doc->uni != NULL && doc->bidir != NULL && doc->latency != NULL && doc->pair_names;
}

/* One rank's noted pair into doc, where the gathered figures have none. */
static void pairs__take_noted(void *ctx, int me, int peer, const double figs[3])
{
    sc_result_t *doc = ctx;
    int n = doc->npairs_nodes;
    if (me < 0 || me >= n || peer < 0 || peer >= n || !(figs[0] > 0))
        return;
    if (!(doc->uni[me * n + peer] > 0))
        doc->uni[me * n + peer] = figs[0];
    if (figs[1] > 0 && !(doc->latency[me * n + peer] > 0))
        doc->latency[me * n + peer] = doc->latency[peer * n + me] = figs[1];
    if (figs[2] > 0 && !(doc->bidir[me * n + peer] > 0))
        doc->bidir[me * n + peer] = doc->bidir[peer * n + me] = figs[2];
}

/* An ending that is not complete keeps the pairs the ranks measured in the round it cut short
 * (their progress records: the round's gather never came). */
static void pairs__noted(void *ctx, sc_result_t *doc)
{
    pairs__run_t *run = ctx;
    if (run->names == NULL || (doc->uni == NULL && !pairs__doc_matrices(run, doc)) ||
        doc->npairs_nodes != run->n)
        return;
    sc_progress_each_pair(run->ses->progress, pairs__take_noted, doc);
}

/* After each round: the matrices so far into result.json, so that a fault keeps them. */
static void pairs__round(void *arg, const sc_pairs_matrix_t *so_far, int round, int rounds)
{
    pairs__run_t *run = arg;
    sc_result_t *doc = &run->doc;
    size_t bytes = (size_t)so_far->n * (size_t)so_far->n * sizeof(double);
    if (so_far->n != run->n || !pairs__doc_matrices(run, doc))
        return;
    memcpy(doc->uni, so_far->uni, bytes);
    memcpy(doc->bidir, so_far->bidir, bytes);
    memcpy(doc->latency, so_far->lat, bytes);
    snprintf(doc->reason, sizeof(doc->reason), "%d of %d rounds done", round, rounds);
    sc_err_t ignored;
    sc_drive_save_doc(run->ses, doc, "running", &ignored);
    doc->reason[0] = '\0';
}

/* --background: the victims' rows and their checks, printed after the matrix's verdict. */
static void pairs__background(sc_session_t *ses, const sc_pairs_matrix_t *quiet,
                              const sc_pairs_matrix_t *loaded, pairs__run_t *run,
                              const sc_leaves_t *leaves, const sc_background_t *bg)
{
    sc_result_t *doc = &run->doc;
    size_t before = doc->checks.n;
    sc_pairs_background_rows(ses, quiet, loaded, (const char *const *)run->names, leaves,
                             run->o->m.size, bg, doc);
    sc_checks_t added = {doc->checks.items + before, doc->checks.n - before, 0};
    if (added.n > 0)
        sc_verdict_print(stdout, ses->res.log, &added);
}

/* --bisection: its row and its check, printed after the matrix's verdict. */
static void pairs__bisection(sc_session_t *ses, pairs__run_t *run, const int *side,
                             const sc_leaves_t *leaves, const sc_bisection_t *b,
                             const sc_cut_spec_t *cut)
{
    sc_result_t *doc = &run->doc;
    size_t before = doc->checks.n;
    sc_pairs_cut_row(ses, (const char *const *)run->names, side, run->n, leaves, run->o->m.size, b,
                     cut, run->o->m.tolerance, doc);
    sc_checks_t added = {doc->checks.items + before, doc->checks.n - before, 0};
    if (added.n > 0)
        sc_verdict_print(stdout, ses->res.log, &added);
}

/* pairs' own files (sc_drive_ending_t.also, every ending): the pairs as CSV, in the run
 * directory and at --csv. */
typedef struct {
    const sc_session_t *ses;
    const char *csv_path;
} pairs__files_t;

static sc_status_t pairs__own_files(void *ctx, const sc_result_t *doc, sc_err_t *err)
{
    const pairs__files_t *f = ctx;
    sc_status_t status = sc_pairs_save_csv(&f->ses->res, f->csv_path, &doc->pairs, err);
    return status == SC_OK ? sc_traffic_save_csv(&f->ses->res, &doc->traffic, err) : status;
}

int sc_drive_pairs(const sc_rte_t *rte, const sc_drive_pairs_opts_t *opts, int argc, char **argv)
{
    sc_drive_pairs_opts_t o = *opts;
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = SC_OK;
    /* every input and output checked before the session makes a results directory; the
     * launch's size last, so that a bad flag or file is named whatever the launch */
    double expected = 0;
    sc_leaves_t rank_leaves = {0}, leaves = {0};
    sc_cut_spec_t cut = {0};
    status = pairs__topology(&o, rte, &expected, &rank_leaves, &cut, &err);
    sc_baseline_t baseline = {0};
    if (status == SC_OK)
        status = sc_drive_baseline_load(o.baseline, &baseline, &err);
    if (status == SC_OK)
        status = sc_drive_check_outputs(&o.common, &err);
    if (status == SC_OK)
        status = sc_pairs_background_check(o.background, o.per_rank, rte, &err);
    int participants = o.per_rank ? rte->size : rte->nhosts;
    if (status == SC_OK && participants < 2)
        status = sc_err_set(&err, SC_ERR_USAGE,
                            "%d %s: a pair needs two (more hosts, or --per rank for the ranks of "
                            "one host)",
                            participants, o.per_rank ? "rank" : "host");
    sc_session_t ses = {0};
    pairs__files_t files = {&ses, sc_common_path(o.common.csv_path)};
    sc_drive_ending_t ending = {
        .command = "pairs", .common = &o.common, .also = pairs__own_files, .ctx = &files};
    if (status == SC_OK) {
        sc_session_opts_t so = {.common = &o.common, .default_name = "pairs"};
        status = sc_session_open(&ses, rte, &so, &err);
    }
    bool in = o.per_rank || rte->local_rank == 0;
    pairs__run_t run = {.o = &o, .ses = &ses};
    ending.noted = pairs__noted;
    ending.noted_ctx = &run;
    sc_pairs_ctx_t x = {.rte = rte,
                        .control = MPI_COMM_NULL,
                        .wd = ses.wd,
                        .on_round = pairs__round,
                        .on_round_arg = &run};
    if (status == SC_OK) /* the buffers a pair takes, held to what each host can give */
        status = sc_comm_check_memory(ses.world, sc_pairs_buffer_bytes(o.m.size), "--size", &err);
    if (status == SC_OK) {
        sc_session_on_end(&ses, sc_drive_end_hook, &ending);
        status = sc_comm_split_group(ses.world, rte->world, in, rte->rank, &x.pc, &x.control, &err);
    }
    if (status == SC_OK && rte->rank == 0)
        status = pairs__start(&run, x.pc, rte, argc, argv, &err);
    if (status == SC_OK && rte->nhosts > 1 && !o.common.no_preflight)
        status = sc_drive_preflight_hosts(&ses, &run.doc, &err);
    int failed = 0;
    sc_pairs_matrix_t m = {0};
    pairs__participant_leaves(&rank_leaves, x.pc, &o, &leaves);
    if (status == SC_OK && x.pc != NULL)
        status = sc_pairs_measure(&x, &o.m, expected, &m, &err);
    sc_bisection_t bisection = {0};
    int *side = o.bisection ? sc_pairs_cut_sides(x.pc, &leaves, &cut) : NULL;
    if (status == SC_OK && o.bisection && x.pc != NULL)
        status = side ? sc_pairs_bisection(&x, &o.m, side, &bisection, &err)
                      : sc_err_set(&err, SC_ERR_NOMEM, "no memory for the bisection");
    sc_pairs_matrix_t loaded = {0};
    sc_background_t bg = {0};
    if (status == SC_OK && o.background != NULL) /* the victims again, under the load */
        status = sc_pairs_background_run(&ses, &x, &o.m, o.m.size, &loaded, &bg, &err);
    if (status == SC_OK && rte->rank == 0) {
        sc_result_t *doc = &run.doc; /* its header stays; the rounds' matrices give way */
        sc_result_free_matrix(doc);
        doc->pair_rounds = m.rounds;
        doc->pairs_measured = m.measured;
        sc_pairs_count_t all;
        sc_pairs_plan_counts(SC_PAIRS_all, m.n, 0, 0, &all);
        sc_results_printf(&ses.res, "# pairs: strategy %s, %d round%s, %d of %lld pairs measured%s",
                          doc->strategy, m.rounds, m.rounds == 1 ? "" : "s", m.measured, all.pairs,
                          m.ngroups > 0 ? "" : "\n");
        if (m.ngroups > 0)
            sc_results_printf(&ses.res, ", %d group all-reduces\n", m.ngroups);
        doc->pair_busy_rounds = m.busy_rounds;
        if (m.busy_rounds > 0)
            sc_results_printf(&ses.res,
                              "# pairs: %d round%s of later looks not counted: the control pair "
                              "measured beside them dropped too (a busy machine, not a link)\n",
                              m.busy_rounds, m.busy_rounds == 1 ? "" : "s");
        sc_pairs_report(&ses.res, &m, (const char *const *)run.names, expected, o.m.tolerance,
                        leaves.nleaves > 0 ? &leaves : NULL, doc);
        pairs__baseline(&baseline, o.baseline, &ses.res, doc);
        if (o.background != NULL)
            pairs__background(&ses, &m, &loaded, &run, leaves.nleaves > 0 ? &leaves : NULL, &bg);
        if (o.bisection)
            pairs__bisection(&ses, &run, side, &leaves, &bisection, &cut);
        failed = sc_verdict_exit(doc);
        status = sc_drive_complete(&ses, doc, &ending, &err);
    }
    if (status != SC_OK && rte->rank == 0 && run.doc.command[0] != '\0')
        sc_drive_save_failed(&ses, &run.doc, &err, &ending);
    int code = sc_session_finish(&ses, rte, "pairs", status, &err, failed);
    sc_pairs_matrix_free(&m);
    sc_pairs_matrix_free(&loaded);
    free(side);
    pairs__run_free(&run);
    sc_comm_group_close(&x.pc, &x.control);
    sc_session_close(&ses);
    sc_baseline_free(&baseline);
    sc_leaves_free(&rank_leaves);
    sc_leaves_free(&leaves);
    return code;
}
