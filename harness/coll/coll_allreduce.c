/* allreduce: every rank ends with the reduction of every rank's buffer. */
#include "sc_coll.h"

static double allreduce__factor(int nranks)
{
    return nranks > 1 ? 2.0 * (double)(nranks - 1) / (double)nranks : 0.0;
}

static int allreduce__source(const sc_coll_shape_t *s, size_t j, size_t *src_index)
{
    (void)s;
    *src_index = j;
    return SC_COLL_SRC_ALL;
}

static sc_coll_fn_t allreduce__fn(const sc_backend_ops_t *ops)
{
    return ops->allreduce;
}

const sc_coll_t sc_coll_allreduce = {
    .name = "allreduce",
    .has_op = true,
    .busbw_factor = allreduce__factor,
    .send_count = sc_coll_count_1,
    .recv_count = sc_coll_count_1,
    .inplace_input_offset = sc_coll_offset_0,
    .result_count = sc_coll_count_1,
    .result_offset = sc_coll_result_at_0,
    .source = allreduce__source,
    .backend_fn = allreduce__fn,
};
