/* sc_xid_log.h - XID errors the NVIDIA driver has logged since boot (NVML reports only those
 * that happen while it watches): the kernel log's "NVRM: Xid (PCI:0000:1b:00): 79, ..." lines,
 * read from /dev/kmsg (root, or kernel.dmesg_restrict=0) or from the file SCALECHECK_KMSG
 * names (the tests). */
#ifndef SC_XID_LOG_H
#define SC_XID_LOG_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    long long count;    /* XIDs logged for the GPU */
    long long last;     /* the last one's XID (-1: none) */
    long long hardware; /* those that mean the hardware (sc_xid_is_hardware) */
} sc_xid_tally_t;

/* The XIDs logged for the GPU at NVML's bus id ("00000000:1B:00.0"). false, with the reason in
 * why, where the log cannot be read. */
bool sc_xid_log_read(const char *bus_id, sc_xid_tally_t *out, char *why, size_t len);

/* Whether an XID means the hardware (NVIDIA's XID catalogue: 48 double-bit ECC, 61/62 internal
 * micro-controller, 63/64 row remapping, 74 NVLink, 79 fallen off the bus, 92 high single-bit
 * ECC rate, 94/95 contained and uncontained ECC, 119/120 GSP), not an application's fault. */
bool sc_xid_is_hardware(long long xid);

#endif
