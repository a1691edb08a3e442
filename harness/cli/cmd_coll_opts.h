/* cmd_coll_opts.h - the options of `scalecheck coll`, declared once in a table
 * (cmd_coll_opts.c) that drives parsing and --help. */
#ifndef SC_CMD_COLL_OPTS_H
#define SC_CMD_COLL_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/sc_cli.h"
#include "engine/sc_engine.h"

typedef struct {
    uint64_t min_bytes, max_bytes;
    double factor;
    uint64_t step_bytes;
    bool factor_set, step_set;
    sc_engine_opts_t eng;
    int root;
    /* what -o, -d and --collective chose: one bit per reduction, type and collective (its
     * index in sc_coll_list()); "all" sets every bit, "a,b" the bits of a and b */
    uint32_t ops, types, colls;
    bool all_types, all_colls;
    const char *backend;
    const char *topology; /* expectations per case and the verdict */
    const char *baseline; /* known-good runs every case is also held to */
    const char *algo;     /* --algo: forced on NCCL (NCCL_ALGO) and in the model */
    const char *json_path, *csv_path, *results_base, *name;
    double timeout_s;
    double telemetry_s;
    int device;
    int looks; /* a case slower than the topology allows is measured up to this often */
    bool help, no_preflight;
    const char *metrics_path; /* --metrics */
} sc_coll_opts_t;

/* The defaults, then argv[first..) parsed and checked against nranks. SC_ERR_USAGE naming the
 * flag on the first problem. */
sc_status_t sc_coll_opts_parse(sc_coll_opts_t *o, int argc, char **argv, int first, int nranks,
                               sc_err_t *err);
void sc_coll_opts_help(FILE *out);

#endif
