/* sc_drive_coll.h - `scalecheck coll` driven from what was asked (no argv to parse). */
#ifndef SC_DRIVE_COLL_H
#define SC_DRIVE_COLL_H

#include "drive/sc_drive_coll_opts.h"
#include "record/sc_record.h"
#include "report/sc_nccl_tests.h"
#include "rte/sc_rte.h"

/* The sweep whole: session, every collective x type x reduction x size with its second looks,
 * the checks, the verdict and the documents; every rank returns the exit code. argv is
 * recorded in the document only. Collective. */
int sc_drive_coll(const sc_rte_t *rte, const sc_coll_opts_t *opts, int argc, char **argv);

/* The options as the document's named values (result.json "options"). */
void sc_drive_coll_options(const sc_coll_opts_t *o, sc_kvs_t *out);
/* What nccl-tests' header and -J say of a run with these options (rank_info: rank 0's first). */
void sc_drive_coll_nt_config(const sc_coll_opts_t *o, const sc_kvs_t *rank_info,
                             const char *results_dir, sc_nt_config_t *nt);

#endif
