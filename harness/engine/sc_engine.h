/* sc_engine.h - times one collective case (collective, type, op, root, size, in/out of place)
 * on a communicator, iteration by iteration, and checks its data. The sweep over sizes, types
 * and collectives lives in the command that uses it; patterns of later issues reuse the same
 * timing and combination rules. */
#ifndef SC_ENGINE_H
#define SC_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "coll/sc_coll.h"
#include "comm/sc_backend.h"
#include "engine/sc_watchdog.h"
#include "util/sc_stats.h"

/* How per-rank iteration times combine into the iteration's time (-a). */
#define SC_COMBINE_MAP(X) X(rank0) X(avg) X(min) X(max)
typedef enum {
#define SC__COMBINE_ENUM(name) SC_COMBINE_##name,
    SC_COMBINE_MAP(SC__COMBINE_ENUM)
#undef SC__COMBINE_ENUM
        SC_COMBINE_COUNT
} sc_combine_t;

/* Which statistic of the per-iteration times the time and the bandwidths come from (--stat):
 * the median resists a stray slow iteration; nccl-tests reports the mean. */
#define SC_STAT_MAP(X) X(median) X(mean)
typedef enum {
#define SC__STAT_ENUM(name) SC_STAT_##name,
    SC_STAT_MAP(SC__STAT_ENUM)
#undef SC__STAT_ENUM
        SC_STAT_COUNT
} sc_stat_t;

const char *sc_stat_name(sc_stat_t stat);
sc_status_t sc_stat_parse(const char *text, const char *flag, sc_stat_t *out, sc_err_t *err);

const char *sc_combine_name(sc_combine_t combine);
/* Accepts the names above or nccl-tests' numbers (0 rank0, 1 avg, 2 min, 3 max). */
sc_status_t sc_combine_parse(const char *text, const char *flag, sc_combine_t *out, sc_err_t *err);

typedef struct {
    int iters;            /* timed iterations per case; 0 = auto (-n auto) */
    int warmup;           /* untimed iterations first */
    int check_iters;      /* data-check iterations after timing (0 = no check) */
    double target_ci;     /* auto: stop when the median's 95 % CI half-width <= this fraction */
    double size_budget_s; /* auto: stop after this long on one case regardless */
    int min_iters;        /* auto: never fewer */
    int max_iters;        /* auto: never more */
    sc_combine_t combine;
    sc_stat_t statistic;
    uint64_t seed;
    int agg_ops;        /* -m: operations per timed iteration, fused where the backend can */
    int graph_launches; /* -G: an iteration's operations captured once into a CUDA graph and
                           launched this often per timed iteration (0 = no graph) */
    int host_time;      /* -C (0/1): times from the host clock even where the device has events */
    bool barrier_each;  /* -z 1, 3: a barrier after every timed iteration, outside its time */
} sc_engine_opts_t;

/* scalecheck's defaults; nccl_tests: those of nccl-tests (the mean, averaged over ranks), for
 * --nccl-tests-output, where figures must compare with nccl-tests' own. */
void sc_engine_opts_default(sc_engine_opts_t *opts);
void sc_engine_opts_nccl_tests(sc_engine_opts_t *opts);

typedef struct {
    const sc_coll_t *coll;
    sc_dtype_t dtype;
    sc_redop_t op;
    int root;
    bool in_place;
    size_t count;        /* per-rank count (sc_coll_args_t convention) */
    uint64_t size_bytes; /* the size the bandwidths are computed from */
} sc_case_t;

typedef struct {
    /* Per-iteration times combined across ranks, in microseconds: time_us from device events
     * where the backend has them (GPU), else the host clock; host_time_us always the host. */
    sc_stats_t time_us;
    sc_stats_t host_time_us;
    bool device_timed;
    double time_stat_us; /* time_us's median or mean (opts' statistic): the bandwidths' time */
    size_t iterations;
    bool checked;
    uint64_t wrong; /* mismatching elements summed over ranks and check iterations */
    double algbw_GBps;
    double busbw_GBps;
    sc_lib_choice_t choice; /* what the library chose for it, where it says (this rank's view) */
    /* rank 0: the rank that held the others up (util/sc_stats.h), its world rank (-1: none
     * known) */
    sc_straggler_t straggler;
    int straggler_rank;
    char straggler_host[SC_HOST_MAX];
} sc_case_result_t;

typedef struct sc_engine sc_engine_t;

/* The engine times operations on comm; control is the MPI communicator (same ranks) it uses
 * for its own bookkeeping (combining times, summing #wrong). wd may be NULL. */
sc_status_t sc_engine_create(sc_comm_t *comm, MPI_Comm control, const sc_engine_opts_t *opts,
                             sc_watchdog_t *wd, sc_engine_t **out, sc_err_t *err);
void sc_engine_destroy(sc_engine_t *eng);

/* Fills c->count and c->size_bytes from a requested size in bytes. Returns false when the size
 * is too small for one element per rank. */
bool sc_engine_shape_case(const sc_engine_t *eng, sc_case_t *c, uint64_t requested_bytes);

/* The bytes of buffers (send and receive) this rank needs for case c (shaped). */
uint64_t sc_engine_case_bytes(const sc_engine_t *eng, const sc_case_t *c);

/* Whether the backend runs this case (type, in place) at all. */
bool sc_engine_supports(const sc_engine_t *eng, const sc_case_t *c);

sc_status_t sc_engine_run_case(sc_engine_t *eng, const sc_case_t *c, sc_case_result_t *out,
                               sc_err_t *err);

#endif
