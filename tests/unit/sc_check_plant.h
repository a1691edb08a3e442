/* sc_check_plant.h - plants one wrong element in a correct result, for the data-check tests on
 * the host (test_check) and on the GPU (test_gpu_kernels): one rule for both. */
#ifndef SC_CHECK_PLANT_H
#define SC_CHECK_PLANT_H

#include "coll/sc_check.h"

/* Makes element count/3 of the correct result buf wrong beyond the check's tolerance, and
 * returns how many elements were planted: 1, or 0 when this rank has no result element (a
 * non-root rank of reduce or gather); -1 when no candidate was rejected (a check too lax).
 * Candidates move away from the right value by growing steps, inside the type's range, until the
 * check rejects one. */
static inline int sc_test_plant_wrong(const sc_check_spec_t *spec, const sc_src_t *src, void *buf,
                                      size_t count)
{
    if (count == 0)
        return 0;
    size_t j = count / 3;
    double right = sc_dtype_load(spec->dtype, buf, j);
    double want = sc_check_expected(spec, src, j);
    double top = sc_dtype_max(spec->dtype);
    double bottom = sc_dtype_is_signed(spec->dtype) ? -top : 0.0;
    for (double step = 7; step <= 4096; step *= 4) {
        const double candidates[2] = {right + step, right - step};
        for (int k = 0; k < 2; k++) {
            if (candidates[k] > top || candidates[k] < bottom)
                continue;
            sc_dtype_store(spec->dtype, buf, j, candidates[k]);
            if (!sc_check_matches(spec, sc_dtype_load(spec->dtype, buf, j), want))
                return 1;
        }
    }
    sc_dtype_store(spec->dtype, buf, j, right);
    return -1;
}

#endif
