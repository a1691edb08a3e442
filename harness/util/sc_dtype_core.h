/* sc_dtype_core.h - element access that both the host and CUDA kernels compile (SC_HOSTDEV):
 * load an element as double, store a double, round a value as the type holds it. fp16 and bf16
 * are converted bit by bit (round to nearest even), so host reference and device agree exactly.
 * Included by C and by CUDA C++; keep it to the common subset. */
#ifndef SC_DTYPE_CORE_H
#define SC_DTYPE_CORE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define SC_HOSTDEV __host__ __device__ __forceinline__
#else
#define SC_HOSTDEV static inline
#endif

/* name, storage type, is_float, is_signed, largest integer the data check may use (exact in the
 * type), conversion (NATIVE: a C cast; FP16/BF16: the functions below) */
#define SC_DTYPE_MAP(X)                                                                            \
    X(int8, int8_t, 0, 1, 127.0, NATIVE)                                                           \
    X(uint8, uint8_t, 0, 0, 255.0, NATIVE)                                                         \
    X(int32, int32_t, 0, 1, 2147483647.0, NATIVE)                                                  \
    X(uint32, uint32_t, 0, 0, 4294967295.0, NATIVE)                                                \
    X(int64, int64_t, 0, 1, 9.2e18, NATIVE)                                                        \
    X(uint64, uint64_t, 0, 0, 1.8e19, NATIVE)                                                      \
    X(float, float, 1, 1, 16777216.0, NATIVE)                                                      \
    X(double, double, 1, 1, 9007199254740992.0, NATIVE)                                            \
    X(fp16, uint16_t, 1, 1, 2048.0, FP16)                                                          \
    X(bf16, uint16_t, 1, 1, 256.0, BF16)

typedef enum {
#define SC__DTYPE_ENUM(name, ctype, is_float, is_signed, max, conv) SC_DTYPE_##name,
    SC_DTYPE_MAP(SC__DTYPE_ENUM)
#undef SC__DTYPE_ENUM
        SC_DTYPE_COUNT
} sc_dtype_t;

/* name */
#define SC_REDOP_MAP(X) X(sum) X(prod) X(min) X(max) X(avg)

typedef enum {
#define SC__REDOP_ENUM(name) SC_REDOP_##name,
    SC_REDOP_MAP(SC__REDOP_ENUM)
#undef SC__REDOP_ENUM
        SC_REDOP_COUNT
} sc_redop_t;

SC_HOSTDEV double sc_fp16_to_double(uint16_t h)
{
    double sign = (h & 0x8000u) ? -1.0 : 1.0;
    unsigned exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0)
        return sign * ldexp((double)mant, -24);
    if (exp == 31)
        return mant ? (double)NAN : sign * (double)INFINITY;
    return sign * ldexp((double)(1024u + mant), (int)exp - 25);
}

SC_HOSTDEV uint16_t sc_fp16_from_double(double value)
{
    float f = (float)value;
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint32_t sign = (x >> 16) & 0x8000u, fexp = (x >> 23) & 0xffu, mant = x & 0x7fffffu;
    int exp = (int)fexp - 127 + 15;
    if (fexp == 0xffu)
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0u));
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (exp <= 0) { /* subnormal half, or zero */
        if (exp < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++; /* a carry into the exponent is the right result */
    return (uint16_t)h;
}

SC_HOSTDEV double sc_bf16_to_double(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, sizeof(f));
    return (double)f;
}

SC_HOSTDEV uint16_t sc_bf16_from_double(double value)
{
    float f = (float)value;
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

#define SC__LOAD_NATIVE(ctype, buf, i)     ((double)((const ctype *)(buf))[i])
#define SC__LOAD_FP16(ctype, buf, i)       sc_fp16_to_double(((const ctype *)(buf))[i])
#define SC__LOAD_BF16(ctype, buf, i)       sc_bf16_to_double(((const ctype *)(buf))[i])
#define SC__STORE_NATIVE(ctype, buf, i, v) (((ctype *)(buf))[i] = (ctype)(v))
#define SC__STORE_FP16(ctype, buf, i, v)   (((ctype *)(buf))[i] = sc_fp16_from_double(v))
#define SC__STORE_BF16(ctype, buf, i, v)   (((ctype *)(buf))[i] = sc_bf16_from_double(v))

/* Element i of buf as a double. */
SC_HOSTDEV double sc_dtype_load(sc_dtype_t dtype, const void *buf, size_t i)
{
    switch (dtype) {
#define SC__DTYPE_LOAD(n, ctype, fl, sg, mx, conv)                                                 \
    case SC_DTYPE_##n:                                                                             \
        return SC__LOAD_##conv(ctype, buf, i);
        SC_DTYPE_MAP(SC__DTYPE_LOAD)
#undef SC__DTYPE_LOAD
    default:
        return 0.0;
    }
}

/* Stores value (in the type's range) as element i of buf. */
SC_HOSTDEV void sc_dtype_store(sc_dtype_t dtype, void *buf, size_t i, double value)
{
    switch (dtype) {
#define SC__DTYPE_STORE(n, ctype, fl, sg, mx, conv)                                                \
    case SC_DTYPE_##n:                                                                             \
        SC__STORE_##conv(ctype, buf, i, value);                                                    \
        break;
        SC_DTYPE_MAP(SC__DTYPE_STORE)
#undef SC__DTYPE_STORE
    default:
        break;
    }
}

/* value as the type holds it (stored and loaded back). */
SC_HOSTDEV double sc_dtype_round(sc_dtype_t dtype, double value)
{
    uint64_t tmp[1] = {0};
    sc_dtype_store(dtype, tmp, 0, value);
    return sc_dtype_load(dtype, tmp, 0);
}

SC_HOSTDEV int sc_dtype_core_is_float(sc_dtype_t dtype)
{
    switch (dtype) {
#define SC__DTYPE_FLOAT(n, ctype, fl, sg, mx, conv)                                                \
    case SC_DTYPE_##n:                                                                             \
        return fl;
        SC_DTYPE_MAP(SC__DTYPE_FLOAT)
#undef SC__DTYPE_FLOAT
    default:
        return 0;
    }
}

#endif
