/* sc_coll.h - a collective as the engine sees it: how the user's size becomes buffers, the
 * bus-bandwidth factor, which backend entry runs it, and - for the exact data check - where
 * each result element comes from. One small file per collective fills one of these. */
#ifndef SC_COLL_H
#define SC_COLL_H

#include <stdbool.h>
#include <stddef.h>

#include "coll/sc_check_core.h"
#include "util/sc_coll_id.h"
#include "util/sc_status.h"

/* Everything the per-collective functions need to know about one call. */
typedef struct {
    int rank;
    int nranks;
    int root;
    size_t count; /* per-rank count, as in sc_coll_args_t */
} sc_coll_shape_t;

typedef struct {
    sc_coll_id_t id; /* the one list (util/sc_coll_id.h); backends run it as ops->coll[id] */
    const char *name;
    const char *nccl_tests; /* nccl-tests' program that measures it ("all_reduce_perf") */
    bool has_op;            /* takes a reduction operation */
    bool has_root;          /* takes a root */
    bool size_is_total;     /* user's size is the whole gathered/scattered buffer, not per rank */
    /* busbw = algbw * factor (docs/REFERENCE.md §1); 0 where n == 1 makes it meaningless. */
    double (*busbw_factor)(int nranks);
    /* Elements of the send buffer and of the receive buffer this rank needs. */
    size_t (*send_count)(const sc_coll_shape_t *s);
    size_t (*recv_count)(const sc_coll_shape_t *s);
    /* In place: element offset in recvbuf where this rank's input sits. */
    size_t (*inplace_input_offset)(const sc_coll_shape_t *s);
    /* Result elements this rank must check, and where in recvbuf they start. */
    size_t (*result_count)(const sc_coll_shape_t *s);
    size_t (*result_offset)(const sc_coll_shape_t *s, bool in_place);
    /* Where this rank's result elements come from, for the data check. */
    sc_src_t (*source)(const sc_coll_shape_t *s);
} sc_coll_t;

#define SC__COLL_DECL(name) extern const sc_coll_t sc_coll_##name;
SC_COLL_MAP(SC__COLL_DECL)
#undef SC__COLL_DECL

/* Every collective, in the order above, NULL-terminated. */
const sc_coll_t *const *sc_coll_list(void);
/* The descriptor of id (NULL out of range). */
const sc_coll_t *sc_coll_get(sc_coll_id_t id);
/* Looks a collective up by name; SC_ERR_USAGE naming `flag` and the valid names when unknown. */
sc_status_t sc_coll_find(const char *name, const char *flag, const sc_coll_t **coll, sc_err_t *err);

/* Algorithm steps of a ring over n ranks, each paying one latency: 2(n-1) for all-reduce
 * (reduce-scatter then all-gather), 1 for a send/receive, n-1 otherwise. The model prices a
 * ring with it and calibrate fits measured times to the same formula. */
double sc_coll_ring_steps(const sc_coll_t *c, int n);
/* Latency steps of an all-reduce as a tree over n nodes (NCCL's double binary tree: up and
 * down, log2 n each); the model prices the network part of an all-reduce with it, calibrate
 * fits the between-hosts ladder to it. */
double sc_coll_tree_steps(int n);

/* Helpers the collective files share. */
size_t sc_coll_count_1(const sc_coll_shape_t *s);     /* count */
size_t sc_coll_count_n(const sc_coll_shape_t *s);     /* count * nranks */
size_t sc_coll_offset_0(const sc_coll_shape_t *s);    /* 0 */
size_t sc_coll_offset_rank(const sc_coll_shape_t *s); /* rank * count */
size_t sc_coll_result_at_0(const sc_coll_shape_t *s, bool in_place);
double sc_coll_factor_one(int nranks);  /* 1 */
double sc_coll_factor_n1_n(int nranks); /* (n-1)/n */

#endif
