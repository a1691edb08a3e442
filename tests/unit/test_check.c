/* The exact data check: expected results computed independently here (by simulating each
 * collective from every rank's inputs) agree with the check, and a flipped element is counted. */
#include <stdlib.h>
#include <string.h>

#include "coll/sc_check.h"
#include "sc_test.h"

/* Simulates the result buffer of `rank` for coll with naive loops over every rank's input. */
static void simulate(const sc_check_spec_t *spec, const sc_coll_t *coll, const sc_coll_shape_t *s,
                     void *out)
{
    size_t n = coll->result_count(s);
    for (size_t j = 0; j < n; j++) {
        size_t src_index = 0;
        int src = coll->source(s, j, &src_index);
        double v;
        if (src != SC_COLL_SRC_ALL) {
            v = sc_check_value(spec, src, src_index);
        } else {
            v = sc_check_value(spec, 0, src_index);
            for (int r = 1; r < s->nranks; r++) {
                double x = sc_check_value(spec, r, src_index);
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
            if (spec->op == SC_REDOP_avg) /* the type's own division, as a library does it */
                v = sc_dtype_is_float(spec->dtype)
                        ? sc_dtype_round(spec->dtype, sc_dtype_round(spec->dtype, v) / s->nranks)
                        : (double)((long long)v / s->nranks);
        }
        sc_dtype_store(spec->dtype, out, j, v);
    }
}

static void check_values_fit(void)
{
    /* Sums of 8 ranks stay inside int8; products stay <= 64. */
    for (int op = 0; op < SC_REDOP_COUNT; op++) {
        sc_check_spec_t spec = {SC_DTYPE_int8, (sc_redop_t)op, 42, 8};
        for (uint64_t i = 0; i < 2000; i++) {
            double r = sc_check_reduced(&spec, i);
            SC_EXPECT(r >= -128 && r <= 127);
        }
    }
    sc_check_spec_t spec = {SC_DTYPE_uint8, SC_REDOP_sum, 7, 3};
    int distinct = 0;
    double first = sc_check_value(&spec, 0, 0);
    for (uint64_t i = 1; i < 100; i++)
        distinct += sc_check_value(&spec, 0, i) != first;
    SC_EXPECT(distinct > 50); /* inputs vary, so a result from the wrong place is caught */
    SC_EXPECT(sc_check_value(&spec, 0, 5) != sc_check_value(&spec, 1, 5) ||
              sc_check_value(&spec, 0, 6) != sc_check_value(&spec, 1, 6));
}

int main(void)
{
    check_values_fit();
    const int ranks[] = {1, 2, 3, 8};
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++) {
        for (int d = 0; d < SC_DTYPE_COUNT; d++) {
            for (int op = 0; op < SC_REDOP_COUNT; op++) {
                for (size_t k = 0; k < sizeof(ranks) / sizeof(ranks[0]); k++) {
                    int n = ranks[k];
                    sc_coll_shape_t s = {.rank = n - 1, .nranks = n, .root = 0, .count = 33};
                    sc_check_spec_t spec = {(sc_dtype_t)d, (sc_redop_t)op, 1234 + k, n};
                    size_t count = (*c)->result_count(&s);
                    unsigned char *buf = calloc(count + 1, 8);
                    simulate(&spec, *c, &s, buf);
                    SC_EXPECT_EQ_U64(sc_check_count_wrong(&spec, *c, &s, buf), 0);
                    if (count > 0) {
                        /* One flipped element must be counted, exactly once. */
                        size_t j = count / 2;
                        double v = sc_dtype_load(spec.dtype, buf, j);
                        sc_dtype_store(spec.dtype, buf, j, v >= 7 ? v - 7 : v + 7);
                        SC_EXPECT_EQ_U64(sc_check_count_wrong(&spec, *c, &s, buf), 1);
                        /* A whole result of zeros is caught too (cannot pass by accident). */
                        memset(buf, 0, count * sc_dtype_size(spec.dtype));
                        SC_EXPECT(sc_check_count_wrong(&spec, *c, &s, buf) > count / 4);
                    }
                    free(buf);
                }
            }
        }
    }
    return sc_test_done("test_check");
}
