/* cmd_coll_opts.h - the options of `scalecheck coll`, declared once in a table
 * (cmd_coll_opts.c) that drives parsing and --help, parsed into the drive layer's
 * sc_coll_opts_t. */
#ifndef SC_CMD_COLL_OPTS_H
#define SC_CMD_COLL_OPTS_H

#include <stdio.h>

#include "drive/sc_drive_coll_opts.h"
#include "util/sc_status.h"

/* The defaults, then argv[first..) parsed and checked against nranks. SC_ERR_USAGE naming the
 * flag on the first problem. */
sc_status_t sc_coll_opts_parse(sc_coll_opts_t *o, int argc, char **argv, int first, int nranks,
                               sc_err_t *err);
void sc_coll_opts_help(FILE *out);

#endif
