/* Buffer shapes and result sources of the collectives, worked by hand (their busbw factors and
 * results are held by test_check.c, where a new collective writes its own). */
#include <string.h>

#include "coll/sc_coll.h"
#include "sc_test.h"

int main(void)
{
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
