/* sc_ascend_compute.c - the Ascend module's matrix products (compute/sc_compute_cuda.h's
 * sc_cuda_gemm_batched) by the operator API's aclnnBatchMatMul (aclnnop/aclnn_batch_matmul.h;
 * its tensors aclnn/acl_meta.h's; loaded by sc_ascend_rt.c): fp16 and bf16 in their own type,
 * fp32 as is, tf32 as HF32 (the cube's 19-bit float, Ascend's counterpart: cubeMathType
 * USE_HF32). The operator's tensors are row-major: the column-major product the backend asks
 * for, C = A B, is its row-major transpose C^T = B^T A^T, which is the same memory - self the
 * batch of B's (n x k), mat2 A's (k x m), out C's (n x m). One call a batch: the first phase
 * sizes the workspace (the handle's, grown as needed) and makes the executor the second
 * consumes. The fill and the spin are the kernel-less modules' shared ones
 * (comm/shadow/sc_shadow_compute.c). */
#include <stdbool.h>
#include <stdint.h>

#include "comm/ascend/sc_ascend_api.h"
#include "compute/sc_compute_cuda.h"
#include "cublas_v2.h"

/* sc_ascend_rt.c: the handle's stream, and its workspace of at least bytes */
bool sc_ascend_blas_stream(cublasHandle_t handle, size_t bytes, cudaStream_t *stream,
                           void **workspace);

/* A row-major [batch, rows, cols] tensor over data. */
static sc_acl_tensor_t *ascend__tensor(const sc_ascend_api_t *api, int type, long long batch,
                                       long long rows, long long cols, const void *data)
{
    const int64_t dims[3] = {batch, rows, cols}, strides[3] = {rows * cols, cols, 1};
    return api->aclCreateTensor(dims, 3, type, strides, 0, SC_ACL_FORMAT_ND, dims, 3, (void *)data);
}

int sc_cuda_gemm_batched(void *handle, int type, long long m, long long n, long long k,
                         long long batch, const void *a, const void *b, void *c)
{
    const sc_ascend_api_t *api = sc_ascend();
    if (api == NULL)
        return SC_ACL_ERROR_INVALID_PARAM;
    /* sc_compute_cuda.h's type (0 fp32, 1 tf32, 2 fp16, 3 bf16) as ACL's */
    int acl = type == 2 ? SC_ACL_FLOAT16 : type == 3 ? SC_ACL_BF16 : SC_ACL_FLOAT;
    int8_t math = type == 1 ? SC_ACL_USE_HF32 : SC_ACL_KEEP_DTYPE;
    sc_acl_tensor_t *self = ascend__tensor(api, acl, batch, n, k, b);
    sc_acl_tensor_t *mat2 = ascend__tensor(api, acl, batch, k, m, a);
    sc_acl_tensor_t *out = ascend__tensor(api, acl, batch, n, m, c);
    uint64_t bytes = 0;
    sc_acl_executor_t *executor = NULL;
    int rc = self && mat2 && out
                 ? api->aclnnBatchMatMulGetWorkspaceSize(self, mat2, out, math, &bytes, &executor)
                 : SC_ACL_ERROR_INVALID_PARAM;
    void *workspace = NULL;
    cudaStream_t stream = NULL;
    if (rc == SC_ACL_SUCCESS)
        rc = sc_ascend_blas_stream(handle, (size_t)bytes, &stream, &workspace)
                 ? api->aclnnBatchMatMul(workspace, bytes, executor, stream)
                 : SC_ACL_ERROR_RT_MEMORY_ALLOCATION;
    sc_acl_tensor_t *made[3] = {self, mat2, out};
    for (int i = 0; i < 3; i++)
        if (made[i] != NULL)
            api->aclDestroyTensor(made[i]);
    return rc;
}
