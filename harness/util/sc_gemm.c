/* sc_gemm.c - the matrix products' types, shapes and FLOPs. */
#include "util/sc_gemm.h"

#include <math.h>
#include <stdio.h>

#include "util/sc_names.h"

static const char *const gemm__names[] = {
#define SC__GEMM_NAME(name) #name,
    SC_GEMM_TYPE_MAP(SC__GEMM_NAME)
#undef SC__GEMM_NAME
};

const char *sc_gemm_type_name(sc_gemm_type_t type)
{
    return (unsigned)type < SC_GEMM_TYPE_COUNT ? gemm__names[type] : "?";
}

sc_status_t sc_gemm_type_parse(const char *name, const char *flag, sc_gemm_type_t *type,
                               sc_err_t *err)
{
    int found = sc_names_find(gemm__names, SC_GEMM_TYPE_COUNT, name);
    if (found >= 0) {
        *type = (sc_gemm_type_t)found;
        return SC_OK;
    }
    return sc_names_unknown(gemm__names, SC_GEMM_TYPE_COUNT, flag, "matrix-multiply type", name,
                            NULL, err);
}

size_t sc_gemm_type_size(sc_gemm_type_t type)
{
    return type == SC_GEMM_fp16 || type == SC_GEMM_bf16 ? 2 : 4;
}

double sc_gemm_shape_flops(const sc_gemm_shape_t *s)
{
    return 2.0 * s->m * s->n * s->k * s->batch;
}

double sc_gemm_set_flops(const sc_gemm_set_t *set)
{
    double sum = 0;
    for (int i = 0; i < set->n; i++)
        sum += sc_gemm_shape_flops(&set->items[i]);
    return sum;
}

int sc_gemm_set_add(sc_gemm_set_t *set, const char *name, double m, double n, double k,
                    double batch)
{
    if (set->n >= SC_GEMM_SET_MAX)
        return 0;
    sc_gemm_shape_t *s = &set->items[set->n++];
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->m = m;
    s->n = n;
    s->k = k;
    s->batch = batch;
    return 1;
}

long long sc_gemm_dim_at(double dim, double scale)
{
    double at = scale == 1.0 ? dim : dim * cbrt(scale);
    long long rounded = llround(at);
    return rounded < 1 ? 1 : rounded;
}

double sc_gemm_shape_at(const sc_gemm_shape_t *s, double scale, long long dims[4])
{
    dims[0] = sc_gemm_dim_at(s->m, scale);
    dims[1] = sc_gemm_dim_at(s->n, scale);
    dims[2] = sc_gemm_dim_at(s->k, scale);
    dims[3] = llround(s->batch < 1 ? 1 : s->batch);
    return 2.0 * (double)dims[0] * (double)dims[1] * (double)dims[2] * (double)dims[3];
}
