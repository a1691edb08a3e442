/* alltoall: block p of rank r's result is block r of rank p's buffer. */
#include "sc_coll.h"

static sc_src_t alltoall__source(const sc_coll_shape_t *s)
{
    return (sc_src_t){
        .kind = SC_SRC_BLOCKS, .offset = (uint64_t)s->rank * s->count, .block = s->count};
}

const sc_coll_t sc_coll_alltoall = {
    .id = SC_COLL_alltoall,
    .name = "alltoall",
    .nccl_tests = "alltoall_perf",
    .size_is_total = true,
    .busbw_factor = sc_coll_factor_n1_n,
    .send_count = sc_coll_count_n,
    .recv_count = sc_coll_count_n,
    .inplace_input_offset = sc_coll_offset_0,
    .result_count = sc_coll_count_n,
    .result_offset = sc_coll_result_at_0,
    .source = alltoall__source,
};
