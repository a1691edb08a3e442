/* sc_drive_coll_opts.h - what `scalecheck coll` was asked to do (cli/cmd_coll_opts.c parses
 * argv into it; sc_drive_coll takes it). */
#ifndef SC_DRIVE_COLL_OPTS_H
#define SC_DRIVE_COLL_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/sc_engine.h"
#include "record/sc_common_opts.h"

typedef struct {
    uint64_t min_bytes, max_bytes;
    double factor;
    uint64_t step_bytes;
    bool factor_set, step_set;
    sc_engine_opts_t eng;
    int root;
    bool all_roots; /* -r all (or -1, nccl-tests' spelling): every rank in turn */
    /* what -o, -d and --collective chose: one bit per reduction, type and collective (its
     * index in sc_coll_list()); "all" sets every bit, "a,b" the bits of a and b */
    uint32_t ops, types, colls;
    bool all_types, all_colls;
    sc_common_opts_t common; /* the shared options: backend, device, files, bounds, telemetry */
    const char *topology;    /* expectations per case and the verdict */
    const char *baseline;    /* known-good runs every case is also held to */
    const char *algo;        /* --algo: forced on NCCL (NCCL_ALGO) and in the model; a list */
    const char *proto;      /* --proto: NCCL_PROTO, a list or all (drive/sc_drive_coll_choices.h) */
    const char *concurrent; /* --concurrent: tp, dp, a2a, all - timed alone and together */
    int tp;                 /* --tp: ranks in a TP group (0: a host's) */
    int looks; /* a case slower than the topology allows is measured up to this often */
    bool help;
    /* nccl-tests' flags (docs/accept.md, "nccl-tests habits"): what they mean here is in the table
     */
    int nthreads, ngpus; /* -t, -g: 1 (a rank per GPU) */
    int cycles;          /* -N: sweeps of every size, 0 = until stopped */
    int parallel_init;   /* -p: accepted (one thread per rank) */
    int blocking;        /* -z: 1 and 3 add a barrier after every timed iteration */
    int stream_null, local_register, unalign, memory_report, timestamps, per_iter, skip;
    int cta_policy, device_impl, device_ctas;
    const char *nccl_json_path; /* -J: nccl-tests' JSON */
    bool nccl_tests_output;     /* the table exactly as nccl-tests prints it */
    bool combine_set, stat_set; /* -a, --stat given: nccl-tests' defaults do not apply */
    /* NCCL_TESTS_MIN_BW (GB/s, 0 none): as nccl-tests, the run FAILs (exit 1) when the average
     * bus bandwidth is below 90 % of it */
    double min_avg_busbw;
} sc_coll_opts_t;

#endif
