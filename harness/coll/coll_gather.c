/* gather: the root ends with every rank's block, in rank order. */
#include "sc_coll.h"

static size_t gather__recv_count(const sc_coll_shape_t *s)
{
    return s->rank == s->root ? s->count * (size_t)s->nranks : 0;
}

static size_t gather__inplace_input_offset(const sc_coll_shape_t *s)
{
    return s->rank == s->root ? (size_t)s->root * s->count : 0;
}

static size_t gather__result_count(const sc_coll_shape_t *s)
{
    return gather__recv_count(s);
}

static sc_src_t gather__source(const sc_coll_shape_t *s)
{
    return (sc_src_t){.kind = SC_SRC_BLOCKS, .block = s->count};
}

const sc_coll_t sc_coll_gather = {
    .id = SC_COLL_gather,
    .name = "gather",
    .nccl_tests = "gather_perf",
    .has_root = true,
    .size_is_total = true,
    .busbw_factor = sc_coll_factor_n1_n,
    .send_count = sc_coll_count_1,
    .recv_count = gather__recv_count,
    .inplace_input_offset = gather__inplace_input_offset,
    .result_count = gather__result_count,
    .result_offset = sc_coll_result_at_0,
    .source = gather__source,
};
