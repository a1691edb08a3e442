/* sc_record.h - what scalecheck measures and judges, as typed C records: a collective case's
 * row, a point of the scaling curve, a pair of the point-to-point matrix, a check, a finding,
 * the localisation, and the result document that holds them. Measurement fills them, the judge
 * reads and adds to them, and only the edge (report/sc_json_*) turns them into JSON, CSV, JUnit
 * or HTML - or reads a result file back into them.
 *
 * Each record's scalar fields are also described once, in a field table (sc_record_fields.c):
 * name, kind and offset. The JSON writer, the CSV writer, the HTML table and the JSON reader all
 * walk that table, so a column is added in one place. */
#ifndef SC_RECORD_H
#define SC_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rte/sc_rte.h"
#include "util/sc_status.h"

/* An optional figure that is absent (no expectation without a topology): NaN, left out of
 * JSON and empty in CSV. */
#define SC_ABSENT (__builtin_nan(""))
bool sc_present(double v);

/* ---- checks and the verdict ---- */
typedef enum { SC_LEVEL_PASS, SC_LEVEL_WARN, SC_LEVEL_FAIL } sc_level_t;
const char *sc_level_name(sc_level_t level); /* "PASS", "WARN", "FAIL" */
/* The level of a name ("PASS"...); -1 when it is none of them. */
int sc_level_parse(const char *name);

typedef struct {
    char name[192];
    char metric[24];
    double measured, expected, ratio, tolerance;
    double fail_tolerance; /* FAIL below 1 - fail_tolerance (WARN between) */
    sc_level_t level;
    char source[32]; /* "model", "claim", "topology", "matrix median", ... */
    bool higher_is_better;
    int looks;      /* measurements of the figure (best kept); 1 unless it was looked at again */
    char note[128]; /* why a level is what it is, when it is not the plain band ("" none) */
    /* a check of the machine itself (the reference probe): not PASS, it says something else
     * was running while the run measured, and a FAIL beside it is no verdict on the system */
    bool disturbance;
    double measure_s; /* the wall time measuring its figure took (JUnit's time); absent: none */
} sc_check_t;

typedef struct {
    int checks, pass, warn, fail;
    sc_level_t level;  /* the worst of them */
    bool inconclusive; /* a FAIL while a disturbance check did not pass (sc_check_t) */
    bool disturbed;    /* a disturbance check did not pass */
} sc_tally_t;

/* What an INCONCLUSIVE verdict means, said the same in the table and the HTML. */
#define SC_INCONCLUSIVE_TEXT                                                                       \
    "a disturbance check did not pass (something else ran, or a host could not place the "         \
    "ranks): the machine was disturbed while it measured, so its FAILs are no verdict on the "     \
    "system"
/* c counted into t (its level and inconclusive kept up to date): a tally made a check at a time,
 * for checks streamed past and never held. */
void sc_tally_add(sc_tally_t *t, const sc_check_t *c);
/* The tally of a's checks and b's together. */
sc_tally_t sc_tally_sum(sc_tally_t a, sc_tally_t b);

/* The verdicts a run can end with, listed once: what each is called, the exit code it leaves,
 * the value metrics export, and what JUnit makes of it. Every output (the table, result.json,
 * JUnit, metrics, the report, the soak journal, help) takes them from here.
 * name, exit code, JUnit, meaning */
#define SC_VERDICT_MAP(X)                                                                          \
    X(PASS, SC_EXIT_GOOD, "passed", "every check passed")                                          \
    X(WARN, SC_EXIT_GOOD, "passed, the warning in the suite's system-out",                         \
      "no check failed; some were off by more than their warning band")                            \
    X(FAIL, SC_EXIT_FAILED, "a failure", "a check failed")                                         \
    X(INCONCLUSIVE, SC_EXIT_INCONCLUSIVE, "an error",                                              \
      "checks failed while a disturbance check did not pass: no verdict on the system")

