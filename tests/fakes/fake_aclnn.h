/* fake_aclnn.h - what the emulated Ascend NPU's operator API shares between its two libraries:
 * the tensor libnnopbase.so makes (fake_nnopbase.c) and libopapi.so's product reads
 * (fake_opapi.c). aclTensor is opaque to a caller (aclnn/acl_meta.h). */
#ifndef FAKE_ACLNN_H
#define FAKE_ACLNN_H

#include <stdint.h>

#define FAKE_ACLNN_MAX_DIMS 8
#define FAKE_ACLNN_MAGIC    0xac1e7e50u

/* aclnnStatus values (aclnn/aclnn_base.h): success, a null pointer, an invalid parameter, a
 * runtime error. */
enum {
    FAKE_ACLNN_SUCCESS = 0,
    FAKE_ACLNN_ERR_PARAM_NULLPTR = 161001,
    FAKE_ACLNN_ERR_PARAM_INVALID = 161002,
    FAKE_ACLNN_ERR_RUNTIME = 361001,
};
/* aclDataType's float types, aclFormat's ND */
enum { FAKE_ACL_FLOAT = 0, FAKE_ACL_FLOAT16 = 1, FAKE_ACL_BF16 = 27, FAKE_ACL_FORMAT_ND = 2 };

typedef struct aclTensor {
    uint32_t magic;
    int ndims, type, format;
    int64_t dims[FAKE_ACLNN_MAX_DIMS], strides[FAKE_ACLNN_MAX_DIMS], offset;
    void *data;
} aclTensor;

#endif
