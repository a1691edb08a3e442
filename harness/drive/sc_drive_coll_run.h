/* sc_drive_coll_run.h - what one `coll` run carries from start to end, shared by
 * sc_drive_coll.c (the sweep, the verdict, the documents) and sc_drive_coll_choices.c (the
 * sweep once per NCCL_ALGO/NCCL_PROTO combination). Not a public header. */
#ifndef SC_DRIVE_COLL_RUN_H
#define SC_DRIVE_COLL_RUN_H

#include <stdio.h>

#include "drive/sc_drive_coll.h"
#include "drive/sc_drive_coll_choices.h"
#include "drive/sc_drive_end.h"
#include "engine/sc_engine.h"
#include "judge/sc_baseline.h"
#include "record/sc_result.h"
#include "session/sc_session.h"
#include "topology/sc_topology.h"

/* Everything one run carries from start to end. */
typedef struct sc_coll_run {
    const sc_rte_t *rte;
    sc_coll_opts_t opts;
    sc_session_t ses;
    sc_engine_t *eng;
    sc_topology_t topo;
    sc_baseline_t baseline;
    sc_result_t doc; /* rank 0 */
    sc_drive_ending_t ending;
    uint64_t wrong_total;
    double busbw_sum;
    size_t busbw_rows;
    /* the collective being swept: its own footer (nccl-tests prints one per program) */
    uint64_t coll_wrong;
    double coll_busbw_sum;
    size_t coll_busbw_rows;
    int cycle;           /* -N: the sweep running, from 1 */
    uint64_t need_bytes; /* the buffers the largest size takes on a rank (-M) */
    sc_nt_config_t nt;   /* --nccl-tests-output, -J */
    int argc;            /* the command line, for -J */
    char **argv;
    FILE *journal;   /* rank 0: results.jsonl, a row a line as each case ends */
    double flushed;  /* when the journal last went to the kernel */
    double started;  /* when the run began (coll__now) */
    double write_s;  /* rank 0: seconds spent writing results (the journal, result.json) */
    double report_s; /* of which the report's plots and pages: a fixed cost a run, not a row */
    /* --algo/--proto lists: the combinations swept (0: the run's one choice), the one running */
    sc_coll_choice_t choices[SC_COLL_CHOICES_MAX];
    int nchoices;
    char asked[80];
    unsigned concurrent; /* --concurrent: the kinds of traffic run at once (bit per kind) */
} sc_coll_run_t;

/* Every collective x type x reduction x size run->opts asks for, on run->eng. Collective. */
sc_status_t sc_coll_sweep_colls(sc_coll_run_t *run, sc_err_t *err);
/* SC_ERR_USAGE when the sweep measured nothing (every size too small for the ranks). */
sc_status_t sc_coll_measured_some(sc_coll_run_t *run, sc_err_t *err);
/* --algo/--proto lists: the sweep once per combination, then the fastest of each case
 * (sc_drive_coll_choices.c). Collective. */
sc_status_t sc_coll_sweep_choices(sc_coll_run_t *run, sc_err_t *err);

/* The size after size in the sweep (-f, -i). */
uint64_t sc_coll_next_size(const sc_coll_opts_t *o, uint64_t size);
/* --concurrent LIST (tp, dp, a2a, all) into run->concurrent, the kinds the launch cannot run
 * refused (named) or, from all, left out - fewer than two is bad usage - and the options it is
 * not held with refused; --tp without it too (sc_drive_coll_concurrent.c). */
sc_status_t sc_coll_concurrent_setup(sc_coll_run_t *run, sc_err_t *err);
/* Every size of the sweep with each kind alone and all at once: traffic rows and their
 * checks in run->doc (rank 0). Collective. */
sc_status_t sc_coll_sweep_concurrent(sc_coll_run_t *run, unsigned kinds, sc_err_t *err);

#endif
