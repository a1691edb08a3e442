/* sc_drive_end.h - how a measuring command's result document ends, whatever ended the run: saved
 * under the session's write lock while it runs, its final state ("complete", "failed" with the
 * error and the ranks at fault, "interrupted") written by the main thread or, when the watchdog
 * ends the job, by the watchdog's hook; a full disk gives the run directory's reserve back for
 * that last write (sc_cmd_end.c). */
#ifndef SC_DRIVE_END_H
#define SC_DRIVE_END_H

#include "record/sc_result.h"
#include "session/sc_session.h"

/* The header every measuring command's document starts with: the time it started, version,
 * run directory, backend (and how auto chose it), ranks and hosts, and argv when given. */
void sc_drive_doc_header(sc_result_t *d, const sc_session_t *ses, int argc, char **argv);

/* What every ending needs of the command: its name ("coll"), its shared options (where --metrics
 * and --json go; none given: the run directory's files alone), and the files of its own it
 * writes from the document as it ended (also(ctx, doc, err); NULL: none): run's and coll's CSV,
 * coll's -J. */
typedef struct {
    const char *command;
    const sc_common_opts_t *common;
    sc_status_t (*also)(void *ctx, const sc_result_t *doc, sc_err_t *err);
    void *ctx;
    /* the run's journal (its rows flushed now and then), or NULL: an ending flushes it before it
     * reads the rows back, so that a hang or a signal loses none */
    FILE *const *journal;
    /* or NULL: the seconds the report (its plots and pages) took, added to it (coll says what
     * writing its results cost beside the fixed cost of a report) */
    double *report_s;
    /* or NULL: what the ranks noted of work a collective step had not yet brought to rank 0
     * (pairs: the pairs of a round cut short), put into the document by every ending that is
     * not complete, before it is written */
    void (*noted)(void *noted_ctx, sc_result_t *doc);
    void *noted_ctx;
} sc_drive_ending_t;

/* --json, --csv and --metrics (each may be "") checked before anything runs: the outputs every
 * measuring command may take, refused with the flag named (util/sc_files.h). */
sc_status_t sc_drive_check_outputs(const sc_common_opts_t *c, sc_err_t *err);

/* Every document a run writes besides result.json, from the document as it ended, in one list
 * that every ending walks - complete (sc_drive_complete), failed (sc_drive_save_failed) and
 * the watchdog's (sc_drive_end_hook): the run directory's files (the list `report DIR` and
 * `judge` walk too: report/sc_report_outputs.h, where a new format goes), --json's copy,
 * --metrics' copy, and the command's own (ending->also). Every writer is tried; the first
 * failure is returned. Rank 0. */
sc_status_t sc_drive_outputs(const char *dir, const sc_result_t *doc,
                             const sc_drive_ending_t *ending, sc_err_t *err);

/* The watchdog's ending (sc_session_on_end; arg: a sc_drive_ending_t that outlives the run): the
 * final state into result.json, then every output from it, so that monitoring and a job
 * reading them see the run end. */
void sc_drive_end_hook(void *arg, const char *dir, const sc_watchdog_end_t *end);

/* result.json written from doc with state, under the lock (rank 0; the other outputs are
 * sc_drive_outputs'). */
sc_status_t sc_drive_save_doc(sc_session_t *ses, sc_result_t *doc, const char *state,
                              sc_err_t *err);

/* A run that ended well: result.json saved "complete", then every output (rank 0). */
sc_status_t sc_drive_complete(sc_session_t *ses, sc_result_t *doc, const sc_drive_ending_t *ending,
                              sc_err_t *err);

/* A run that stopped on error `why`: its reason and the ranks at fault into doc, saved as
 * "failed" (the reserve given back when the disk is full), then every output. Rank 0. Nothing
 * for bad usage (exit 2 leaves nothing on disk: the session removes the run directory). */
void sc_drive_save_failed(sc_session_t *ses, sc_result_t *doc, const sc_err_t *why,
                          const sc_drive_ending_t *ending);

#endif
