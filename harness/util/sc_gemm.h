/* sc_gemm.h - a matrix product as data: its math type and its shape (C[m x n] = A[m x k] B[k x n],
 * `batch` times), and a set of them - the products one layer of a workload runs. The step plan
 * lists them (plan/), the backends run them (comm/, compute/), the model prices their FLOPs:
 * one description, so that what is run is what is priced. */
#ifndef SC_GEMM_H
#define SC_GEMM_H

#include <stddef.h>

#include "util/sc_status.h"

/* name: element and compute type of the matrix multiply (TF32: FP32 data, TF32 tensor cores) */
#define SC_GEMM_TYPE_MAP(X) X(fp32) X(tf32) X(fp16) X(bf16)

typedef enum {
#define SC__GEMM_ENUM(name) SC_GEMM_##name,
    SC_GEMM_TYPE_MAP(SC__GEMM_ENUM)
#undef SC__GEMM_ENUM
        SC_GEMM_TYPE_COUNT
} sc_gemm_type_t;

const char *sc_gemm_type_name(sc_gemm_type_t type);
sc_status_t sc_gemm_type_parse(const char *name, const char *flag, sc_gemm_type_t *type,
                               sc_err_t *err);
/* Bytes of one element the product reads and writes (tf32 travels as fp32). */
size_t sc_gemm_type_size(sc_gemm_type_t type);

/* One product, at the workload's full size: dimensions as the workload's arithmetic gives them
 * (3 h / tp may not be whole), rounded only where a product is run (sc_gemm_dim_at). */
typedef struct {
    char name[24]; /* "qkv", "mlp_up.dgrad", "conv3x3" */
    double m, n, k, batch;
} sc_gemm_shape_t;

/* The products of one layer's forward (or backward) for one micro-batch, in issue order. */
#define SC_GEMM_SET_MAX 32
typedef struct {
    sc_gemm_type_t type;
    int n;
    sc_gemm_shape_t items[SC_GEMM_SET_MAX];
} sc_gemm_set_t;

/* 2 m n k batch. */
double sc_gemm_shape_flops(const sc_gemm_shape_t *s);
double sc_gemm_set_flops(const sc_gemm_set_t *set);
/* Appends a shape (false: the set is full). */
int sc_gemm_set_add(sc_gemm_set_t *set, const char *name, double m, double n, double k,
                    double batch);

/* A dimension as it runs at `scale` of the FLOPs: each of m, n, k shrinks by scale^(1/3) (the
 * batch stays), rounded, at least 1. scale 1: the dimension rounded. */
long long sc_gemm_dim_at(double dim, double scale);
/* The dimensions a shape runs at scale: m, n, k (sc_gemm_dim_at) and the batch (rounded, at
 * least 1), into dims; returns the FLOPs they make. */
double sc_gemm_shape_at(const sc_gemm_shape_t *s, double scale, long long dims[4]);

#endif
