/* reducescatter: rank r ends with block r of the reduction of every rank's whole buffer. */
#include "sc_coll.h"

static size_t reducescatter__result_offset(const sc_coll_shape_t *s, bool in_place)
{
    return in_place ? (size_t)s->rank * s->count : 0;
}

static sc_src_t reducescatter__source(const sc_coll_shape_t *s)
{
    return (sc_src_t){.kind = SC_SRC_REDUCED, .offset = (uint64_t)s->rank * s->count};
}

const sc_coll_t sc_coll_reducescatter = {
    .id = SC_COLL_reducescatter,
    .name = "reducescatter",
    .nccl_tests = "reduce_scatter_perf",
    .has_op = true,
    .size_is_total = true,
    .busbw_factor = sc_coll_factor_n1_n,
    .send_count = sc_coll_count_n,
    .recv_count = sc_coll_count_1,
    .inplace_input_offset = sc_coll_offset_0,
    .result_count = sc_coll_count_1,
    .result_offset = reducescatter__result_offset,
    .source = reducescatter__source,
};
