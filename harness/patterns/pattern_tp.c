/* pattern_tp.c - tensor parallelism (Megatron-LM): per layer and micro-batch, two all-reduces
 * of the activations in forward (after attention, after the MLP) and two in backward; with
 * sequence parallelism each becomes an all-gather before and a reduce-scatter after. */
#include "sc_pattern.h"

sc_status_t sc_pattern_tp_layer(sc_step_t *s, bool backward, sc_err_t *err)
{
    sc_comm_t *tp = s->grid->tp;
    (void)backward; /* backward mirrors forward: the same collectives, the same sizes */
    if (tp == NULL)
        return SC_OK;
    double bytes = sc_pattern_activation_bytes(s->w);
    sc_status_t status = SC_OK;
    for (int block = 0; block < 2 && status == SC_OK; block++) { /* attention, MLP */
        if (s->w->sequence_parallel) {
            status = sc_pattern_coll(s, tp, SC_PATOP_allgather, bytes, false, err);
            if (status == SC_OK)
                status = sc_pattern_coll(s, tp, SC_PATOP_reducescatter, bytes, false, err);
        } else {
            status = sc_pattern_coll(s, tp, SC_PATOP_allreduce, bytes, false, err);
        }
    }
    return status;
}
