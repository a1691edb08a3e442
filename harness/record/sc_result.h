/* sc_result.h - one run's result document as a record: what ran (the header), what it
 * measured (coll's case rows, run's points and all-reduce sweep, pairs' matrix), what the judge
 * made of it (checks, findings, localisation) and where it ended (state). Every measuring
 * command fills one; report/sc_json_out writes it as result.json, report/sc_json_in reads one
 * back (for `scalecheck report`). */
#ifndef SC_RESULT_H
#define SC_RESULT_H

#include "record/sc_common_opts.h"
#include "record/sc_health.h"
#include "record/sc_hostcfg.h"
#include "record/sc_record.h"
#include "record/sc_soak.h"

/* A list its producer writes while the document is written (report/sc_json_out.h): a fleet's
 * rows judged as they are read and never held. write puts each element with sc_json_list_put;
 * false: it failed, and the document is not written. */
typedef struct sc_list_out sc_list_out_t;
typedef struct sc_list_source {
    bool (*write)(sc_list_out_t *out, void *ctx);
    void *ctx;
} sc_list_source_t;

typedef struct {
    /* header: its scalar fields listed in sc_result_header_fields (written and read by it) */
    char command[16]; /* "coll", "run", "pairs" */
    char version[32];
    char state[16];      /* "running", "complete", "failed", "interrupted" */
    char reason[640];    /* why it ended when it did not complete ("" otherwise) */
    char at_fault[1024]; /* the ranks and hosts the progress records point at, or "" */
    double elapsed_s;    /* from the start to the last save (absent: NaN) */
    /* while running: the file beside result.json that holds the rows so far, a line each,
     * appended as each finishes (coll: "results.jsonl"); "" once the rows are in the document */
    char journal[32];
    /* the journal holds every row of `cases`, in order, and went to the kernel: the final
     * document copies its lines (each row formatted once, as its case ended) */
    bool journal_whole;
    char start_utc[32];
    char results_dir[PATH_MAX];
    char backend[16];
    char backend_note[512];
    int ranks, nhosts;
    char **argv;                     /* NULL-terminated, or NULL */
    char (*hosts)[SC_HOST_MAX];      /* nhosts names, or NULL */
    char (*rank_hosts)[SC_HOST_MAX]; /* ranks names, or NULL */
    sc_kvs_t libraries, options;
    sc_kvs_t *rank_info; /* ranks lists, or NULL */
    /* the shared options the run was given (record/sc_common_opts.h); the header's field table
     * says which of them result.json records */
    sc_common_opts_t asked;
    /* run: its scalar fields listed in sc_result_run_fields */
    char workload[64], workload_file[PATH_MAX], topology[64];
    double bytes_scale, compute_scale;
    int steps, warmup;
    sc_points_t points;
    sc_case_rows_t sweep; /* run --sweep; coll's rows are `cases` */
    /* coll */
    sc_case_rows_t cases;
    uint64_t wrong_total;
    double avg_busbw_GBps;
    /* pairs */
    int npairs_nodes;
    char (*pair_names)[SC_HOST_MAX + 16];
    double *uni, *uni_first, *bidir, *latency; /* npairs_nodes^2 each */
    sc_pair_rows_t pairs;
    sc_group_rows_t groups; /* the bisect search's group all-reduces */
    /* coll --concurrent, pairs --background: each victim alone and under load */
    sc_traffic_rows_t traffic;
    /* node: the PCIe tree, each rank's place, host memory per NUMA node */
    sc_node_rows_t node;
    sc_localization_t localization;
    bool has_localization;
    char mode[16], per[16], method[16], strategy[16];
    int pair_rounds, pairs_measured; /* what the strategy took */
    int pair_busy_rounds; /* rounds of later looks not counted: their control pair dropped too */
    uint64_t pair_size_bytes;
    int pair_iters, looks;
    /* judged */
    bool judged; /* checks were made (a topology or the matrix): the verdict exists */
    sc_checks_t checks;
    /* what could not be checked ("; "-separated, "" none): a limit no sensor reported, a drift
     * over too few cycles - said beside the verdict in every output, never taken for a PASS */
    char not_checked[512];
    /* At fleet scale (judge and report of a million rows) `cases` and `checks` hold only the
     * ones shown (record/sc_shown.h): every one stays in result.json, or in the files below
     * when this document is the one that writes it: the rows a JSON object a line each (a
     * journal's), the checks as result.json joins them (sc_json_joined_put). */
    size_t cases_unlisted; /* rows not in `cases` */
    sc_tally_t unlisted;   /* checks not in `checks` */
    char cases_file[PATH_MAX], checks_file[PATH_MAX];
    /* or the rows written by their producer as result.json is (the verdict after them) */
    const sc_list_source_t *cases_source;
    sc_findings_t findings;
    bool has_findings;
    sc_hostcfgs_t preflight; /* each host's configuration, when preflight ran (rank 0) */
    /* soak: the cycles (every launch's, from the journal), the duration asked for, the soak
     * time done, the launches (1 + resumes) */
    sc_soak_cycles_t soak;
    double soak_duration_s, soak_s;
    int soak_launches;
    /* telemetry per host, or NULL when not sampled */
    sc_health_t *health;
    int nhealth;
} sc_result_t;

/* The result header's scalar fields, in the order result.json gives them: the writer
 * (report/sc_json_doc.c) and the reader (report/sc_json_in.c) walk this one table, so a header
 * field is the field above and one row (record/sc_result.c). */
extern const sc_field_t sc_result_header_fields[];
/* The states a run may be in ("running", "complete", "failed", "interrupted"), NULL-ended. */
extern const char *const sc_result_states[];
/* run's scalar fields (the workload, its scales, the steps), written for run documents only. */
extern const sc_field_t sc_result_run_fields[];

/* An empty document for command (every list empty, every figure absent). */
void sc_result_init(sc_result_t *r, const char *command);
/* Whether the run did not reach "complete" (failed, interrupted, or still "running": ended
 * without a word). */
bool sc_result_incomplete(const sc_result_t *r);
/* Whether a rank wrote the run's final state: complete, failed or interrupted (not "running"). */
bool sc_result_final(const sc_result_t *r);
/* The verdict's tally over every check: those in r->checks and those left unlisted. */
sc_tally_t sc_result_tally(const sc_result_t *r);
/* The run's verdict, the one every output says: its checks' (sc_tally_kind), FAIL whatever the
 * machine was doing when data came back wrong or a suspect was named, PASS when nothing was
 * judged and nothing went wrong. Its exit code is sc_verdict_row(v)->exit_code. */
sc_verdict_t sc_result_verdict(const sc_result_t *r);
/* Frees pairs' matrices and names (kept NULL): a document filled again from a finished matrix. */
void sc_result_free_matrix(sc_result_t *r);
/* Frees everything the document holds (not the telemetry's own records: see sc_health_free). */
void sc_result_free(sc_result_t *r);

#endif
