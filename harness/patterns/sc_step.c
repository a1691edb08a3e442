/* sc_step.c - one training step: the stage's pipeline schedule, each action running the
 * stage's layers (compute, tensor-parallel and expert collectives, ZeRO-3 gathers) with the
 * activations or their gradients passed between stages, and the data-parallel gradient
 * synchronisation during the last micro-batch's backward. */
#include "sc_pattern.h"

#include <stdlib.h>

#include "util/sc_clock.h"

/* The communicator the compute phase runs on: the one whose started operations it should
 * keep progressing (gradient buckets first). */
static sc_comm_t *sc__compute_comm(const sc_step_t *s, sc_comm_t *fallback)
{
    const sc_grid_t *g = s->grid;
    return g->dp ? g->dp : g->pp ? g->pp : g->tp ? g->tp : fallback;
}

static sc_status_t sc__layer(sc_step_t *s, sc_comm_t *cc, long long layer, bool backward, bool last,
                             sc_dp_state_t *dp, sc_err_t *err)
{
    double us = sc_pattern_layer_us(s->w, s->grid) * (backward ? 2.0 : 1.0) * s->compute_scale;
    sc_status_t status = sc_pattern_dp_gather_params(s, err);
    if (status == SC_OK)
        status = sc_pattern_compute(s, cc, us, err);
    if (status == SC_OK)
        status = sc_pattern_tp_layer(s, backward, err);
    if (status == SC_OK && sc_pattern_is_moe_layer(s->w, layer))
        status = sc_pattern_moe_layer(s, err);
    if (status == SC_OK && backward && last)
        status = sc_pattern_dp_grads(s, dp, err);
    return status;
}

/* Passes an activation (or its gradient) to or from the neighbouring stage. The send is
 * started and left to complete; the receive blocks, and that wait counts as communication. */
static sc_status_t sc__p2p(sc_step_t *s, int peer, bool send, sc_err_t *err)
{
    sc_comm_t *pp = s->grid->pp;
    double bytes = sc_pattern_activation_bytes(s->w);
    size_t half = s->buf_bytes / 2, count = (size_t)(bytes * s->bytes_scale);
    count = count > half ? half : (count ? count : 1);
    sc_patop_t op = send ? SC_PATOP_send : SC_PATOP_recv;
    s->counts.calls[op]++;
    s->counts.bytes[op] += (uint64_t)bytes;
    if (send)
        return pp->ops->isend(pp, s->buf, count, SC_DTYPE_uint8, peer, err);
    uint64_t t0 = sc_clock_ns();
    sc_status_t status = pp->ops->recv(pp, (char *)s->buf + half, count, SC_DTYPE_uint8, peer, err);
    s->comm_us += (double)(sc_clock_ns() - t0) * 1e-3;
    return status;
}

static sc_status_t sc__action(sc_step_t *s, sc_comm_t *cc, int action, int m, sc_dp_state_t *dp,
                              sc_err_t *err)
{
    const sc_grid_t *g = s->grid;
    int p = g->p, pp = g->layout.pp;
    bool backward = action < 0;
    int mb = backward ? -action - 1 : action;
    long long per_stage = s->w->layers / pp, first = (long long)p * per_stage;
    int from = backward ? p + 1 : p - 1, to = backward ? p - 1 : p + 1;
    sc_status_t status = (from >= 0 && from < pp) ? sc__p2p(s, from, false, err) : SC_OK;
    for (long long i = 0; i < per_stage && status == SC_OK; i++) {
        long long layer = backward ? first + per_stage - 1 - i : first + i;
        status = sc__layer(s, cc, layer, backward, mb == m - 1, dp, err);
    }
    if (status == SC_OK && to >= 0 && to < pp)
        status = sc__p2p(s, to, true, err);
    return status;
}

sc_status_t sc_step_run(sc_step_t *s, sc_err_t *err)
{
    const sc_grid_t *g = s->grid;
    int m = g->layout.micro_batches;
    int *actions = malloc(2 * (size_t)m * sizeof(int));
    sc_dp_state_t *dp = calloc(1, sizeof(*dp));
    if (actions == NULL || dp == NULL) {
        free(actions);
        free(dp);
        return sc_err_set(err, SC_ERR_NOMEM, "no memory for a step of %d micro-batches", m);
    }
    int n = sc_pattern_pp_schedule(s->w->schedule, g->p, g->layout.pp, m, actions);
    sc_comm_t *cc = sc__compute_comm(s, NULL);
    sc_status_t status = SC_OK;
    for (int i = 0; i < n && status == SC_OK; i++)
        status = sc__action(s, cc ? cc : s->world, actions[i], m, dp, err);
    if (status == SC_OK)
        status = sc_pattern_dp_finish(s, dp, err);
    if (status == SC_OK && g->pp != NULL) /* the last sends of the step */
        status = sc_pattern_wait(s, g->pp, err);
    free(actions);
    free(dp);
    return status;
}
