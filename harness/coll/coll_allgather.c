/* allgather: every rank ends with every rank's block, in rank order. */
#include "sc_coll.h"

static sc_src_t allgather__source(const sc_coll_shape_t *s)
{
    return (sc_src_t){.kind = SC_SRC_BLOCKS, .block = s->count};
}

const sc_coll_t sc_coll_allgather = {
    .id = SC_COLL_allgather,
    .name = "allgather",
    .nccl_tests = "all_gather_perf",
    .size_is_total = true,
    .busbw_factor = sc_coll_factor_n1_n,
    .send_count = sc_coll_count_1,
    .recv_count = sc_coll_count_n,
    .inplace_input_offset = sc_coll_offset_rank,
    .result_count = sc_coll_count_n,
    .result_offset = sc_coll_result_at_0,
    .source = allgather__source,
};
