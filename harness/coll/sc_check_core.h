/* sc_check_core.h - the exact data check's arithmetic, compiled for the host and for CUDA
 * kernels alike (SC_HOSTDEV), so the device check and its host reference are one code.
 *
 * Input element `index` of `rank` is an integer-valued function of (seed, rank, index), chosen
 * per type and reduction so that every reduction over the ranks is exact: sum/avg magnitudes
 * are bounded by max/nranks, products are 1 or 2 with at most six 2s per element. */
#ifndef SC_CHECK_CORE_H
#define SC_CHECK_CORE_H

#include "util/sc_dtype_core.h"

/* How many ranks may contribute a factor 2 to one element of a product: 2^6 fits in int8. */
#define SC_CHECK_PROD_TWOS 6

/* Where the result elements of one rank come from (filled by each collective's source()). */
typedef enum {
    /* element j: reduction of input element offset + j over ranks 0 .. ranks - 1 (every rank
     * when ranks is 0; a prefix for a scan) */
    SC_SRC_REDUCED,
    SC_SRC_RANK,   /* element j: input element offset + j of rank `rank` */
    SC_SRC_BLOCKS, /* element j: input element offset + j % block of rank j / block */
} sc_src_kind_t;

typedef struct {
    sc_src_kind_t kind;
    int rank;  /* SC_SRC_RANK: whose input */
    int ranks; /* SC_SRC_REDUCED: how many ranks, from rank 0, are reduced (0: all) */
    uint64_t offset;
    uint64_t block;
} sc_src_t;

typedef struct {
    sc_dtype_t dtype;
    sc_redop_t op;
    uint64_t seed;
    int nranks;
    int is_signed;
    double bound; /* largest magnitude an input takes (not used for prod) */
} sc_check_spec_t;

SC_HOSTDEV uint64_t sc_check_mix(uint64_t x)
{
    /* splitmix64 finaliser */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The input value of element `index` on `rank`. */
SC_HOSTDEV double sc_check_value(const sc_check_spec_t *spec, int rank, uint64_t index)
{
    uint64_t h = sc_check_mix(spec->seed ^ sc_check_mix(((uint64_t)(unsigned)rank << 40) ^ index));
    uint64_t n = spec->nranks > 0 ? (uint64_t)spec->nranks : 1;
    if (spec->op == SC_REDOP_prod) {
        int may_double = ((uint64_t)(unsigned)rank + index % n) % n < SC_CHECK_PROD_TWOS;
        return (may_double && (h & 1)) ? 2.0 : 1.0;
    }
    double magnitude = (double)((h >> 8) % ((uint64_t)spec->bound + 1));
    int negative = spec->is_signed && ((h >> 1) & 1) && magnitude > 0;
    return negative ? -magnitude : magnitude;
}

/* The reduction of input element `index` over ranks 0 .. ranks - 1 (0: all), as the result type
 * holds it. avg divides by the ranks reduced as the element type does: integers truncate,
 * floating types round. */
SC_HOSTDEV double sc_check_reduced(const sc_check_spec_t *spec, uint64_t index, int ranks)
{
    int n = ranks > 0 && ranks < spec->nranks ? ranks : spec->nranks;
    double acc = sc_check_value(spec, 0, index);
    for (int r = 1; r < n; r++) {
        double v = sc_check_value(spec, r, index);
        if (spec->op == SC_REDOP_prod)
            acc *= v;
        else if (spec->op == SC_REDOP_min)
            acc = v < acc ? v : acc;
        else if (spec->op == SC_REDOP_max)
            acc = v > acc ? v : acc;
        else
            acc += v;
    }
    if (spec->op == SC_REDOP_avg) {
        double d = (double)n;
        acc = sc_dtype_core_is_float(spec->dtype) ? acc / d : trunc(acc / d);
    }
    return sc_dtype_round(spec->dtype, acc);
}

/* The expected value of result element j. */
SC_HOSTDEV double sc_check_expected(const sc_check_spec_t *spec, const sc_src_t *src, uint64_t j)
{
    switch (src->kind) {
    case SC_SRC_REDUCED:
        return sc_check_reduced(spec, src->offset + j, src->ranks);
    case SC_SRC_RANK:
        return sc_check_value(spec, src->rank, src->offset + j);
    default:
        return sc_check_value(spec, (int)(j / src->block), src->offset + j % src->block);
    }
}

/* Unit roundoff of a floating type (half the gap from 1 to the next value); 0 for integers. */
SC_HOSTDEV double sc_check_unit_roundoff(sc_dtype_t dtype)
{
    switch (dtype) {
    case SC_DTYPE_fp16:
        return 1.0 / 2048; /* 11-bit significand */
    case SC_DTYPE_bf16:
        return 1.0 / 256; /* 8-bit significand */
    case SC_DTYPE_float:
        return 1.0 / 16777216; /* 24-bit significand */
    case SC_DTYPE_double:
        return 1.0 / 9007199254740992.0; /* 53-bit significand */
    default:
        return 0.0;
    }
}

/* Tolerance is 0 except for avg. Integers: 1 (libraries that round rather than truncate).
 * Floating types: NCCL averages by pre-multiplying every input by (T)(1/n) and summing in T, so
 * each of the n products, the n-1 additions and 1/n itself round once, each by at most u times
 * a magnitude the inputs bound (|x_i/n| and every partial sum stay below spec->bound). The
 * error is therefore bounded by (2n + 1) u bound, relative to the inputs and not to the result:
 * a tolerance relative to the result fails wherever the sum cancels to near zero. */
SC_HOSTDEV int sc_check_matches(const sc_check_spec_t *spec, double got, double want)
{
    if (got == want)
        return 1;
    if (spec->op != SC_REDOP_avg)
        return 0;
    double tol = sc_dtype_core_is_float(spec->dtype)
                     ? (2.0 * spec->nranks + 1) * sc_check_unit_roundoff(spec->dtype) * spec->bound
                     : 1.0;
    return fabs(got - want) <= tol;
}

#endif
