#include "sc_dtype.h"

#include <stdio.h>
#include <string.h>

#include "util/sc_names.h"

typedef struct {
    const char *name;
    size_t size;
    bool is_float;
    bool is_signed;
    double max;
} dtype__dtype_info_t;

static const dtype__dtype_info_t dtype__dtypes[] = {
#define SC__DTYPE_INFO(n, ctype, fl, sg, mx, conv) {#n, sizeof(ctype), fl, sg, mx},
    SC_DTYPE_MAP(SC__DTYPE_INFO)
#undef SC__DTYPE_INFO
};

static const char *const dtype__redop_names[] = {
#define SC__REDOP_NAME(n) #n,
    SC_REDOP_MAP(SC__REDOP_NAME)
#undef SC__REDOP_NAME
};

/* Names users of nccl-tests type for the same types. */
static const struct {
    const char *alias;
    sc_dtype_t dtype;
} dtype__dtype_aliases[] = {
    {"char", SC_DTYPE_int8},     {"int", SC_DTYPE_int32},      {"uint", SC_DTYPE_uint32},
    {"float32", SC_DTYPE_float}, {"float64", SC_DTYPE_double}, {"fp32", SC_DTYPE_float},
    {"fp64", SC_DTYPE_double},   {"half", SC_DTYPE_fp16},      {"float16", SC_DTYPE_fp16},
    {"bfloat16", SC_DTYPE_bf16},
};

const char *sc_dtype_name(sc_dtype_t dtype)
{
    return dtype__dtypes[dtype].name;
}

size_t sc_dtype_size(sc_dtype_t dtype)
{
    return dtype__dtypes[dtype].size;
}

bool sc_dtype_is_float(sc_dtype_t dtype)
{
    return dtype__dtypes[dtype].is_float;
}

bool sc_dtype_is_signed(sc_dtype_t dtype)
{
    return dtype__dtypes[dtype].is_signed;
}

double sc_dtype_max(sc_dtype_t dtype)
{
    return dtype__dtypes[dtype].max;
}

sc_status_t sc_dtype_parse(const char *name, const char *flag, sc_dtype_t *dtype, sc_err_t *err)
{
    const char *names[SC_DTYPE_COUNT];
    for (int i = 0; i < SC_DTYPE_COUNT; i++)
        names[i] = dtype__dtypes[i].name;
    int found = sc_names_find(names, SC_DTYPE_COUNT, name);
    for (size_t i = 0;
         found < 0 && i < sizeof(dtype__dtype_aliases) / sizeof(dtype__dtype_aliases[0]); i++)
        if (strcmp(name, dtype__dtype_aliases[i].alias) == 0)
            found = (int)dtype__dtype_aliases[i].dtype;
    if (found >= 0) {
        *dtype = (sc_dtype_t)found;
        return SC_OK;
    }
    return sc_names_unknown(names, SC_DTYPE_COUNT, flag, "data type", name, "all", err);
}

const char *sc_redop_name(sc_redop_t op)
{
    return dtype__redop_names[op];
}

sc_status_t sc_redop_parse(const char *name, const char *flag, sc_redop_t *op, sc_err_t *err)
{
    int found = sc_names_find(dtype__redop_names, SC_REDOP_COUNT, name);
    if (found >= 0) {
        *op = (sc_redop_t)found;
        return SC_OK;
    }
    return sc_names_unknown(dtype__redop_names, SC_REDOP_COUNT, flag, "reduction", name, "all",
                            err);
}
