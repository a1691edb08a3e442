#include "sc_check.h"

#include <math.h>

/* How many ranks may contribute a factor 2 to one element of a product: 2^6 fits in int8. */
#define SC__PROD_TWOS 6
/* Values stay small so that float sums remain exact and tables readable. */
#define SC__VALUE_CAP 1000.0

static uint64_t sc__mix(uint64_t x)
{
    /* splitmix64 finaliser */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t sc__hash(uint64_t seed, int rank, uint64_t index)
{
    return sc__mix(seed ^ sc__mix(((uint64_t)(unsigned)rank << 40) ^ index));
}

double sc_check_value(const sc_check_spec_t *spec, int rank, uint64_t index)
{
    uint64_t h = sc__hash(spec->seed, rank, index);
    int n = spec->nranks > 0 ? spec->nranks : 1;
    if (spec->op == SC_REDOP_prod) {
        bool may_double = (uint64_t)((int64_t)rank + (int64_t)(index % (uint64_t)n)) % (uint64_t)n <
                          SC__PROD_TWOS;
        return (may_double && (h & 1)) ? 2.0 : 1.0;
    }
    double bound = sc_dtype_max(spec->dtype);
    if (spec->op == SC_REDOP_sum || spec->op == SC_REDOP_avg)
        bound = floor(bound / n);
    if (bound > SC__VALUE_CAP)
        bound = SC__VALUE_CAP;
    uint64_t span = (uint64_t)bound + 1;
    double magnitude = (double)((h >> 8) % span);
    bool negative = sc_dtype_is_signed(spec->dtype) && ((h >> 1) & 1) && magnitude > 0;
    return negative ? -magnitude : magnitude;
}

void sc_check_fill(const sc_check_spec_t *spec, int rank, uint64_t first, void *buf, size_t count)
{
    for (size_t i = 0; i < count; i++)
        sc_dtype_store(spec->dtype, buf, i, sc_check_value(spec, rank, first + i));
}

double sc_check_reduced(const sc_check_spec_t *spec, uint64_t index)
{
    double acc = sc_check_value(spec, 0, index);
    for (int r = 1; r < spec->nranks; r++) {
        double v = sc_check_value(spec, r, index);
        switch (spec->op) {
        case SC_REDOP_prod:
            acc *= v;
            break;
        case SC_REDOP_min:
            acc = v < acc ? v : acc;
            break;
        case SC_REDOP_max:
            acc = v > acc ? v : acc;
            break;
        case SC_REDOP_sum:
        case SC_REDOP_avg:
        default:
            acc += v;
            break;
        }
    }
    if (spec->op == SC_REDOP_avg) {
        /* Divide as the element type does: integer division truncates, floats round. */
        double n = (double)spec->nranks;
        acc =
            sc_dtype_is_float(spec->dtype) ? sc_dtype_round(spec->dtype, acc / n) : trunc(acc / n);
    }
    return sc_dtype_round(spec->dtype, acc);
}

static bool sc__matches(const sc_check_spec_t *spec, double got, double want)
{
    if (got == want)
        return true;
    if (spec->op != SC_REDOP_avg)
        return false;
    double tol = sc_dtype_is_float(spec->dtype) ? 1e-6 * fabs(want) : 1.0;
    return fabs(got - want) <= tol;
}

uint64_t sc_check_count_wrong(const sc_check_spec_t *spec, const sc_coll_t *coll,
                              const sc_coll_shape_t *s, const void *result)
{
    uint64_t wrong = 0;
    size_t n = coll->result_count(s);
    for (size_t j = 0; j < n; j++) {
        size_t src_index = 0;
        int src = coll->source(s, j, &src_index);
        double want = src == SC_COLL_SRC_ALL ? sc_check_reduced(spec, src_index)
                                             : sc_check_value(spec, src, src_index);
        if (!sc__matches(spec, sc_dtype_load(spec->dtype, result, j), want))
            wrong++;
    }
    return wrong;
}
