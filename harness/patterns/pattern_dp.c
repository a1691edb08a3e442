/* pattern_dp.c - data parallelism: during the last micro-batch's backward, each layer's
 * gradients go into a bucket (DDP, default 25 MB); a full bucket is all-reduced at once -
 * started without waiting when the workload overlaps communication with backward, else all
 * buckets are reduced after backward. ZeRO-1/2 reduce-scatter the buckets instead and all-gather
 * the updated parameters after the step; ZeRO-3 also gathers each layer's parameters before its
 * forward and its backward. */
#include "sc_pattern.h"

/* Gradient bytes of one layer on this rank (its tensor-parallel share). */
static double sc__layer_grad_bytes(const sc_step_t *s)
{
    const sc_workload_t *w = s->w;
    return w->parameters / (double)w->layers / s->grid->layout.tp *
           (double)sc_dtype_size(sc_precision_dtype(w->gradients));
}

static sc_status_t sc__issue_bucket(sc_step_t *s, double bytes, bool nonblocking, sc_err_t *err)
{
    sc_patop_t op = s->w->zero > 0 ? SC_PATOP_reducescatter : SC_PATOP_allreduce;
    return sc_pattern_coll(s, s->grid->dp, op, bytes, nonblocking, err);
}

/* A full bucket: started now (overlap), or kept for after backward. */
static sc_status_t sc__bucket_ready(sc_step_t *s, sc_dp_state_t *st, double bytes, sc_err_t *err)
{
    if (s->w->overlap)
        return sc__issue_bucket(s, bytes, true, err);
    if (st->ndeferred == SC_DP_MAX_DEFERRED) /* cannot happen with <= 4096 layers */
        return sc__issue_bucket(s, bytes, false, err);
    st->deferred[st->ndeferred++] = bytes;
    return SC_OK;
}

sc_status_t sc_pattern_dp_gather_params(sc_step_t *s, sc_err_t *err)
{
    if (s->w->zero < 3 || s->grid->dp == NULL)
        return SC_OK;
    return sc_pattern_coll(s, s->grid->dp, SC_PATOP_allgather, sc__layer_grad_bytes(s), false, err);
}

sc_status_t sc_pattern_dp_grads(sc_step_t *s, sc_dp_state_t *st, sc_err_t *err)
{
    if (s->grid->dp == NULL)
        return SC_OK;
    st->bucket_fill += sc__layer_grad_bytes(s);
    if (st->bucket_fill < s->w->bucket_mb * 1e6)
        return SC_OK;
    double bytes = st->bucket_fill;
    st->bucket_fill = 0;
    st->buckets++;
    return sc__bucket_ready(s, st, bytes, err);
}

sc_status_t sc_pattern_dp_finish(sc_step_t *s, sc_dp_state_t *st, sc_err_t *err)
{
    sc_comm_t *dp = s->grid->dp;
    if (dp == NULL)
        return SC_OK;
    sc_status_t status = SC_OK;
    if (st->bucket_fill > 0) { /* the last, partly filled bucket */
        st->buckets++;
        status = sc__bucket_ready(s, st, st->bucket_fill, err);
        st->bucket_fill = 0;
    }
    for (int i = 0; i < st->ndeferred && status == SC_OK; i++)
        status = sc__issue_bucket(s, st->deferred[i], false, err);
    st->ndeferred = 0;
    if (status == SC_OK)
        status = sc_pattern_wait(s, dp, err);
    if (status == SC_OK && (s->w->zero == 1 || s->w->zero == 2)) /* updated parameters back */
        status = sc_pattern_coll(s, dp, SC_PATOP_allgather,
                                 sc__layer_grad_bytes(s) * (double)s->w->layers, false, err);
    return status;
}
