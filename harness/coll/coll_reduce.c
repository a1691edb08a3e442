/* reduce: the root ends with the reduction of every rank's buffer; the others have no result. */
#include "sc_coll.h"

static size_t reduce__result_count(const sc_coll_shape_t *s)
{
    return s->rank == s->root ? s->count : 0;
}

static sc_src_t reduce__source(const sc_coll_shape_t *s)
{
    (void)s;
    return (sc_src_t){.kind = SC_SRC_REDUCED};
}

const sc_coll_t sc_coll_reduce = {
    .id = SC_COLL_reduce,
    .name = "reduce",
    .nccl_tests = "reduce_perf",
    .has_op = true,
    .has_root = true,
    .busbw_factor = sc_coll_factor_one,
    .send_count = sc_coll_count_1,
    .recv_count = sc_coll_count_1,
    .inplace_input_offset = sc_coll_offset_0,
    .result_count = reduce__result_count,
    .result_offset = sc_coll_result_at_0,
    .source = reduce__source,
};
