/* Bus-bandwidth factors (docs/REFERENCE.md §1) and buffer shapes of every collective. */
#include <string.h>

#include "coll/sc_coll.h"
#include "sc_test.h"

static double expected_factor(const char *name, int n)
{
    if (strcmp(name, "allreduce") == 0)
        return n > 1 ? 2.0 * (n - 1) / n : 0.0;
    if (strcmp(name, "allgather") == 0 || strcmp(name, "reducescatter") == 0 ||
        strcmp(name, "alltoall") == 0 || strcmp(name, "gather") == 0 ||
        strcmp(name, "scatter") == 0)
        return n > 1 ? (double)(n - 1) / n : 0.0;
    return 1.0; /* broadcast, reduce, sendrecv */
}

int main(void)
{
    int seen = 0;
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++, seen++) {
        for (int n = 1; n <= 1024; n *= 2) {
            double f = (*c)->busbw_factor(n);
            SC_EXPECT_NEAR(f, expected_factor((*c)->name, n), 1e-12);
            SC_EXPECT(f == f); /* never NaN, even at n = 1 */
        }
        SC_EXPECT_NEAR((*c)->busbw_factor(3), expected_factor((*c)->name, 3), 1e-12);
    }
    SC_EXPECT(seen == 9);

    /* Buffer shapes with 4 ranks, 10 elements per rank, this rank 1, root 2. */
    sc_coll_shape_t s = {.rank = 1, .nranks = 4, .root = 2, .count = 10};
    SC_EXPECT_EQ_U64(sc_coll_allgather.recv_count(&s), 40);
    SC_EXPECT_EQ_U64(sc_coll_reducescatter.send_count(&s), 40);
    SC_EXPECT_EQ_U64(sc_coll_reducescatter.result_offset(&s, true), 10);
    SC_EXPECT_EQ_U64(sc_coll_reducescatter.result_offset(&s, false), 0);
    SC_EXPECT_EQ_U64(sc_coll_alltoall.send_count(&s), 40);
    SC_EXPECT_EQ_U64(sc_coll_gather.recv_count(&s), 0); /* not the root */
    SC_EXPECT_EQ_U64(sc_coll_reduce.result_count(&s), 0);
    SC_EXPECT_EQ_U64(sc_coll_scatter.send_count(&s), 0);
    s.rank = 2;
    SC_EXPECT_EQ_U64(sc_coll_gather.recv_count(&s), 40);
    SC_EXPECT_EQ_U64(sc_coll_gather.inplace_input_offset(&s), 20);
    SC_EXPECT_EQ_U64(sc_coll_scatter.send_count(&s), 40);
    SC_EXPECT_EQ_U64(sc_coll_scatter.result_offset(&s, true), 20);

    /* Where results come from (rank 2 of 4, root 2, 10 per rank). */
    sc_src_t src = sc_coll_alltoall.source(&s);
    SC_EXPECT(src.kind == SC_SRC_BLOCKS && src.offset == 20 && src.block == 10);
    src = sc_coll_allgather.source(&s);
    SC_EXPECT(src.kind == SC_SRC_BLOCKS && src.offset == 0 && src.block == 10);
    src = sc_coll_sendrecv.source(&s);
    SC_EXPECT(src.kind == SC_SRC_RANK && src.rank == 1 && src.offset == 0);
    src = sc_coll_scatter.source(&s);
    SC_EXPECT(src.kind == SC_SRC_RANK && src.rank == 2 && src.offset == 20);
    src = sc_coll_reducescatter.source(&s);
    SC_EXPECT(src.kind == SC_SRC_REDUCED && src.offset == 20);
    src = sc_coll_broadcast.source(&s);
    SC_EXPECT(src.kind == SC_SRC_RANK && src.rank == 2);
    return sc_test_done("test_busbw");
}
