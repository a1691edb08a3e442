#include "sc_check.h"

#include <math.h>

/* Values stay small so that tables stay readable and float sums trivially exact. */
#define SC__VALUE_CAP 1000.0

void sc_check_spec_init(sc_check_spec_t *spec, sc_dtype_t dtype, sc_redop_t op, uint64_t seed,
                        int nranks)
{
    double bound = sc_dtype_max(dtype);
    if (op == SC_REDOP_sum || op == SC_REDOP_avg)
        bound = floor(bound / (nranks > 0 ? nranks : 1));
    *spec = (sc_check_spec_t){
        .dtype = dtype,
        .op = op,
        .seed = seed,
        .nranks = nranks,
        .is_signed = sc_dtype_is_signed(dtype),
        .bound = bound > SC__VALUE_CAP ? SC__VALUE_CAP : bound,
    };
}

void sc_check_fill(const sc_check_spec_t *spec, int rank, uint64_t first, void *buf, size_t count)
{
    for (size_t i = 0; i < count; i++)
        sc_dtype_store(spec->dtype, buf, i, sc_check_value(spec, rank, first + i));
}

uint64_t sc_check_count_wrong(const sc_check_spec_t *spec, const sc_src_t *src, const void *result,
                              size_t count)
{
    uint64_t wrong = 0;
    for (size_t j = 0; j < count; j++)
        if (!sc_check_matches(spec, sc_dtype_load(spec->dtype, result, j),
                              sc_check_expected(spec, src, j)))
            wrong++;
    return wrong;
}
