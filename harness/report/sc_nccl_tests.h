/* sc_nccl_tests.h - `coll --nccl-tests-output` and `-J`: a sweep printed exactly as nccl-tests
 * prints it (its header, device lines, table and footer, column for column, from nccl-tests
 * 2.19's src/util.cu), and its JSON file, so that the parsers and spreadsheets built around
 * nccl-tests read scalecheck's runs unchanged. docs/accept.md ("nccl-tests habits") says what
 * differs.
 */
#ifndef SC_NCCL_TESTS_H
#define SC_NCCL_TESTS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/sc_engine.h"
#include "record/sc_record.h"
#include "rte/sc_rte.h"
#include "session/sc_results.h"

/* What nccl-tests' header states about a run, and what scalecheck adds (as '#' lines). */
typedef struct {
    uint64_t min_bytes, max_bytes;
    double step; /* the factor, or bytes when !step_is_factor */
    bool step_is_factor;
    int warmup, iters, agg_iters, check_iters, graph_launches, blocking, parallel_init;
    bool per_iter, timestamps, cputime;
    int nccl_headers, nccl_library; /* NCCL_VERSION_CODE; 0: no NCCL in this run */
    const char *statistic, *combine;
    int combine_number; /* -a's number */
    const char *results_dir;
    char start_time[24]; /* local, as nccl-tests writes it (sc_nt_now at the run's start) */
} sc_nt_config_t;

/* The local time as nccl-tests writes it ("2026-12-01 23:34:27"). */
void sc_nt_now(char *buf, size_t len);

/* The version of nccl-tests whose layout this is, and of its JSON file. */
#define SC_NT_VERSION      "2.19.6"
#define SC_NT_JSON_VERSION 3

/* nccl-tests' name of a type ("half"); a collective's program is its sc_coll_t's nccl_tests. */
const char *sc_nt_type(sc_dtype_t dtype);

/* A rank's device as nccl-tests lists it (a rank on the host path: device -1, its MPI). */
typedef struct {
    int rank, pid, device;
    char host[64], bus[32], name[224];
} sc_nt_device_t;
void sc_nt_device(const sc_rte_t *rte, int r, const sc_kvs_t *rank_info, sc_nt_device_t *out);

/* From "# nccl-tests version" to the column titles; rank_info (per rank, may be NULL) and the
 * hosts of rte give the device lines. */
void sc_nt_header(sc_results_t *res, const sc_nt_config_t *cfg, const char *program,
                  const sc_rte_t *rte, const sc_kvs_t *rank_info);
/* One row: out of place, then in place (NULL: not run). */
void sc_nt_row(sc_results_t *res, const sc_nt_config_t *cfg, const sc_case_t *c,
               const sc_case_result_t *out_of_place, const sc_case_result_t *in_place);
/* "# Out of bounds values" to "# Collective test concluded"; memory_bytes > 0 adds -M's line;
 * min_avg_busbw > 0 (NCCL_TESTS_MIN_BW) marks the average OK or FAILED (below 90 % of it). */
void sc_nt_footer(sc_results_t *res, const char *program, uint64_t wrong, double avg_busbw,
                  double min_avg_busbw, uint64_t memory_bytes);
/* "OK" or "FAILED" of an average bus bandwidth against NCCL_TESTS_MIN_BW, "" without one. */
const char *sc_nt_min_bw_word(double avg_busbw, double min_avg_busbw);

/* -J: nccl-tests' JSON document (version 3) of the rows (sc_case_row_t, both halves of a size
 * in turn, as cmd_coll records them), written through a temporary file. */
sc_status_t sc_nt_write_json(const char *path, const sc_nt_config_t *cfg, const char *program,
                             int argc, char **argv, const sc_rte_t *rte, const sc_kvs_t *rank_info,
                             const sc_case_row_t *rows, size_t nrows, sc_err_t *err);

#endif
