/* sc_drive_baseline.h - the --baseline FILE of coll, run, pairs and judge (sc_drive_baseline.c). */
#ifndef SC_DRIVE_BASELINE_H
#define SC_DRIVE_BASELINE_H

#include "judge/sc_baseline.h"
#include "record/sc_result.h"
#include "util/sc_status.h"

/* --baseline FILE (coll, run, pairs, judge): read and made ready for lookups before anything
 * runs (path NULL: an empty baseline). SC_ERR_INPUT naming the file. */
sc_status_t sc_drive_baseline_load(const char *path, sc_baseline_t *b, sc_err_t *err);
/* doc held to b after the command's own checks (path NULL: nothing): checks added, the
 * document judged, a finding when b has no point the run measured. */
void sc_drive_baseline_hold(const sc_baseline_t *b, const char *path, sc_result_t *doc);
/* Runs (at most SC_BASELINE_MAX_RUNS) into bb: read side by side on the head node's cores, their
 * rows streamed into bb's store, each held to be like the first (and - known_good, `baseline
 * create`'s - complete, without failed checks), and added in the order given. The first run
 * refused, in that order, is the error (SC_ERR_INPUT naming it, SC_ERR_USAGE past the limit). */
sc_status_t sc_drive_baseline_read(sc_baseline_builder_t *bb, const char *const *dirs, size_t n,
                                   bool known_good, sc_err_t *err);

/* `report DIR1 .. DIRN`: the last run held to the ones before it, every run streamed (a fleet's
 * million rows are never held): the earlier runs read as sc_drive_baseline_read reads them, the
 * last one's rows held to their figures as they are read. held gets what a person is shown of
 * the checks (record/sc_shown.h: those that did not pass first, the others counted); matched
 * the figures that had a baseline, regressions those beyond its band. */
typedef struct {
    sc_result_t listed; /* its checks: those shown; its unlisted tally, the others */
    size_t matched, regressions;
} sc_drive_held_t;
sc_status_t sc_drive_held_to_earlier(const char *const *dirs, size_t n, double tolerance,
                                     sc_drive_held_t *held, sc_err_t *err);

#endif
