/* sc_plan.h - one training step of a workload on a (dp, pp, tp) layout, as data: per pipeline
 * stage, the ordered operations its ranks issue - compute phases, collectives on their group,
 * activations sent to and received from the neighbouring stages, and the waits that complete
 * what was started without waiting. The runner executes this plan (patterns/), the model prices
 * it (model/), `scalecheck plan` prints it, and the tests check it against counts written in
 * the test. The definitions behind it (Megatron TP, 1F1B/GPipe, DDP buckets, ZeRO, MoE) are in
 * docs/REFERENCE.md §8. */
#ifndef SC_PLAN_H
#define SC_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "config/sc_workload.h"
#include "util/sc_coll_id.h"
#include "util/sc_gemm.h"
#include "util/sc_status.h"

typedef enum {
    SC_PLAN_COMPUTE,
    SC_PLAN_COLL,
    SC_PLAN_SEND,
    SC_PLAN_RECV,
    SC_PLAN_WAIT
} sc_plan_kind_t;
typedef enum {
    SC_PHASE_FORWARD,
    SC_PHASE_BACKWARD,
    SC_PHASE_OPTIMIZER,
    SC_PHASE_COUNT
} sc_plan_phase_t;
/* The group an operation runs on. Expert parallelism runs over the data-parallel ranks. */
typedef enum { SC_GROUP_TP, SC_GROUP_PP, SC_GROUP_DP, SC_GROUP_EP, SC_GROUP_COUNT } sc_plan_group_t;

typedef struct {
    sc_plan_kind_t kind;
    sc_plan_phase_t phase;
    sc_plan_group_t group; /* COLL, SEND, RECV, WAIT (COMPUTE: none) */
    sc_coll_id_t coll;     /* COLL */
    bool nonblocking;      /* COLL: started, completed by the group's next WAIT; what lies
                              between (compute, other groups' work) overlaps it */
    int precision;         /* sc_precision_t of the payload */
    int peer_stage;        /* SEND, RECV: the other stage */
    int micro_batch;       /* -1: not tied to one */
    int layer;             /* -1: not tied to one */
    double bytes;          /* payload at the workload's size; collectives: the whole buffer
                              (coll's convention), split over the group's ranks where the
                              collective splits it (reduce-scatter, all-gather, all-to-all) */
    double compute_us;     /* COMPUTE: modelled time at the workload's GPU speed; the products
                              it runs are the plan's gemms[phase] */
} sc_plan_op_t;

typedef struct {
    sc_layout_t layout;
    int stages;        /* layout.pp */
    sc_plan_op_t *ops; /* every stage's operations, stage after stage */
    size_t nops, cap;
    size_t *stage_start; /* stage s: ops[stage_start[s] .. stage_start[s + 1]) */
    /* The matrix products of one layer for one micro-batch, per phase (sc_plan_gemm_sets):
     * every COMPUTE op of the phase runs them (with compute.mode flops, on a GPU). */
    sc_gemm_set_t gemms[SC_PHASE_COUNT];
} sc_plan_t;

/* Builds the plan of w on layout l. Groups of one rank issue nothing (tp 1: no TP
 * all-reduces). SC_ERR_NOMEM, or SC_ERR_USAGE when the layout cannot hold the workload. */
sc_status_t sc_plan_build(const sc_workload_t *w, const sc_layout_t *l, sc_plan_t *plan,
                          sc_err_t *err);
void sc_plan_free(sc_plan_t *plan);

/* Operations of stage s. */
const sc_plan_op_t *sc_plan_stage(const sc_plan_t *plan, int s, size_t *nops);

/* What a step communicates, per group and per operation (a collective, send or recv). */
#define SC_PLAN_OP_SEND  SC_COLL_COUNT
#define SC_PLAN_OP_RECV  (SC_COLL_COUNT + 1)
#define SC_PLAN_OP_COUNT (SC_COLL_COUNT + 2)
typedef struct {
    double calls[SC_GROUP_COUNT][SC_PLAN_OP_COUNT];
    double bytes[SC_GROUP_COUNT][SC_PLAN_OP_COUNT];
    double total_calls, total_bytes; /* over every group and operation */
    double compute_us;               /* stage 0's compute (every stage computes the same) */
} sc_plan_tally_t;

/* The tally index of a communicating op (a collective's id, SC_PLAN_OP_SEND/RECV); -1 for
 * compute and waits. */
int sc_plan_op_index(const sc_plan_op_t *op);
/* "allreduce", ..., "send", "recv". */
const char *sc_plan_op_index_name(int index);
const char *sc_plan_group_name(sc_plan_group_t group);
const char *sc_plan_phase_name(sc_plan_phase_t phase);
const char *sc_plan_kind_name(sc_plan_kind_t kind);

/* Sums over every rank of the layout (a stage's plan runs on its tp x dp ranks). */
void sc_plan_tally_ranks(const sc_plan_t *plan, sc_plan_tally_t *tally);
/* Ranks in a group of the layout. */
int sc_plan_group_size(const sc_layout_t *l, sc_plan_group_t group);
/* Ranks between neighbours of a group in the rank order (tp innermost, then pp, then dp). */
int sc_plan_group_stride(const sc_layout_t *l, sc_plan_group_t group);

/* Bytes of one activation (or its gradient) between stages and around TP blocks. */
double sc_plan_activation_bytes(const sc_workload_t *w);
/* What one GPU holds to train the workload at this layout (an estimate, docs/compare.md):
 * the model states - weights, gradients and Adam's optimizer state, 16 bytes a parameter in
 * mixed precision (ZeRO, Rajbhandari et al. 2020, section 3), split over tp x pp and, by ZeRO's
 * stage, over dp - and, for a transformer, the activations a pipeline stage keeps (34 s b h
 * bytes a layer without recomputation, Korthikanti et al. 2022, split over tp) for the pp
 * micro-batches 1F1B keeps in flight. Other models: the model states alone. */
typedef struct {
    double model_state_bytes, activation_bytes, total_bytes;
    bool activations_estimated; /* false: not a transformer, activations left out */
} sc_plan_memory_t;
void sc_plan_memory(const sc_workload_t *w, const sc_layout_t *l, sc_plan_memory_t *out);

/* The matrix products of one layer for one micro-batch on one rank of layout l, per phase
 * (sc_plan_gemm.c says which; none in the optimizer). Their FLOPs are what the plan prices. */
void sc_plan_gemm_sets(const sc_workload_t *w, const sc_layout_t *l,
                       sc_gemm_set_t sets[SC_PHASE_COUNT]);

/* Modelled compute of one layer's forward for one micro-batch, microseconds (backward:
 * sc_plan_backward_factor of it). */
double sc_plan_layer_us(const sc_workload_t *w, const sc_layout_t *l);
/* A layer's backward against its forward, from the products (sc_plan_gemm_sets): 2, plus the
 * forward again under full recomputation, plus the attention's products under selective
 * (model.recompute); 2 where compute.mode time states the step's compute whole. */
double sc_plan_backward_factor(const sc_workload_t *w);

#endif
