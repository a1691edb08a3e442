/* fake_kernels.h - the emulated device's kernels (fake_kernels.c): the plugin's kernels,
 * recognised by the names nvcc registers, run as host code on the stream's thread. */
#ifndef FAKE_KERNELS_H
#define FAKE_KERNELS_H

#include "fake_gpu.h"

typedef struct fake_kernel fake_kernel_t;

/* Called by __cudaRegisterFunction for every kernel of a module. */
void fake_kernels_register(const void *host_fun, const char *device_name);
/* The kernel of a host stub, or NULL where none was registered. */
const fake_kernel_t *fake_kernels_find(const void *host_fun);
/* The work of one launch, its arguments copied (a launch returns before it runs):
 * cudaErrorInvalidDeviceFunction for a kernel without a host emulation, cudaErrorInvalidValue
 * for a buffer argument that is not device memory. */
cudaError_t fake_kernels_make(const fake_kernel_t *kernel, void **args, fc_work_t **work);

#endif
