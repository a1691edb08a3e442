/* sc_cuda_check.cu - data-check kernels: grid-stride loops over sc_check_core.h. The whole
 * buffer never travels to the host: only the count of wrong elements does. */
#include "comm/sc_cuda_check.h"

namespace
{

constexpr int kThreads = 256;

int blocks_for(size_t count)
{
    size_t blocks = (count + kThreads - 1) / kThreads;
    return (int)(blocks > 4096 ? 4096 : (blocks ? blocks : 1));
}

__global__ void fill_kernel(void *buf, sc_check_spec_t spec, int rank, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        sc_dtype_store(spec.dtype, buf, i, sc_check_value(&spec, rank, i));
}

__global__ void count_kernel(const void *buf, sc_check_spec_t spec, sc_src_t src, size_t count,
                             unsigned long long *wrong)
{
    unsigned long long mine = 0;
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < count;
         j += (size_t)gridDim.x * blockDim.x)
        mine += !sc_check_matches(&spec, sc_dtype_load(spec.dtype, buf, j),
                                  sc_check_expected(&spec, &src, j));
    if (mine)
        atomicAdd(wrong, mine);
}

} // namespace

extern "C" cudaError_t sc_cuda_check_fill(void *buf, const sc_check_spec_t *spec, int rank,
                                          size_t count, cudaStream_t stream)
{
    if (count == 0)
        return cudaSuccess;
    fill_kernel<<<blocks_for(count), kThreads, 0, stream>>>(buf, *spec, rank, count);
    return cudaGetLastError();
}

extern "C" cudaError_t sc_cuda_check_count(const void *buf, const sc_check_spec_t *spec,
                                           const sc_src_t *src, size_t count,
                                           unsigned long long *d_wrong, cudaStream_t stream)
{
    if (count == 0)
        return cudaSuccess;
    count_kernel<<<blocks_for(count), kThreads, 0, stream>>>(buf, *spec, *src, count, d_wrong);
    return cudaGetLastError();
}
