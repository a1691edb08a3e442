/* fake_opapi.c - the emulated Ascend NPU's batched matrix product (libopapi.so):
 * aclnnBatchMatMulGetWorkspaceSize and aclnnBatchMatMul, checked as the operator's reference
 * (aclnnop/aclnn_batch_matmul.h) says: three-dimensional tensors, self [b, n, k] x mat2 [b, k, m]
 * -> out [b, n, m], one float type for all three (FLOAT16, BFLOAT16, FLOAT), cubeMathType 0-3
 * (USE_HF32, 3, for FLOAT only), device memory under every tensor; the first phase names a
 * workspace (here always 64 KiB, so that the caller's is exercised) and makes an executor the
 * second consumes, once. Computed by the emulated cuBLAS (fake_cublas.c, linked: its faults, rate
 * and load) as the column-major product of the same memory, on the stream given. Strided
 * (non-contiguous) tensors are not emulated, loudly. */
#include <cublas_v2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "fake_aclnn.h"
#include "fake_gpu.h"

#define OPAPI__EXPORT    __attribute__((visibility("default")))
#define OPAPI__WORKSPACE (64u << 10)

typedef struct aclOpExecutor {
    uint32_t magic;
    const aclTensor *self, *mat2, *out;
    int math;
} aclOpExecutor;

/* One cuBLAS handle a stream (the operator API has none of its own). */
static struct {
    pthread_mutex_t lock;
    cudaStream_t stream[64];
    cublasHandle_t handle[64];
    int n;
} opapi__handles = {.lock = PTHREAD_MUTEX_INITIALIZER};

static cublasHandle_t opapi__handle(cudaStream_t s)
{
    cublasHandle_t h = NULL;
    pthread_mutex_lock(&opapi__handles.lock);
    for (int i = 0; i < opapi__handles.n && h == NULL; i++)
        if (opapi__handles.stream[i] == s)
            h = opapi__handles.handle[i];
    if (h == NULL && opapi__handles.n < 64 && cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) {
        cublasSetStream(h, s);
        opapi__handles.stream[opapi__handles.n] = s;
        opapi__handles.handle[opapi__handles.n++] = h;
    }
    pthread_mutex_unlock(&opapi__handles.lock);
    return h;
}

static size_t opapi__elem(int type)
{
    return type == FAKE_ACL_FLOAT ? 4 : 2;
}

/* A contiguous [b, r, c] tensor of type over device memory; 0, or why not. */
static int opapi__check(const aclTensor *t, int type, int64_t b, int64_t r, int64_t c)
{
    if (t == NULL || t->magic != FAKE_ACLNN_MAGIC)
        return FAKE_ACLNN_ERR_PARAM_NULLPTR;
    if (t->ndims != 3 || t->type != type || t->dims[0] != b || t->dims[1] != r || t->dims[2] != c)
        return FAKE_ACLNN_ERR_PARAM_INVALID;
    if (t->strides[2] != 1 || t->strides[1] != c || t->strides[0] != r * c || t->offset != 0) {
        fprintf(stderr, "fake aclnn: strided tensors are not emulated\n");
        return FAKE_ACLNN_ERR_PARAM_INVALID;
    }
    size_t bytes = (size_t)(b * r * c) * opapi__elem(type);
    return bytes == 0 || fakecuda_is_device(t->data, bytes) ? FAKE_ACLNN_SUCCESS
                                                            : FAKE_ACLNN_ERR_PARAM_INVALID;
}

OPAPI__EXPORT int aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                                   aclTensor *out, int8_t math, uint64_t *workspace,
                                                   aclOpExecutor **executor)
{
    if (self == NULL || mat2 == NULL || out == NULL || workspace == NULL || executor == NULL)
        return FAKE_ACLNN_ERR_PARAM_NULLPTR;
    int type = self->type;
    if ((type != FAKE_ACL_FLOAT && type != FAKE_ACL_FLOAT16 && type != FAKE_ACL_BF16) || math < 0 ||
        math > 3 || (math == 3 && type != FAKE_ACL_FLOAT) || self->ndims != 3)
        return FAKE_ACLNN_ERR_PARAM_INVALID;
    int64_t b = self->dims[0], n = self->dims[1], k = self->dims[2], m = mat2->dims[2];
    int rc = opapi__check(self, type, b, n, k);
    if (rc == FAKE_ACLNN_SUCCESS)
        rc = opapi__check(mat2, type, b, k, m);
    if (rc == FAKE_ACLNN_SUCCESS)
        rc = opapi__check(out, type, b, n, m);
    if (rc != FAKE_ACLNN_SUCCESS)
        return rc;
    aclOpExecutor *e = malloc(sizeof(*e));
    if (e == NULL)
        return FAKE_ACLNN_ERR_RUNTIME;
    *e = (aclOpExecutor){FAKE_ACLNN_MAGIC, self, mat2, out, math};
    *executor = e;
    *workspace = OPAPI__WORKSPACE;
    return FAKE_ACLNN_SUCCESS;
}

OPAPI__EXPORT int aclnnBatchMatMul(void *workspace, uint64_t workspace_size,
                                   aclOpExecutor *executor, cudaStream_t stream)
{
    if (executor == NULL || executor->magic != FAKE_ACLNN_MAGIC)
        return FAKE_ACLNN_ERR_PARAM_NULLPTR;
    if (workspace_size < OPAPI__WORKSPACE || !fakecuda_is_device(workspace, OPAPI__WORKSPACE))
        return FAKE_ACLNN_ERR_PARAM_INVALID;
    const aclTensor *self = executor->self, *mat2 = executor->mat2, *out = executor->out;
    int math = executor->math;
    executor->magic = 0; /* consumed */
    free(executor);
    cublasHandle_t h = opapi__handle(stream);
    if (h == NULL)
        return FAKE_ACLNN_ERR_RUNTIME;
    int type = self->type;
    cudaDataType_t data = type == FAKE_ACL_FLOAT16 ? CUDA_R_16F
                          : type == FAKE_ACL_BF16  ? CUDA_R_16BF
                                                   : CUDA_R_32F;
    long long b = self->dims[0], n = self->dims[1], k = self->dims[2], m = mat2->dims[2];
    float alpha = 1.0f, beta = 0.0f;
    /* row-major out (n x m) = self (n x k) mat2 (k x m) is column-major out^T = mat2^T self^T */
    cublasStatus_t rc = cublasGemmStridedBatchedEx(
        h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &alpha, mat2->data, data, (int)m,
        k * m, self->data, data, (int)k, n * k, &beta, out->data, data, (int)m, n * m, (int)b,
        math == 3 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return rc == CUBLAS_STATUS_SUCCESS ? FAKE_ACLNN_SUCCESS : FAKE_ACLNN_ERR_RUNTIME;
}
