/* sc_drive_coll.h - `scalecheck coll` driven from what was asked (no argv to parse). */
#ifndef SC_DRIVE_COLL_H
#define SC_DRIVE_COLL_H

#include "drive/sc_drive_coll_opts.h"
#include "rte/sc_rte.h"

/* The sweep whole: session, every collective x type x reduction x size with its second looks,
 * the checks, the verdict and the documents; every rank returns the exit code. argv is
 * recorded in the document only. Collective. */
int sc_drive_coll(const sc_rte_t *rte, const sc_coll_opts_t *opts, int argc, char **argv);

#endif
