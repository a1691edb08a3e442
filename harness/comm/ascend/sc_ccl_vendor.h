/* sc_ccl_vendor.h (Ascend build) - what the Ascend adapter's nccl.h differs in from the shared
 * one (comm/shadow/nccl.h): the unique id carries HCCL's root info, HcclRootInfo, 4108 bytes
 * (HCCL_ROOT_INFO_BYTES, hccl_types.h), which the backend sends over MPI as it sends NCCL's. */
#ifndef SC_CCL_VENDOR_H
#define SC_CCL_VENDOR_H

#define SC_CCL_IS_HCCL       1
#define NCCL_UNIQUE_ID_BYTES 4108

#endif
