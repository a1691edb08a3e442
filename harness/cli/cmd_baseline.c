/* cmd_baseline.c - `scalecheck baseline create RUN_DIR... -o FILE`: known-good runs summarised
 * per figure (median, spread, count, the runs, systems and versions it came from), and
 * `scalecheck baseline show FILE`; and the --baseline FILE that coll, run, pairs and judge take:
 * loaded before anything runs, held to after the command's own checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_baseline.h"
#include "judge/sc_baseline.h"
#include "report/sc_json_in.h"
#include "report/sc_json_out.h"
#include "sc_config.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

#define BASELINE_MAX_DIRS SC_BASELINE_MAX_RUNS

typedef struct {
    const char *out;
    double tolerance;
    bool help;
    const char *words[BASELINE_MAX_DIRS + 2]; /* "create" or "show", then the paths */
    int nwords;
} baseline__opts_t;

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, baseline__opts_t, field, lo, hi)
static const sc_cli_opt_t baseline__options[] = {
    O('o', "output", "FILE", "the baseline file to write (create); required", SC_OPT_STRING, out, 0,
      0),
    O(0, "tolerance", "F",
      "the least drop that is a finding, whatever the spread "
      "(default " SC_DEFAULT_BASELINE_TOLERANCE_TEXT ")",
      SC_OPT_DOUBLE, tolerance, 0, 0.9),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

static void baseline__print(FILE *out, const sc_baseline_t *b, size_t figures)
{
    fprintf(out, "# baseline: %zu figures from %zu runs, least tolerance %.3g\n", figures,
            b->runs.n, b->tolerance);
    for (size_t i = 0; i < b->runs.n; i++)
        fprintf(out, "#   run %zu: %s (%s %s, %s, %d ranks on %d host%s%s%s)\n", i,
                b->runs.items[i].dir, b->runs.items[i].command, b->runs.items[i].version,
                b->runs.items[i].backend, b->runs.items[i].ranks, b->runs.items[i].nhosts,
                b->runs.items[i].nhosts == 1 ? "" : "s", b->runs.items[i].hosts[0] ? ": " : "",
                b->runs.items[i].hosts);
    if (figures > b->points.n) { /* a fleet's: they are in the file */
        fprintf(out, "# (%zu figures: `scalecheck baseline show FILE` lists them)\n", figures);
        return;
    }
    fprintf(out, "# %-64s %-12s %5s %12s %8s\n", "figure", "metric", "runs", "median", "spread");
    for (size_t i = 0; i < b->points.n; i++) {
        const sc_baseline_point_t *p = &b->points.items[i];
        fprintf(out, "  %-64s %-12s %5d %12.4g %7.1f%%\n", p->key, p->metric, p->count, p->median,
                p->spread * 100);
    }
}

/* The points, a key's at a time from the builder's store, as the file is written; the first
 * of them kept for the listing on the terminal (a report's worth: SC_DEFAULT_SHOWN). */
typedef struct {
    const sc_baseline_builder_t *bb;
    sc_baseline_points_t *listed;
    size_t written;
    size_t unstable;           /* figures spread past SC_DEFAULT_BASELINE_MAX_SPREAD */
    sc_baseline_point_t worst; /* the most spread of them */
} baseline__writing_t;

static bool baseline__points_write(sc_list_out_t *out, void *ctx)
{
    baseline__writing_t *w = ctx;
    for (size_t i = 0; i < w->bb->store.nkeys; i++) {
        sc_baseline_point_t made[SC_STORE_METRICS];
        int n = sc_store_points(&w->bb->store, i, w->bb->nruns, made);
        if (n < 0)
            return false; /* no memory: the file is not written */
        for (int m = 0; m < n; m++) {
            sc_json_list_put(out, &made[m], sc_baseline_point_fields);
            if (made[m].spread > SC_DEFAULT_BASELINE_MAX_SPREAD &&
                (w->unstable++ == 0 || made[m].spread > w->worst.spread))
                w->worst = made[m];
            sc_baseline_point_t *kept =
                w->written++ < SC_DEFAULT_SHOWN ? SC_LIST_PUSH(w->listed) : NULL;
            if (kept != NULL)
                *kept = made[m];
        }
    }
    return true;
}

/* Whether the baseline can be trusted, said: figures whose runs spread past
 * SC_DEFAULT_BASELINE_MAX_SPREAD hold nothing (their band is their spread), and a figure
 * needs SC_DEFAULT_BASELINE_MIN_RUNS runs before its spread means anything. */
static void baseline__stability(FILE *out, const baseline__writing_t *w, size_t runs)
{
    if (w->unstable > 0)
        fprintf(out,
                "# UNSTABLE: %zu figure%s spread more than %.0f %% over the runs (the most: %s, "
                "%.0f %%): a band that wide holds nothing - run again on a quiet machine, or "
                "leave those runs out\n",
                w->unstable, w->unstable == 1 ? "" : "s", SC_DEFAULT_BASELINE_MAX_SPREAD * 100,
                w->worst.key, w->worst.spread * 100);
    if (runs < SC_DEFAULT_BASELINE_MIN_RUNS)
        fprintf(out,
                "# %zu run%s: a stable baseline needs %d or more (one run has no spread, two "
                "cannot tell a slow run from a noisy figure)\n",
                runs, runs == 1 ? "" : "s", SC_DEFAULT_BASELINE_MIN_RUNS);
}

static sc_status_t baseline__create(const baseline__opts_t *o, sc_err_t *err)
{
    size_t n = (size_t)o->nwords - 1;
    if (o->out == NULL)
        return sc_err_set(err, SC_ERR_USAGE, "-o: required (the baseline file to write)");
    if (n == 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "baseline create: give the known-good run directories");
    sc_status_t status = sc_files_check_output("-o", o->out, err);
    sc_baseline_t b;
    sc_baseline_builder_t bb;
    sc_baseline_begin(&bb, &b, o->tolerance);
    if (status == SC_OK)
        status = sc_drive_baseline_read(&bb, &o->words[1], n, true, err);
    status = sc_baseline_end(&bb, status, true, err);
    if (status != SC_OK)
        return status;
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(b.created_utc, sizeof(b.created_utc), "%Y-%m-%dT%H:%M:%SZ", &utc);
    snprintf(b.version, sizeof(b.version), "%s", SC_VERSION);
    sc_baseline_points_t listed = {0};
    baseline__writing_t writing = {.bb = &bb, .listed = &listed};
    sc_list_source_t points = {baseline__points_write, &writing};
    b.points_source = &points;
    status = sc_json_write_baseline(o->out, &b, err);
    b.points_source = NULL;
    b.points = listed;
    if (status == SC_OK) {
        baseline__print(stdout, &b, writing.written);
        baseline__stability(stdout, &writing, n);
        printf("baseline: %s\n", o->out);
    }
    sc_baseline_builder_free(&bb);
    sc_baseline_free(&b);
    return status;
}

static sc_status_t baseline__show(const baseline__opts_t *o, sc_err_t *err)
{
    if (o->nwords != 2)
        return sc_err_set(err, SC_ERR_USAGE, "baseline show: give one baseline file");
    sc_baseline_t b;
    sc_status_t status = sc_drive_baseline_load(o->words[1], &b, err);
    if (status == SC_OK)
        baseline__print(stdout, &b, b.points.n);
    sc_baseline_free(&b);
    return status;
}

int sc_cmd_baseline(const sc_rte_t *rte, int argc, char **argv)
{
    if (rte->rank != 0)
        return 0;
    baseline__opts_t o = {.tolerance = SC_DEFAULT_BASELINE_TOLERANCE};
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse_words(baseline__options, argc, argv, 2, &o, o.words,
                                            BASELINE_MAX_DIRS + 2, &o.nwords, &err);
    if (status == SC_OK && (o.help || o.nwords == 0)) {
        FILE *out = o.help ? stdout : stderr;
        fprintf(out, "usage: scalecheck baseline create RUN_DIR... -o FILE [--tolerance F]\n"
                     "       scalecheck baseline show FILE\n\n");
        sc_cli_print_help(baseline__options, out);
        return o.help ? 0 : 2;
    }
    if (status == SC_OK && strcmp(o.words[0], "create") == 0)
        status = baseline__create(&o, &err);
    else if (status == SC_OK && strcmp(o.words[0], "show") == 0)
        status = baseline__show(&o, &err);
    else if (status == SC_OK)
        status =
            sc_err_set(&err, SC_ERR_USAGE, "baseline %s: unknown (create or show)", o.words[0]);
    if (status != SC_OK) {
        fprintf(stderr, "scalecheck baseline: %s\n", err.msg);
        return sc_status_exit_code(status);
    }
    return 0;
}
