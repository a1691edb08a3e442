/* sc_dtype.h - the element types and reduction operations every backend speaks, each kept once
 * in an X-macro list so that names, sizes and parsing come from one place. */
#ifndef SC_DTYPE_H
#define SC_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sc_status.h"

/* name, C type, is_float, is_signed, largest value the data check may use */
#define SC_DTYPE_MAP(X)                                                                            \
    X(int8, int8_t, false, true, 127.0)                                                            \
    X(uint8, uint8_t, false, false, 255.0)                                                         \
    X(int32, int32_t, false, true, 2147483647.0)                                                   \
    X(uint32, uint32_t, false, false, 4294967295.0)                                                \
    X(int64, int64_t, false, true, 9.2e18)                                                         \
    X(uint64, uint64_t, false, false, 1.8e19)                                                      \
    X(float, float, true, true, 16777216.0)                                                        \
    X(double, double, true, true, 9007199254740992.0)

typedef enum {
#define SC__DTYPE_ENUM(name, ctype, is_float, is_signed, max) SC_DTYPE_##name,
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

const char *sc_dtype_name(sc_dtype_t dtype);
size_t sc_dtype_size(sc_dtype_t dtype);
bool sc_dtype_is_float(sc_dtype_t dtype);
bool sc_dtype_is_signed(sc_dtype_t dtype);
double sc_dtype_max(sc_dtype_t dtype);

/* Looks a name up (case-sensitive, plus the aliases nccl-tests users type: char, int, half...).
 * Returns SC_ERR_USAGE naming `flag` and the valid names when unknown. */
sc_status_t sc_dtype_parse(const char *name, const char *flag, sc_dtype_t *dtype, sc_err_t *err);

const char *sc_redop_name(sc_redop_t op);
sc_status_t sc_redop_parse(const char *name, const char *flag, sc_redop_t *op, sc_err_t *err);

/* Element i of buf, converted to double (every value the data check uses is exact in double). */
double sc_dtype_load(sc_dtype_t dtype, const void *buf, size_t i);
/* Stores value (already representable in the type) as element i of buf. */
void sc_dtype_store(sc_dtype_t dtype, void *buf, size_t i, double value);
/* value rounded as the type holds it (cast to the type and back). */
double sc_dtype_round(sc_dtype_t dtype, double value);

#endif
