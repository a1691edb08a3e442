/* The exact data check: results simulated independently here (each collective's data movement
 * written out by hand from every rank's inputs) pass the check, a flipped element is counted
 * once, and a result of zeros cannot pass. Covers every collective, type (fp16/bf16 too: their
 * host reference is what the GPU kernels compute) and reduction. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/sc_check.h"
#include "sc_check_plant.h"
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

/* What each collective is, written here apart from its descriptor (a new collective adds its
 * two lines below and nothing else in the tests): its busbw factor at n ranks
 * (docs/REFERENCE.md §1), NAN for a name not written here, so that it fails; and, in
 * simulate(), the value of its result element j. */
static double expected_factor(const char *name, int n)
{
    if (!strcmp(name, "allreduce"))
        return n > 1 ? 2.0 * (n - 1) / n : 0.0;
    if (!strcmp(name, "allgather") || !strcmp(name, "reducescatter") || !strcmp(name, "alltoall") ||
        !strcmp(name, "gather") || !strcmp(name, "scatter"))
        return n > 1 ? (double)(n - 1) / n : 0.0;
    if (!strcmp(name, "broadcast") || !strcmp(name, "reduce") || !strcmp(name, "sendrecv"))
        return 1.0;
    return NAN;
}

static void check_factors(void)
{
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++)
        for (int n = 1; n <= 1024; n = n < 3 ? n + 1 : n * 2) {
            double f = (*c)->busbw_factor(n), want = expected_factor((*c)->name, n);
            if (!(fabs(f - want) < 1e-12))
                fprintf(stderr, "%s at %d ranks: busbw factor %g, expected %g\n", (*c)->name, n, f,
                        want);
            SC_EXPECT(fabs(f - want) < 1e-12);
        }
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
    if (!strcmp(coll, "sendrecv"))
        return sc_check_value(spec, (s->rank + s->nranks - 1) % s->nranks, j);
    return NAN; /* a collective not written here: every check of it fails */
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

/* NCCL's floating-point avg: every input pre-multiplied by (T)(1/n), the products summed in T.
 * That result must pass the check at any rank count, powers of two or not, also where the sum
 * cancels to near zero. */
static void check_avg_premultiplied(void)
{
    const sc_dtype_t floats[] = {SC_DTYPE_fp16, SC_DTYPE_bf16, SC_DTYPE_float, SC_DTYPE_double};
    for (size_t t = 0; t < 4; t++) {
        for (int n = 2; n <= 24; n++) {
            sc_check_spec_t spec;
            sc_check_spec_init(&spec, floats[t], SC_REDOP_avg, 99 + (uint64_t)n, n);
            sc_src_t src = {.kind = SC_SRC_REDUCED};
            double inv = sc_dtype_round(floats[t], 1.0 / n);
            uint64_t wrong = 0;
            for (uint64_t i = 0; i < 4000; i++) {
                double acc = sc_dtype_round(floats[t], sc_check_value(&spec, 0, i) * inv);
                for (int r = 1; r < n; r++)
                    acc = sc_dtype_round(
                        floats[t],
                        acc + sc_dtype_round(floats[t], sc_check_value(&spec, r, i) * inv));
                wrong += !sc_check_matches(&spec, acc, sc_check_expected(&spec, &src, i));
            }
            SC_EXPECT_EQ_U64(wrong, 0);
        }
    }
}

/* The layouts of the GPU test (8 ranks, root 1): on the root and on another rank, a rooted
 * collective (reduce, gather) has result elements only on the root; a plant there is found once,
 * and a rank with nothing to check expects nothing. */
static void check_rooted_layouts(void)
{
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++) {
        for (int rank = 0; rank < 8; rank += 3) {
            sc_coll_shape_t s = {.rank = rank, .nranks = 8, .root = 1, .count = 1000};
            sc_check_spec_t spec;
            sc_check_spec_init(&spec, SC_DTYPE_float, SC_REDOP_sum, 5, 8);
            size_t count = (*c)->result_count(&s);
            sc_src_t src = (*c)->source(&s);
            float *buf = calloc(count + 1, sizeof(float));
            for (size_t j = 0; j < count; j++)
                buf[j] = (float)sc_check_expected(&spec, &src, j);
            int planted = sc_test_plant_wrong(&spec, &src, buf, count);
            /* reduce and gather deliver to the root alone (written here, not read off count) */
            bool rooted = !strcmp((*c)->name, "reduce") || !strcmp((*c)->name, "gather");
            bool nothing_here = rooted && rank != s.root;
            SC_EXPECT((count == 0) == nothing_here);
            SC_EXPECT(planted == (nothing_here ? 0 : 1));
            SC_EXPECT_EQ_U64(sc_check_count_wrong(&spec, &src, buf, count), planted);
            free(buf);
        }
    }
}

int main(void)
{
    check_factors();
    check_values_fit();
    check_avg_premultiplied();
    check_rooted_layouts();
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
                    bool written = !isnan(simulate(&spec, (*c)->name, &s, 0));
                    SC_EXPECT(written); /* a collective simulate() does not know */
                    for (size_t j = 0; written && j < count; j++)
                        sc_dtype_store(spec.dtype, buf, j, simulate(&spec, (*c)->name, &s, j));
                    SC_EXPECT_EQ_U64(sc_check_count_wrong(&spec, &src, buf, count), 0);
                    /* One planted element must be counted, exactly once. */
                    int planted = sc_test_plant_wrong(&spec, &src, buf, count);
                    SC_EXPECT(planted == (count > 0 ? 1 : 0));
                    SC_EXPECT_EQ_U64(sc_check_count_wrong(&spec, &src, buf, count), planted);
                    if (count > 0) {
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
