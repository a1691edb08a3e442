/* allreduce: every rank ends with the reduction of every rank's buffer. */
#include "sc_coll.h"

static double allreduce__factor(int nranks)
{
    return nranks > 1 ? 2.0 * (double)(nranks - 1) / (double)nranks : 0.0;
}

static sc_src_t allreduce__source(const sc_coll_shape_t *s)
{
    (void)s;
    return (sc_src_t){.kind = SC_SRC_REDUCED};
}

const sc_coll_t sc_coll_allreduce = {
    .id = SC_COLL_allreduce,
    .name = "allreduce",
    .nccl_tests = "all_reduce_perf",
    .has_op = true,
    .busbw_factor = allreduce__factor,
    .send_count = sc_coll_count_1,
    .recv_count = sc_coll_count_1,
    .inplace_input_offset = sc_coll_offset_0,
    .result_count = sc_coll_count_1,
    .result_offset = sc_coll_result_at_0,
    .source = allreduce__source,
};