typedef enum {
#define SC__VERDICT_ENUM(name, code, junit, meaning) SC_VERDICT_##name,
    SC_VERDICT_MAP(SC__VERDICT_ENUM)
#undef SC__VERDICT_ENUM
        SC_VERDICT_COUNT
} sc_verdict_t;

typedef struct {
    const char *name; /* "PASS" ... */
    int exit_code;
    const char *junit, *meaning;
} sc_verdict_row_t;
/* The verdict's row; its metric value is the verdict itself (0 PASS .. 3 INCONCLUSIVE). */
const sc_verdict_row_t *sc_verdict_row(sc_verdict_t v);
/* "0 PASS, 1 WARN, 2 FAIL, 3 INCONCLUSIVE" (what metrics export) into buf (returned). */
const char *sc_verdict_values_line(char *buf, size_t len);

/* The verdict a tally gives: FAIL measured on a disturbed machine is INCONCLUSIVE (the run
 * says nothing of the system). */
sc_verdict_t sc_tally_kind(sc_tally_t t);
/* Its name: "PASS", "WARN", "FAIL" or "INCONCLUSIVE". */
const char *sc_tally_verdict(sc_tally_t t);

/* ---- declared vs detected, hosts set up differently (preflight) ---- */
typedef struct {
    char severity[16];
    char what[256];
    double declared, detected;
    char host[SC_HOST_MAX];
} sc_finding_t;

/* ---- one collective case (coll's rows, run's all-reduce sweep) ---- */
typedef struct {
    char collective[24];
    uint64_t size_bytes, count, count_per_rank;
    char dtype[16], op[16];
    int root; /* -1: the collective has no root */
    bool in_place;
    double time_us, time_us_min, time_us_max, time_us_p99, time_us_mean, cv;
    double ci95_lo_us, ci95_hi_us, ci95_rel;
    double algbw_GBps, busbw_GBps, busbw_factor;
    bool checked;
    uint64_t wrong, iterations;
    char timer[8]; /* "device" or "host" */
    double host_time_us, host_time_us_p99;
    /* with a topology */
    double expected_time_us, expected_busbw_GBps; /* SC_ABSENT without */
    char algorithm[32];
    int looks; /* times the case was measured (the best kept): 1, more when it was off */
    double slowest_look_us; /* the slowest look's median (SC_ABSENT: measured once) */
    int cycle;              /* coll -N: the sweep it belongs to, from 1 */
    /* what the library chose (NCCL, through its profiler plugin); "" and 0 where unknown */
    char nccl_algo[16], nccl_proto[16];
    int nccl_channels;
    /* coll --algo/--proto lists: the combination asked for ("NCCL_ALGO=Tree NCCL_PROTO=LL") */
    char nccl_asked[80];
    /* the rank that came last to the case's operations ("rank 2 (host h3)", "" none measurably
     * late), how much later than the ranks' median, and the time the case would take without
     * that (its own time down to the next slowest rank's); SC_ABSENT unknown */
    char slowest[SC_HOST_MAX + 24];
    double slowest_lag_us, time_without_slowest_us;
} sc_case_row_t;

/* The most a bandwidth figure can be: 100 TB/s, 50x the fastest GPU link of 2026 (NVLink 5,
 * 1.8 TB/s a GPU). Past it a figure is planted or broken, never measured. */
#define SC_GBPS_MAX 1e5
/* Why a measured row cannot be real (into why, returned), or NULL: a time that is not positive
 * or past ~116 days, a bandwidth negative or past SC_GBPS_MAX, a bus bandwidth more than twice
 * the algorithm bandwidth (no collective's factor reaches 2), or - given with_size - an
 * algorithm bandwidth that is not size / time (to the 2 decimals logs print, or 2 %). */
/* A row another tool measured, before its figures are read: every figure it may not give (the
 * iterations' spread, the host's clock, the model's expectation) absent, not 0 - an nccl-tests
 * row says nothing of its fastest iteration, and result.json must not say 0 for it. */
