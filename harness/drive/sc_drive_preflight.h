/* sc_drive_preflight.h - preflight inside a measuring command: at the start of a multi-node coll,
 * run or pairs (unless --no-preflight), and as `scalecheck preflight` itself. Every host's
 * configuration gathered in one collective, compared on rank 0 (judge/sc_preflight.h), the
 * hosts and findings into the result document, a check into its verdict, and a few lines on
 * the terminal. */
#ifndef SC_DRIVE_PREFLIGHT_H
#define SC_DRIVE_PREFLIGHT_H

#include "record/sc_result.h"
#include "session/sc_session.h"

/* Collective; on rank 0 doc gets the hosts, the findings and the check (doc->judged set). */
sc_status_t sc_drive_preflight_hosts(sc_session_t *ses, sc_result_t *doc, sc_err_t *err);

/* What `scalecheck preflight` was asked (cli/cmd_preflight.c parses it). */
typedef struct {
    sc_common_opts_t common; /* the shared options: files, timeout, --metrics */
    bool help;
} sc_drive_preflight_opts_t;

/* `scalecheck preflight` whole: every host's configuration gathered and compared, the verdict
 * and the documents; every rank returns the exit code (1: an error-level difference). */
int sc_drive_preflight(const sc_rte_t *rte, const sc_drive_preflight_opts_t *o, int argc,
                       char **argv);

#endif
