/* sc_soak_cycle.h - one cycle of the stability run (`scalecheck soak`), measured: every host's
 * health sampled in the background all through it (NVML where there are GPUs, the host's own
 * sensors and counters), an all-reduce sweep of the sizes that matter, steps of the workload at
 * full scale, and the quick pair check between hosts. Collective over the session's world. */
#ifndef SC_SOAK_CYCLE_H
#define SC_SOAK_CYCLE_H

#include "config/sc_workload.h"
#include "pairs/sc_pairs.h"
#include "record/sc_soak.h"
#include "session/sc_session.h"

typedef struct {
    sc_session_t *ses;
    const sc_workload_t *w;
    double bytes_scale, compute_scale; /* the step's messages and compute against the plan's */
    int steps, warmup;
    uint64_t sweep_min, sweep_max; /* all-reduce sizes, x4 apart */
    int sweep_iters;
    double telemetry_s; /* sampling interval */
    double cycle_s;     /* a cycle lasts at least this long: the rest is spent sampling */
    bool burn;          /* --load burn: every rank's device kept at full load all cycle */
    sc_burn_spec_t burn_spec;
    /* the pair check: one rank per host (pc NULL on the others, or with one host) */
    sc_pairs_opts_t pairs;
    sc_comm_t *pc;
    MPI_Comm pcontrol;
    bool pair_check; /* several hosts: the check runs */
} sc_soak_ctx_t;

/* Measures one cycle; rank 0's out gets its figures and every host's health, m the pair check's
 * matrix (on the participants; empty without the check; free it). The cycle number, start_s,
 * suspects and verdict are the caller's. */
sc_status_t sc_soak_cycle_run(const sc_soak_ctx_t *x, sc_soak_cycle_t *out, sc_pairs_matrix_t *m,
                              sc_err_t *err);

#endif