sc_case_row_t sc_case_row_foreign(bool in_place);
const char *sc_case_row_implausible(const sc_case_row_t *row, bool with_size, char *why,
                                    size_t len);

/* ---- one point of the scaling curve ---- */
#define SC_POINT_OPS 16 /* operation kinds counted per step (>= SC_PLAN_OP_COUNT) */
typedef struct {
    char op[24];         /* "tp.allreduce", "pp.send", ... */
    double calls, bytes; /* per step: bytes as the plan sizes them */
    double sent_bytes;   /* per step: what was handed to the backend (after --bytes-scale) */
} sc_op_count_t;

typedef struct {
    int rank, d, p, t;
    int *tp_group, *pp_group, *dp_group; /* world ranks; sizes in the point (tp, pp, dp) */
    double compute_tflops;               /* what its products reached (NaN: none ran) */
    char device[128];                    /* its GPU in words ("" on the host path) */
} sc_grid_row_t;

typedef struct {
    int gpus, nodes, dp, tp, pp, micro_batches, steps;
    double step_time_ms, step_time_p99_ms, step_time_cv;
    double throughput, speedup, efficiency, comm_fraction;
    int slowest_rank;
    char slowest_host[SC_HOST_MAX];
    double slowest_rank_mean_ms; /* its mean step in its own work: the step less communication */
    /* how much more than the ranks' median that is, and the step without it (its own work
     * down to the next slowest rank's); SC_ABSENT on one rank */
    double slowest_lag_ms, step_without_slowest_ms;
    int looks;        /* times the point was measured (the fastest kept): 1, more when it was off */
    double measure_s; /* the wall time its looks took, on rank 0 (JUnit's time for its check) */
    sc_op_count_t comm[SC_POINT_OPS];
    int ncomm;
    sc_grid_row_t *grid; /* one row per rank of the point, or NULL */
    int ngrid;
    /* the model's expectation for the declared topology, and for what is really there */
    double expected_step_time_ms, expected_speedup, expected_efficiency;
    double expected_step_time_ms_detected, expected_speedup_detected, expected_efficiency_detected;
    /* The products, where they ran (compute.mode flops on a GPU; absent otherwise): the median
     * rank's TFLOP/s and the slowest's, who that is; the step's compute and its communication
     * each run alone (the slowest rank's), and the share of the shorter one the overlap hid
     * ((compute + communication - step) / the shorter, 0 to 1). */
    double compute_tflops, compute_tflops_min;
    int slowest_compute_rank;
    char slowest_compute_device[192]; /* "host h: GPU 0 NVIDIA H200 (0000:1b:00.0)" */
    double compute_alone_ms, comm_alone_ms, overlap_efficiency;
} sc_point_t;

/* A point with every expectation absent. */
void sc_point_init(sc_point_t *p);

/* The point a curve is measured against: the first one that ran (gpus 0: none yet). */
typedef struct {
    double work_rate; /* its work a second: samples/s x a sample's FLOPs */
    int gpus;
} sc_scale_base_t;

/* Speedup and scaling efficiency of a point by the work done: samples/s x a sample's work
 * (training FLOPs; 0: not known, a sample counts 1). Speedup is the work a second over the
 * base's, efficiency the work a second a GPU over the base's (1.0 is linear scaling); the first
 * point given becomes the base. With a fixed model that is samples/s over the base's and that
 * over the growth in GPUs; where the model grows with the GPUs (batch.scaling model: weak
 * scaling) a sample's FLOPs grow too, and the efficiency is per FLOP, as published weak-scaling
 * tables give it (Megatron-LM: FLOP/s a GPU). */
void sc_scaling(sc_scale_base_t *base, double throughput, double work_per_sample, int gpus,
                double *speedup, double *efficiency);

