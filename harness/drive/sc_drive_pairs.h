/* sc_drive_pairs.h - `scalecheck pairs` driven from what was asked: the point-to-point matrix,
 * its rounds and looks, the localisation and the verdict (sc_drive_pairs.c). */
#ifndef SC_DRIVE_PAIRS_H
#define SC_DRIVE_PAIRS_H

#include <stdbool.h>

#include "pairs/sc_pairs.h"
#include "record/sc_common_opts.h"
#include "rte/sc_rte.h"

typedef struct {
    sc_pairs_opts_t m;       /* what the measurement needs */
    sc_common_opts_t common; /* the shared options: backend, files, bounds */
    bool per_rank, help, plan_only;
    bool bisection; /* --bisection: what crosses the cut between two halves, alone and at once */
    int plan_nodes;
    const char *topology, *baseline, *mode, *per, *method, *strategy;
    const char *background; /* --background alltoall: the matrix again under that load */
} sc_drive_pairs_opts_t;

/* The pairs run whole from o (checked by the cli: its words already read into o.m); every
 * rank returns the exit code. argv is recorded in the document only. Collective. */
int sc_drive_pairs(const sc_rte_t *rte, const sc_drive_pairs_opts_t *o, int argc, char **argv);

#endif
