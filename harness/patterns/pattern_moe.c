/* pattern_moe.c - mixture of experts with expert parallelism over the data-parallel group:
 * every MoE layer sends its tokens to their experts and back (two all-to-alls) in forward, and
 * twice again in backward. Tokens per expert slot: top_k x capacity factor. */
#include "sc_pattern.h"

bool sc_pattern_is_moe_layer(const sc_workload_t *w, long long layer)
{
    return w->experts > 0 && w->moe_every > 0 && (layer + 1) % w->moe_every == 0;
}

sc_status_t sc_pattern_moe_layer(sc_step_t *s, sc_err_t *err)
{
    sc_comm_t *ep = s->grid->dp;
    if (ep == NULL)
        return SC_OK; /* every expert is local */
    double bytes = sc_pattern_activation_bytes(s->w) * (double)s->w->top_k * s->w->capacity_factor;
    sc_status_t status = sc_pattern_coll(s, ep, SC_PATOP_alltoall, bytes, false, err);
    return status == SC_OK ? sc_pattern_coll(s, ep, SC_PATOP_alltoall, bytes, false, err) : status;
}
