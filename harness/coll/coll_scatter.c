/* scatter: rank r ends with block r of the root's buffer. */
#include "sc_coll.h"

static size_t scatter__send_count(const sc_coll_shape_t *s)
{
    return s->rank == s->root ? s->count * (size_t)s->nranks : 0;
}

static size_t scatter__result_offset(const sc_coll_shape_t *s, bool in_place)
{
    return (in_place && s->rank == s->root) ? (size_t)s->root * s->count : 0;
}

static sc_src_t scatter__source(const sc_coll_shape_t *s)
{
    return (sc_src_t){.kind = SC_SRC_RANK, .rank = s->root, .offset = (uint64_t)s->rank * s->count};
}

const sc_coll_t sc_coll_scatter = {
    .id = SC_COLL_scatter,
    .name = "scatter",
    .nccl_tests = "scatter_perf",
    .has_root = true,
    .size_is_total = true,
    .busbw_factor = sc_coll_factor_n1_n,
    .send_count = scatter__send_count,
    .recv_count = sc_coll_count_1,
    .inplace_input_offset = sc_coll_offset_0,
    .result_count = sc_coll_count_1,
    .result_offset = scatter__result_offset,
    .source = scatter__source,
};
