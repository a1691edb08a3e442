/* sc_ccl_vendor.h (AMD build) - what RCCL's nccl.h differs in from the shared one
 * (comm/shadow/nccl.h): nothing but that it is RCCL (whose unique id is NCCL's 128 bytes). */
#ifndef SC_CCL_VENDOR_H
#define SC_CCL_VENDOR_H

#define SC_CCL_IS_RCCL       1
#define NCCL_UNIQUE_ID_BYTES 128

#endif