/* ---- the point-to-point matrix ---- */
typedef struct {
    char a[SC_HOST_MAX + 16], b[SC_HOST_MAX + 16];
    double uni_ab_GBps, uni_ba_GBps, bidir_GBps, latency_us;
    int looks;
    sc_level_t level;
} sc_pair_row_t;

typedef struct {
    char a[SC_HOST_MAX + 16], b[SC_HOST_MAX + 16];
    double GBps;
} sc_slow_pair_t;

typedef struct {
    char kind[8]; /* "node", "link" or "switch" */
    char where[2 * SC_HOST_MAX + 40];
    char evidence[256];
} sc_suspect_t;

typedef struct {
    double reference_GBps, best_GBps, tolerance;
    double strong_GBps; /* the 90th percentile of the pairs: the median's doubt is held to it */
    sc_slow_pair_t *slow_pairs;
    int nslow;
    sc_suspect_t *suspects;
    int nsuspects;
    char reference_note[320]; /* "": the reference is fair */
} sc_localization_t;

void sc_localization_free(sc_localization_t *l);

/* A group all-reduce of the bisect search: its members, the bus bandwidth it reached (best
 * look) and whether that was slow. */
typedef struct {
    char members[256];             /* "h1 h2 h3 h4", cut short with "..." on a large group */
    int first, size, round, looks; /* first: its first participant (0-based) */
    double busbw_GBps;
    bool slow; /* below the slow line at every look */
    sc_level_t level;
} sc_group_row_t;

/* scalecheck node: one fact of a host inside the node - a device's PCIe link, the NIC nearest a
 * GPU, whether GPUDirect RDMA can work there, a rank's placement and the NIC it uses, a NUMA
 * node's memory bandwidth, a copy between host and GPU, within a GPU or between two - and what
 * it is held to (the level). */
typedef struct {
    char host[SC_HOST_MAX];
    char kind[16];    /* "link", "gpu-nic", "gpudirect", "rank", "memory", "h2d", "h2d-all",
                         "h2d-numa", "d2h", "d2h-all", "d2h-numa", "hbm", "peer", "peer-both",
                         "peer-sm-read", "peer-sm-write", "nic" */
    char what[64];    /* "GPU 3 0000:5d:00.0", "rank 2", "NUMA node 1" */
    char detail[192]; /* "Gen5 x8 of Gen5 x16", "mlx5_3 (PIX)", "CPUs on node 1, GPU 2 on 0" */
    int numa;         /* the NUMA node it sits on (-1: not known) */
    double measured_GBps, expected_GBps; /* a link's rate now and at most; memory (absent: none) */
    sc_level_t level;
} sc_node_row_t;

/* Traffic that collides (coll --concurrent, pairs --background): one victim - a group's
 * collective, or a pair, or the pairs of a host, leaf or spine - measured alone and under the
 * load of the others (docs/endings.md, "Traffic that collides"). */
typedef struct {
    char kind[16];   /* coll: "tp", "dp", "a2a"; pairs: "pair", "host", "leaf", "spine" */
    char group[160]; /* who: its hosts ("h1 h2"), a pair ("h1>h3"), a leaf's name */
    char coll[16];   /* what it ran: allreduce, alltoall, send */
    uint64_t size_bytes;
    int ranks;                      /* in the group (a pair: 2; a host or leaf: its pairs) */
    double alone_us, loaded_us;     /* one operation's median time, alone and under load */
    double alone_GBps, loaded_GBps; /* bus bandwidth (a pair: one way) alone and under load */
    double slowdown;                /* loaded / alone time */
    /* loaded time over the fastest loaded group of its kind and size (absent: no peer): a
     * group on a slow leaf is slowed against its peers under the same load */
    double vs_peers;
    sc_level_t level;
} sc_traffic_row_t;

