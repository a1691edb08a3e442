/* sc_drive_baseline.h - the --baseline FILE of coll, run, pairs and judge (sc_drive_baseline.c). */
#ifndef SC_DRIVE_BASELINE_H
#define SC_DRIVE_BASELINE_H

#include "record/sc_result.h"
#include "util/sc_status.h"

/* --baseline FILE (coll, run, pairs, judge): read and made ready for lookups before anything
 * runs (path NULL: an empty baseline). SC_ERR_INPUT naming the file. */
sc_status_t sc_drive_baseline_load(const char *path, sc_baseline_t *b, sc_err_t *err);
/* doc held to b after the command's own checks (path NULL: nothing): checks added, the
 * document judged, a finding when b has no point the run measured. */
void sc_drive_baseline_hold(const sc_baseline_t *b, const char *path, sc_result_t *doc);

#endif
