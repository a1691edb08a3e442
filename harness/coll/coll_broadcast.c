/* broadcast: every rank ends with the root's buffer. */
#include "sc_coll.h"

static sc_src_t broadcast__source(const sc_coll_shape_t *s)
{
    return (sc_src_t){.kind = SC_SRC_RANK, .rank = s->root};
}

const sc_coll_t sc_coll_broadcast = {
    .id = SC_COLL_broadcast,
    .name = "broadcast",
    .nccl_tests = "broadcast_perf",
    .has_root = true,
    .busbw_factor = sc_coll_factor_one,
    .send_count = sc_coll_count_1,
    .recv_count = sc_coll_count_1,
    .inplace_input_offset = sc_coll_offset_0,
    .result_count = sc_coll_count_1,
    .result_offset = sc_coll_result_at_0,
    .source = broadcast__source,
};
