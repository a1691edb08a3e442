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

static void baseline__print(FILE *out, const sc_baseline_t *b)
{
    fprintf(out, "# baseline: %zu figures from %zu runs, least tolerance %.3g\n", b->points.n,
            b->runs.n, b->tolerance);
    for (size_t i = 0; i < b->runs.n; i++)
        fprintf(out, "#   run %zu: %s (%s %s, %s, %d ranks on %d host%s%s%s)\n", i,
                b->runs.items[i].dir, b->runs.items[i].command, b->runs.items[i].version,
                b->runs.items[i].backend, b->runs.items[i].ranks, b->runs.items[i].nhosts,
                b->runs.items[i].nhosts == 1 ? "" : "s", b->runs.items[i].hosts[0] ? ": " : "",
                b->runs.items[i].hosts);
    fprintf(out, "# %-64s %-12s %5s %12s %8s\n", "figure", "metric", "runs", "median", "spread");
    for (size_t i = 0; i < b->points.n; i++) {
        const sc_baseline_point_t *p = &b->points.items[i];
        fprintf(out, "  %-64s %-12s %5d %12.4g %7.1f%%\n", p->key, p->metric, p->count, p->median,
                p->spread * 100);
    }
}

/* A known-good run: complete, and no check of its own failed. */
static sc_status_t baseline__good(const char *dir, const sc_result_t *r, sc_err_t *err)
{
    if (strcmp(r->state, "complete") != 0)
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s: the run did not complete (state '%s'): not a "
                          "known-good run",
                          dir, r->state);
    if (r->judged && sc_checks_tally(&r->checks).fail > 0)
        return sc_err_set(err, SC_ERR_INPUT, "%s: the run has failed checks: not a known-good run",
                          dir);
    return SC_OK;
}

static sc_status_t baseline__create(const baseline__opts_t *o, sc_err_t *err)
{
    const char *const *dirs = &o->words[1];
    size_t n = (size_t)o->nwords - 1;
    if (o->out == NULL)
        return sc_err_set(err, SC_ERR_USAGE, "-o: required (the baseline file to write)");
    if (n == 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "baseline create: give the known-good run directories");
    sc_status_t status = sc_files_check_output("-o", o->out, err);
    sc_result_t *docs = calloc(n, sizeof(*docs));
    if (docs == NULL && status == SC_OK)
        status = sc_err_set(err, SC_ERR_NOMEM, "no memory");
    size_t loaded = 0;
    for (; status == SC_OK && loaded < n; loaded++) {
        status = sc_json_load_result(dirs[loaded], &docs[loaded], err);
        if (status == SC_OK)
            status = baseline__good(dirs[loaded], &docs[loaded], err);
    }
    sc_baseline_t b;
    if (status == SC_OK)
        status = sc_baseline_build(docs, dirs, n, o->tolerance, &b, err);
    if (status == SC_OK) {
        time_t now = time(NULL);
        struct tm utc;
        gmtime_r(&now, &utc);
        strftime(b.created_utc, sizeof(b.created_utc), "%Y-%m-%dT%H:%M:%SZ", &utc);
        snprintf(b.version, sizeof(b.version), "%s", SC_VERSION);
        status = sc_json_write_baseline(o->out, &b, err);
        if (status == SC_OK) {
            baseline__print(stdout, &b);
            printf("baseline: %s\n", o->out);
        }
        sc_baseline_free(&b);
    }
    for (size_t i = 0; docs != NULL && i < loaded; i++)
        sc_result_free(&docs[i]);
    free(docs);
    return status;
}

static sc_status_t baseline__show(const baseline__opts_t *o, sc_err_t *err)
{
    if (o->nwords != 2)
        return sc_err_set(err, SC_ERR_USAGE, "baseline show: give one baseline file");
    sc_baseline_t b;
    sc_status_t status = sc_drive_baseline_load(o->words[1], &b, err);
    if (status == SC_OK)
        baseline__print(stdout, &b);
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
