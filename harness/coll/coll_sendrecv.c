/* sendrecv: a ring shift - every rank sends to rank+1 and receives from rank-1 at once. */
#include "sc_coll.h"

static sc_src_t sendrecv__source(const sc_coll_shape_t *s)
{
    return (sc_src_t){.kind = SC_SRC_RANK, .rank = (s->rank + s->nranks - 1) % s->nranks};
}

const sc_coll_t sc_coll_sendrecv = {
    .id = SC_COLL_sendrecv,
    .name = "sendrecv",
    .nccl_tests = "sendrecv_perf",
    .busbw_factor = sc_coll_factor_one,
    .send_count = sc_coll_count_1,
    .recv_count = sc_coll_count_1,
    .inplace_input_offset = sc_coll_offset_0,
    .result_count = sc_coll_count_1,
    .result_offset = sc_coll_result_at_0,
    .source = sendrecv__source,
};