/* ---- a compute phase on one rank (`scalecheck compute`) ---- */
typedef struct {
    char dtype[16]; /* gemm */
    int size, iters;
    double seconds, tflops;
    char device[128]; /* the rank's GPU in words ("" on the host path) */
    /* the corruption check (compute/sc_compute.h): the result's digest, the elements held to
     * the fp64 reference, those past the bound, the worst against its bound, the first wrong */
    uint64_t digest;
    int check_size, check_sampled, check_wrong;
    double check_worst;
    long long check_first_wrong;
    double requested_us, mean_us, median_error_us, worst_error_us; /* spin */
    int repeats;
} sc_compute_row_t;

/* ---- the model's predictions (`scalecheck model`) ---- */
typedef struct {
    char collective[24];
    uint64_t size_bytes;
    int gpus, nodes;
    char algorithm[32];
    char protocol[16]; /* NCCL's protocol priced ("" none) */
    double time_us, algbw_GBps, busbw_GBps;
} sc_prediction_row_t;

typedef struct {
    int gpus, nodes, dp, tp, pp;
    double compute_ms, comm_ms, step_time_ms, throughput, speedup, efficiency;
} sc_model_point_t;

/* ---- growable lists ---- */
#define SC_LIST(type)                                                                              \
    struct {                                                                                       \
        type *items;                                                                               \
        size_t n, cap;                                                                             \
    }
typedef SC_LIST(sc_check_t) sc_checks_t;
typedef SC_LIST(sc_finding_t) sc_findings_t;
typedef SC_LIST(sc_case_row_t) sc_case_rows_t;

/* ---- a result another tool wrote (nccl-tests, OSU), read back for `judge` ---- */
typedef struct {
    char path[PATH_MAX];
    char tool[24];       /* "nccl-tests", "nccl-tests -J", "osu" */
    char collective[24]; /* scalecheck's name for what it measured */
    char read_as[256];   /* how the file was read, in words (its format, what was inferred) */
    int gpus, nodes;     /* ranks and distinct hosts; 0 when the file does not say */
    char dtype[16];      /* OSU: the element type its header names ("" until read) */
    sc_case_rows_t rows; /* empty when the rows were handed to a visitor (ingest/sc_ingest.h) */
    size_t nrows;        /* the rows read, kept or handed on */
} sc_foreign_t;
typedef SC_LIST(sc_point_t) sc_points_t;
typedef SC_LIST(sc_pair_row_t) sc_pair_rows_t;
typedef SC_LIST(sc_group_row_t) sc_group_rows_t;
typedef SC_LIST(sc_traffic_row_t) sc_traffic_rows_t;
typedef SC_LIST(sc_node_row_t) sc_node_rows_t;
typedef SC_LIST(sc_prediction_row_t) sc_prediction_rows_t;
typedef SC_LIST(sc_model_point_t) sc_model_points_t;

/* A new zeroed element at the end of a list (NULL when memory is short). */
void *sc_list_push(void *list, size_t elem_size);
#define SC_LIST_PUSH(list) sc_list_push((list), sizeof(*(list)->items))
/* Frees the items (not what they point to). */
void sc_list_free(void *list);

sc_tally_t sc_checks_tally(const sc_checks_t *checks);

/* ---- named values (libraries, options, a rank's backend) ---- */
typedef struct {
    char key[64];
    char text[192]; /* when !is_number */
    double number;
    bool is_number;
} sc_kv_t;
typedef SC_LIST(sc_kv_t) sc_kvs_t;

void sc_kvs_text(sc_kvs_t *kvs, const char *key, const char *text);
void sc_kvs_number(sc_kvs_t *kvs, const char *key, double number);
/* The first value named key (NULL: none, or kvs NULL). */
const sc_kv_t *sc_kvs_find(const sc_kvs_t *kvs, const char *key);

/* ---- the field tables: one description of each record's scalar fields ---- */
typedef enum {
    SC_FIELD_INT,      /* int */
    SC_FIELD_U64,      /* uint64_t */
    SC_FIELD_I64,      /* long long (a counter, -1: not reported) */
    SC_FIELD_DOUBLE,   /* double */
    SC_FIELD_OPTIONAL, /* double, absent when NaN */
    SC_FIELD_BOOL,     /* bool */
    SC_FIELD_TEXT,     /* char[] */
    SC_FIELD_TEXT_OPT, /* char[], absent when empty */
    SC_FIELD_LEVEL,    /* sc_level_t, as "PASS"/"WARN"/"FAIL" */
} sc_field_kind_t;

