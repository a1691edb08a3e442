/* sc_drive_held.c - `report DIR1 .. DIRN`: the last run held to the ones before it, streamed
 * (sc_drive_baseline.h). Two results of a million rows were read whole, every point of the
 * baseline made and every check listed: 67 s and 2.4 GB; now the earlier runs go into the
 * builder's compact store, a point is made only for a key the last run has, and the checks
 * shown are bounded. */
#include "drive/sc_drive_baseline.h"

#include <stdlib.h>
#include <string.h>

#include "judge/sc_baseline.h"
#include "record/sc_shown.h"
#include "report/sc_json_in.h"
#include "util/sc_defaults.h"

typedef struct {
    sc_baseline_hold_t hold;
    sc_shown_t shown;
    sc_drive_held_t *held;
    sc_result_t last; /* the last run's header, filled before its rows come */
    sc_checks_t made; /* one figure's checks */
    bool nomem;
} held__run_t;

/* The checks a figure made, counted and offered to what is shown. */
static void held__offer(held__run_t *run, bool figures)
{
    for (size_t i = 0; i < run->made.n; i++) {
        const sc_check_t *c = &run->made.items[i];
        run->held->regressions += figures && c->level != SC_LEVEL_PASS;
        run->nomem |= !sc_shown_check(&run->shown, &run->held->listed, c);
    }
    run->made.n = 0;
}

static bool held__row(void *ctx, bool sweep, const sc_case_row_t *row)
{
    held__run_t *run = ctx;
    sc_baseline_hold_case(&run->hold, &run->last, sweep, row, &run->made);
    held__offer(run, true);
    return !run->nomem;
}

/* The last run's figures that are not case rows (points, pairs: few, in its document). */
static sc_status_t held__others(held__run_t *run, const sc_result_t *last, sc_err_t *err)
{
    sc_figures_t figures = {0};
    sc_status_t status = sc_result_figures(last, 0, &figures, err);
    for (size_t i = 0; status == SC_OK && i < figures.n; i++) {
        sc_baseline_hold_figure(&run->hold, &figures.items[i], &run->made);
        held__offer(run, true);
    }
    sc_list_free(&figures);
    return status;
}

/* The last run's rows held as they are read, then the rest of its figures and the whole run. */
static sc_status_t held__last(sc_baseline_builder_t *bb, const char *dir, held__run_t *run,
                              sc_err_t *err)
{
    sc_result_t *last = &run->last;
    sc_result_init(last, "");
    sc_json_cases_t to = {held__row, run};
    sc_status_t status = sc_json_load_result_cases(dir, last, &to, err);
    if (status != SC_OK)
        return run->nomem ? sc_err_set(err, SC_ERR_NOMEM, "no memory for the checks of %s", dir)
                          : status; /* the loader freed the document */
    status = sc_run_kind_check(last, dir, &bb->first, bb->first_dir, err);
    if (status == SC_OK)
        status = held__others(run, last, err);
    if (status == SC_OK)
        status = sc_baseline_hold_end(&run->hold, &run->made, &run->held->matched, err);
    held__offer(run, false); /* the whole run's check: not a regression of its own */
    if (status == SC_OK && run->nomem)
        status = sc_err_set(err, SC_ERR_NOMEM, "no memory for the checks of %s", dir);
    sc_result_free(last);
    return status;
}

sc_status_t sc_drive_held_to_earlier(const char *const *dirs, size_t n, double tolerance,
                                     sc_drive_held_t *held, sc_err_t *err)
{
    memset(held, 0, sizeof(*held));
    sc_result_init(&held->listed, "report");
    sc_baseline_builder_t bb;
    sc_baseline_t b;
    sc_baseline_begin(&bb, &b, tolerance);
    sc_status_t status = sc_drive_baseline_read(&bb, dirs, n - 1, false, err);
    if (status == SC_OK && bb.store.nfigures == 0)
        status = sc_err_set(err, SC_ERR_INPUT,
                            "report: the earlier runs hold no measured figure "
                            "(%s, ...)",
                            dirs[0]);
    held__run_t run = {.held = held};
    sc_baseline_hold_begin(&run.hold, &b, &bb.store, bb.nruns);
    sc_shown_init(&run.shown, SC_DEFAULT_SHOWN);
    if (status == SC_OK)
        status = held__last(&bb, dirs[n - 1], &run, err);
    sc_shown_finish(&run.shown, &held->listed);
    held->listed.judged = true;
    size_t ignored;
    sc_err_t none;
    sc_baseline_hold_end(&run.hold, &run.made, &ignored, &none); /* a failure's: its memory */
    sc_list_free(&run.made);
    sc_baseline_builder_free(&bb);
    sc_baseline_free(&b);
    if (status != SC_OK)
        sc_result_free(&held->listed);
    return status;
}
