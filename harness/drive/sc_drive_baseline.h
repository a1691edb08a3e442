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
/* `baseline create`'s known-good runs (at most SC_BASELINE_MAX_RUNS) into bb: read side by side
 * on the head node's cores, their rows streamed into bb's store, each run held to be complete,
 * without failed checks and like the first, and added in the order given. The first run refused,
 * in that order, is the error (SC_ERR_INPUT naming it, SC_ERR_USAGE past the limit). */
sc_status_t sc_drive_baseline_read(sc_baseline_builder_t *bb, const char *const *dirs, size_t n,
                                   sc_err_t *err);

#endif
