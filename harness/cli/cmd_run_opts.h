/* cmd_run_opts.h - the options of `scalecheck run`, declared once in a table (cmd_run_opts.c),
 * parsed into the drive layer's sc_run_opts_t. */
#ifndef SC_CMD_RUN_OPTS_H
#define SC_CMD_RUN_OPTS_H

#include <stdio.h>

#include "drive/sc_drive_run_opts.h"
#include "util/sc_status.h"

/* Defaults, then argv[first..). Scales and nodes default to powers of two up to what the job
 * has (local_ranks per node, nhosts). SC_ERR_USAGE naming the flag. */
sc_status_t sc_run_opts_parse(sc_run_opts_t *o, int argc, char **argv, int first, int local_ranks,
                              int nhosts, sc_err_t *err);
void sc_run_opts_help(FILE *out);

#endif