enum { SC_SHOW_CSV = 1, SC_SHOW_HTML = 2 };

typedef struct {
    const char *name; /* the JSON key and the CSV column */
    sc_field_kind_t kind;
    size_t offset, size; /* size: of a text field's array */
    unsigned show;       /* SC_SHOW_*: also a CSV column, an HTML column */
    /* a text field's values, NULL-ended: a reader refuses any other (NULL: any text) */
    const char *const *choices;
} sc_field_t;

/* Each table ends with a field whose name is NULL. */
extern const sc_field_t sc_case_row_fields[];
extern const sc_field_t sc_point_fields[];
extern const sc_field_t sc_check_fields[];
extern const sc_field_t sc_finding_fields[];
extern const sc_field_t sc_pair_row_fields[];
extern const sc_field_t sc_group_row_fields[];
extern const sc_field_t sc_traffic_row_fields[];
extern const sc_field_t sc_node_row_fields[];
extern const sc_field_t sc_gemm_row_fields[]; /* sc_compute_row_t, --mode gemm */
extern const sc_field_t sc_spin_row_fields[]; /* sc_compute_row_t, --mode spin */
extern const sc_field_t sc_prediction_row_fields[];
extern const sc_field_t sc_model_point_fields[];

/* A field's value as a double (numbers, bools, levels), NaN for text or an absent figure. */
double sc_field_number(const sc_field_t *f, const void *record);
/* A text field's value (a level by its name); NULL for a number. */
const char *sc_field_text(const sc_field_t *f, const void *record);
/* Whether the field has a value in this record (optional ones may not). */
bool sc_field_present(const sc_field_t *f, const void *record);

/* ---- a baseline: known-good runs summarised per point (`scalecheck baseline create`) ---- */
#define SC_BASELINE_MAX_RUNS 64
typedef struct {
    char dir[PATH_MAX];
    char command[16], start_utc[32], version[32], backend[16], topology[64];
    int ranks, nhosts;
    char hosts[256];     /* "a,b,c" (cut short on a large fleet) */
    char libraries[256]; /* "name version; ..." */
} sc_baseline_run_t;

/* A figure's key: what was measured, and where. */
#define SC_FIGURE_KEY_MAX 192
typedef struct {
    /* what was measured, where: "allreduce float sum 1048576 B, 4 ranks on 2 hosts", "point 8
     * GPUs x 2 nodes (dp 16 tp 1 pp 1)", "pair a - b" */
    char key[SC_FIGURE_KEY_MAX];
    char metric[24]; /* the record field: "time_us", "step_time_ms", "bidir_GBps", ... */
    bool higher_is_better;
    double median, lo, hi;
    double spread; /* largest relative distance of a run's figure from the median */
    int count;     /* runs that measured it */
    char runs[96]; /* indices into the baseline's runs: "0 1 2" */
} sc_baseline_point_t;
typedef SC_LIST(sc_baseline_point_t) sc_baseline_points_t;
typedef SC_LIST(sc_baseline_run_t) sc_baseline_runs_t;

typedef struct {
    char created_utc[32], version[32];
    double tolerance; /* the least drop that is a finding, whatever the spread */
    sc_baseline_runs_t runs;
    sc_baseline_points_t points; /* sorted by key, then metric */
    /* or written by their maker as the file is (a million points never held) */
    const struct sc_list_source *points_source;
} sc_baseline_t;

void sc_baseline_free(sc_baseline_t *b);
extern const sc_field_t sc_baseline_point_fields[];
extern const sc_field_t sc_baseline_run_fields[];

#endif
