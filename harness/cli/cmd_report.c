/* cmd_report.c - `scalecheck report DIR` re-renders a finished run's summary.json, junit.xml,
 * plots and report.html from its result.json; `scalecheck report DIR1 [DIR...] DIRN` holds the
 * last run to the ones before it, as --baseline holds a run to a baseline file (the same
 * checks: a drop beyond the earlier runs' spread, at least --tolerance, is a regression) and
 * exits 1 when one regressed. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_baseline.h"
#include "judge/sc_baseline.h"
#include "report/sc_json_in.h"
#include "report/sc_json_out.h"
#include "report/sc_report.h"
#include "report/sc_verdict_render.h"
#include "util/sc_defaults.h"

#define REPORT_MAX_DIRS (SC_BASELINE_MAX_RUNS + 1)

typedef struct {
    double tolerance;
    const char *ended, *reason, *at_fault; /* a launcher's word on a run killed outright */
    bool help;
    const char *dirs[REPORT_MAX_DIRS];
    int ndirs;
} report__opts_t;

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, report__opts_t, field, lo, hi)
static const sc_cli_opt_t report__options[] = {
    O(0, "tolerance", "F",
      "comparing: the least drop that is a regression, whatever the earlier runs' spread "
      "(default " SC_DEFAULT_BASELINE_TOLERANCE_TEXT ")",
      SC_OPT_DOUBLE, tolerance, 0, 0.9),
    O(0, "ended", "failed|interrupted",
      "for launchers: the final state of a run whose ranks were killed before they could write "
      "one (applied only to a run still \"running\"; with --reason, --at-fault)",
      SC_OPT_STRING, ended, 0, 0),
    O(0, "reason", "TEXT", "with --ended: why the run ended (the launcher's or mpirun's words)",
      SC_OPT_STRING, reason, 0, 0),
    O(0, "at-fault", "TEXT",
      "with --ended: the rank, host or link at fault (also added to a final state that names "
      "none)",
      SC_OPT_STRING, at_fault, 0, 0),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

/* The last run held to the ones before it; *regressions counts its figures beyond the band. */
static sc_status_t report__compare(const report__opts_t *o, int *regressions, sc_err_t *err)
{
    size_t nbase = (size_t)o->ndirs - 1;
    sc_drive_held_t held;
    sc_status_t status =
        sc_drive_held_to_earlier(o->dirs, (size_t)o->ndirs, o->tolerance, &held, err);
    if (status != SC_OK)
        return status;
    *regressions = held.regressions > INT_MAX ? INT_MAX : (int)held.regressions;
    printf("# %s held to %zu earlier run%s (%zu figures matched)\n", o->dirs[nbase], nbase,
           nbase == 1 ? "" : "s", held.matched);
    if (held.listed.checks.n > 0)
        sc_verdict_print_result(stdout, NULL, &held.listed);
    printf("# %zu regression%s beyond the spread (at least %.0f %%)\n", held.regressions,
           held.regressions == 1 ? "" : "s", o->tolerance * 100);
    if (held.matched == 0)
        status = sc_err_set(err, SC_ERR_INPUT, "report: %s has no figure the earlier runs measured",
                            o->dirs[nbase]);
    sc_result_free(&held.listed);
    return status;
}

/* A run that did not complete says so, and report exits as the run did: 4 when it was
 * interrupted, 3 when it failed or ended without a final state. */
static int report__incomplete(const char *dir, const sc_result_t *r)
{
    printf("report: %s: INCOMPLETE (%s)%s%s%s%s\n", dir,
           r->state[0] ? r->state : "no final state: still \"running\", killed outright",
           r->reason[0] ? ": " : "", r->reason, r->at_fault[0] ? "; at fault: " : "", r->at_fault);
    return strcmp(r->state, "interrupted") == 0 ? 4 : 3;
}

/* --ended: what a launcher saw, written into a run that ended without a final state (or, for
 * --at-fault, one that names nobody); a final state a rank wrote is never replaced. */
static sc_status_t report__mark(const report__opts_t *o, sc_result_t *doc, sc_err_t *err)
{
    bool open = !sc_result_final(doc);
    if (!open && (o->at_fault == NULL || doc->at_fault[0] != '\0'))
        return SC_OK;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/result.json", o->dirs[0]);
    const char *state = open ? o->ended : doc->state;
    const char *reason = open ? (o->reason ? o->reason : "ended by its launcher") : doc->reason;
    sc_status_t status =
        sc_json_mark_end(path, doc->command, state, reason, o->at_fault ? o->at_fault : "", err);
    if (status == SC_OK) {
        sc_result_free(doc);
        status = sc_json_load_result_listed(o->dirs[0], doc, SC_DEFAULT_SHOWN, err);
    }
    return status;
}

static sc_status_t report__check_ended(const report__opts_t *o, sc_err_t *err)
{
    if (o->ended == NULL)
        return o->reason != NULL || o->at_fault != NULL
                   ? sc_err_set(err, SC_ERR_USAGE, "--reason and --at-fault go with --ended")
                   : SC_OK;
    if (strcmp(o->ended, "failed") != 0 && strcmp(o->ended, "interrupted") != 0)
        return sc_err_set(err, SC_ERR_USAGE, "--ended: '%s' is not failed or interrupted",
                          o->ended);
    return o->ndirs == 1
               ? SC_OK
               : sc_err_set(err, SC_ERR_USAGE, "--ended: one run directory, not %d", o->ndirs);
}

int sc_cmd_report(const sc_rte_t *rte, int argc, char **argv)
{
    if (rte->rank != 0)
        return 0;
    report__opts_t o = {.tolerance = SC_DEFAULT_BASELINE_TOLERANCE};
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse_words(report__options, argc, argv, 2, &o, o.dirs,
                                            REPORT_MAX_DIRS, &o.ndirs, &err);
    if (status == SC_OK && o.help) {
        sc_cli_print_help(report__options, stdout);
        return 0;
    }
    if (status == SC_OK && o.ndirs == 0)
        status =
            sc_err_set(&err, SC_ERR_USAGE, "report: give a run directory (or more to compare)");
    if (status == SC_OK)
        status = report__check_ended(&o, &err);
    sc_result_t *docs = calloc((size_t)o.ndirs + 1, sizeof(*docs));
    if (docs == NULL && status == SC_OK)
        status = sc_err_set(&err, SC_ERR_NOMEM, "report: no memory for %d runs", o.ndirs);
    int loaded = 0, regressions = 0;
    /* one run is rendered for a person: what a report lists of it is read (a fleet's million
     * rows are passed by); runs compared are streamed (sc_drive_held_to_earlier) */
    for (; status == SC_OK && o.ndirs == 1 && loaded < o.ndirs; loaded++)
        status = sc_json_load_result_listed(o.dirs[loaded], &docs[loaded], SC_DEFAULT_SHOWN, &err);
    int incomplete = 0;
    if (status == SC_OK && o.ended != NULL)
        status = report__mark(&o, &docs[0], &err);
    if (status == SC_OK && o.ndirs == 1) {
        status = sc_report_render(o.dirs[0], &docs[0], &err);
        if (status == SC_OK)
            printf("report: %s/report.html (summary.json, junit.xml, plots)\n", o.dirs[0]);
        if (status == SC_OK && sc_result_incomplete(&docs[0]))
            incomplete = report__incomplete(o.dirs[0], &docs[0]);
    } else if (status == SC_OK) {
        status = report__compare(&o, &regressions, &err);
    }
    for (int i = 0; i < loaded; i++)
        sc_result_free(&docs[i]);
    free(docs);
    if (status != SC_OK) {
        fprintf(stderr, "scalecheck report: %s\n", err.msg);
        return sc_status_exit_code(status);
    }
    return incomplete ? incomplete : regressions > 0 ? 1 : 0;
}
