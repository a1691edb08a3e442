/* fake_nnopbase.c - the emulated Ascend NPU's operator tensors (libnnopbase.so):
 * aclCreateTensor and aclDestroyTensor as aclnn/acl_meta.h documents them - view dimensions and
 * strides in elements, an offset, a format, storage dimensions, the device memory they view;
 * refused (NULL): no dimensions or more than 8, a negative dimension, a format other than ND
 * (the only one emulated), strides missing where dimensions are given. */
#include <stdlib.h>
#include <string.h>

#include "fake_aclnn.h"

#define NNOP__EXPORT __attribute__((visibility("default")))

NNOP__EXPORT aclTensor *aclCreateTensor(const int64_t *dims, uint64_t ndims, int type,
                                        const int64_t *strides, int64_t offset, int format,
                                        const int64_t *storage_dims, uint64_t storage_ndims,
                                        void *data)
{
    if (dims == NULL || ndims == 0 || ndims > FAKE_ACLNN_MAX_DIMS || strides == NULL ||
        storage_dims == NULL || storage_ndims == 0 || format != FAKE_ACL_FORMAT_ND || offset < 0)
        return NULL;
    aclTensor *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    *t = (aclTensor){FAKE_ACLNN_MAGIC, (int)ndims, type, format, {0}, {0}, offset, data};
    for (uint64_t i = 0; i < ndims; i++) {
        if (dims[i] < 0) {
            free(t);
            return NULL;
        }
        t->dims[i] = dims[i];
        t->strides[i] = strides[i];
    }
    return t;
}

NNOP__EXPORT int aclDestroyTensor(const aclTensor *t)
{
    if (t == NULL || t->magic != FAKE_ACLNN_MAGIC)
        return FAKE_ACLNN_ERR_PARAM_NULLPTR;
    ((aclTensor *)t)->magic = 0;
    free((void *)t);
    return FAKE_ACLNN_SUCCESS;
}
