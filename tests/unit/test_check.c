/* The exact data check: results simulated independently here (each collective's data movement
 * written out by hand from every rank's inputs) pass the check, a flipped element is counted
 * once, and a result of zeros cannot pass. Covers every collective, type (fp16/bf16 too: their
 * host reference is what the GPU kernels compute) and reduction. */
#include <stdlib.h>
#include <string.h>

#include "coll/sc_check.h"
#include "sc_test.h"

static double reduce_naive(const sc_check_spec_t *spec, int nranks, uint64_t index)
{
    double v = sc_check_value(spec, 0, index);
    for (int r = 1; r < nranks; r++) {
        double x = sc_check_value(spec, r, index);
        switch (spec->op) {
        case SC_REDOP_prod:
            v *= x;
            break;
        case SC_REDOP_min:
            v = x < v ? x : v;
            break;
        case SC_REDOP_max:
            v = x > v ? x : v;
            break;
        default:
            v += x;
            break;
        }
    }
    if (spec->op == SC_REDOP_avg)
        v = sc_dtype_is_float(spec->dtype) ? v / nranks : (double)((long long)v / nranks);
    return v;
}

/* Result element j of rank s->rank, from the collective's definition. */
static double simulate(const sc_check_spec_t *spec, const char *coll, const sc_coll_shape_t *s,
                       size_t j)
{
    uint64_t c = s->count, r = (uint64_t)s->rank;
    if (!strcmp(coll, "allreduce") || !strcmp(coll, "reduce"))
        return reduce_naive(spec, s->nranks, j);
    if (!strcmp(coll, "reducescatter"))
        return reduce_naive(spec, s->nranks, r * c + j);
    if (!strcmp(coll, "allgather") || !strcmp(coll, "gather"))
        return sc_check_value(spec, (int)(j / c), j % c);
    if (!strcmp(coll, "alltoall"))
        return sc_check_value(spec, (int)(j / c), r * c + j % c);
    if (!strcmp(coll, "broadcast"))
        return sc_check_value(spec, s->root, j);
    if (!strcmp(coll, "scatter"))
        return sc_check_value(spec, s->root, r * c + j);
    return sc_check_value(spec, (s->rank + s->nranks - 1) % s->nranks, j); /* sendrecv */
}

static void check_values_fit(void)
{
    /* Sums of 8 ranks stay inside int8, fp16 and bf16 integer ranges; products stay <= 64. */
    const sc_dtype_t narrow[] = {SC_DTYPE_int8, SC_DTYPE_fp16, SC_DTYPE_bf16};
    for (size_t t = 0; t < 3; t++)
        for (int op = 0; op < SC_REDOP_COUNT; op++) {
            sc_check_spec_t spec;
            sc_check_spec_init(&spec, narrow[t], (sc_redop_t)op, 42, 8);
            double limit = sc_dtype_max(narrow[t]);
            for (uint64_t i = 0; i < 2000; i++) {
                double r = reduce_naive(&spec, 8, i);
                SC_EXPECT(r >= -limit && r <= limit);
                SC_EXPECT(sc_dtype_round(narrow[t], r) == r || op == SC_REDOP_avg);
            }
        }
    sc_check_spec_t spec;
    sc_check_spec_init(&spec, SC_DTYPE_uint8, SC_REDOP_sum, 7, 3);
    int distinct = 0;
    double first = sc_check_value(&spec, 0, 0);
    for (uint64_t i = 1; i < 100; i++)
        distinct += sc_check_value(&spec, 0, i) != first;
    SC_EXPECT(distinct > 50); /* inputs vary, so a result from the wrong place is caught */
}

static void check_half_conversions(void)
{
    /* Exact round trips of every integer the check uses, and known encodings. */
    for (int v = -2048; v <= 2048; v++)
        SC_EXPECT(sc_fp16_to_double(sc_fp16_from_double(v)) == v);
    for (int v = -256; v <= 256; v++)
        SC_EXPECT(sc_bf16_to_double(sc_bf16_from_double(v)) == v);
    SC_EXPECT_EQ_U64(sc_fp16_from_double(1.0), 0x3c00);
    SC_EXPECT_EQ_U64(sc_fp16_from_double(-2.0), 0xc000);
    SC_EXPECT_EQ_U64(sc_fp16_from_double(65504.0), 0x7bff);
    SC_EXPECT_EQ_U64(sc_fp16_from_double(1e6), 0x7c00);              /* overflow: infinity */
    SC_EXPECT_EQ_U64(sc_fp16_from_double(5.960464477539063e-8), 1);  /* smallest subnormal */
    SC_EXPECT_EQ_U64(sc_fp16_from_double(1.0 + 1.0 / 2048), 0x3c00); /* tie: to even */
    SC_EXPECT_EQ_U64(sc_fp16_from_double(1.0 + 3.0 / 2048), 0x3c02); /* tie: to even, up */
    SC_EXPECT_EQ_U64(sc_bf16_from_double(1.0), 0x3f80);
    SC_EXPECT_EQ_U64(sc_bf16_from_double(1.0 + 1.0 / 256), 0x3f80); /* tie: to even */
    SC_EXPECT_NEAR(sc_fp16_to_double(0x3555), 0.333251953125, 0);
}

int main(void)
{
    check_values_fit();
    check_half_conversions();
    const int ranks[] = {1, 2, 3, 8};
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++) {
        for (int d = 0; d < SC_DTYPE_COUNT; d++) {
            for (int op = 0; op < SC_REDOP_COUNT; op++) {
                for (size_t k = 0; k < sizeof(ranks) / sizeof(ranks[0]); k++) {
                    int n = ranks[k];
                    sc_coll_shape_t s = {.rank = n - 1, .nranks = n, .root = 0, .count = 33};
                    sc_check_spec_t spec;
                    sc_check_spec_init(&spec, (sc_dtype_t)d, (sc_redop_t)op, 1234 + k, n);
                    size_t count = (*c)->result_count(&s);
                    sc_src_t src = (*c)->source(&s);
                    unsigned char *buf = calloc(count + 1, 8);
                    for (size_t j = 0; j < count; j++)
                        sc_dtype_store(spec.dtype, buf, j, simulate(&spec, (*c)->name, &s, j));
                    SC_EXPECT_EQ_U64(sc_check_count_wrong(&spec, &src, buf, count), 0);
                    if (count > 0) {
                        /* One flipped element must be counted, exactly once. */
                        size_t j = count / 2;
                        double v = sc_dtype_load(spec.dtype, buf, j);
                        sc_dtype_store(spec.dtype, buf, j, v >= 7 ? v - 7 : v + 7);
                        SC_EXPECT_EQ_U64(sc_check_count_wrong(&spec, &src, buf, count), 1);
                        /* A whole result of zeros is caught too (cannot pass by accident). */
                        memset(buf, 0, count * sc_dtype_size(spec.dtype));
                        SC_EXPECT(sc_check_count_wrong(&spec, &src, buf, count) > count / 4);
                    }
                    free(buf);
                }
            }
        }
    }
    return sc_test_done("test_check");
}
