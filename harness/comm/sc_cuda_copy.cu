/* sc_cuda_copy.cu - a copy by the SMs (sc_cuda_copy.h): a grid-stride loop of 16-byte loads and
 * stores, enough blocks to keep every SM busy. */
#include "comm/sc_cuda_copy.h"

namespace
{

constexpr int kCopyThreads = 512;
constexpr int kBlocksPerSm = 4;

__global__ void sm_copy_kernel(const uint4 *src, uint4 *dst, size_t words)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

} // namespace

extern "C" cudaError_t sc_cuda_copy_sm(void *dst, const void *src, size_t bytes, int sms,
                                       cudaStream_t stream)
{
    size_t words = bytes / sizeof(uint4);
    if (words == 0)
        return cudaSuccess;
    int blocks = (sms > 0 ? sms : 1) * kBlocksPerSm;
    sm_copy_kernel<<<blocks, kCopyThreads, 0, stream>>>(static_cast<const uint4 *>(src),
                                                        static_cast<uint4 *>(dst), words);
    return cudaGetLastError();
}
