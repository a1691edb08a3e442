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

/* What the watchdog's ending needs of the command: its name ("coll"), where --metrics and
 * --json go (NULL: the run directory's files alone), and what else the command writes from the
 * document as it ended (also(ctx, doc); NULL: nothing): nccl-tests' -J. */
typedef struct {
    const char *command;
    const char *metrics_path;
    const char *json_path;
    void (*also)(void *ctx, const sc_result_t *doc);
    void *ctx;
} sc_drive_ending_t;

/* The watchdog's ending (sc_session_on_end; arg: a sc_drive_ending_t that outlives the run): the
 * final state into result.json, then from it the metrics, --json's copy and the command's own
 * files, so that monitoring and a job reading them see the run end. */
void sc_drive_end_hook(void *arg, const char *dir, const sc_watchdog_end_t *end);

/* result.json (and json_path when given) written from doc with state, under the lock (rank 0). */
sc_status_t sc_drive_save_doc(sc_session_t *ses, sc_result_t *doc, const char *state,
                              const char *json_path, sc_err_t *err);

/* A run that stopped on error `why`: its reason and the ranks at fault into doc, saved as
 * "failed" (the reserve given back when the disk is full), and its metrics (the run directory's,
 * and metrics_path when given) written. Rank 0. Nothing for bad usage (exit 2 leaves nothing
 * on disk: the session removes the run directory). */
void sc_drive_save_failed(sc_session_t *ses, sc_result_t *doc, const sc_err_t *why,
                          const char *json_path, const char *metrics_path);

#endif
