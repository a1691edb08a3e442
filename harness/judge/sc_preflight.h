/* sc_preflight.h - are all hosts set up the same? The hosts' configurations (record/
 * sc_hostcfg.h) compared field by field, and the NCCL_* and UCX_* variables one by one: where
 * hosts differ, the largest group is the reference and each other group is a finding that names
 * its hosts ("h7: NCCL 2.18.5 while 15 hosts have 2.28.9"), with the field's severity; each
 * host's own trouble (a GPU's PCIe link below what it can do, a port not ACTIVE) is a finding
 * too. */
#ifndef SC_PREFLIGHT_H
#define SC_PREFLIGHT_H

#include "record/sc_hostcfg.h"
#include "record/sc_record.h"

/* Findings appended for what differs; one check appended: FAIL when an error-level finding
 * exists, WARN when only warnings do, PASS when the hosts are alike. Returns the check's level. */
sc_level_t sc_preflight_judge(const sc_hostcfg_t *hosts, int n, sc_findings_t *findings,
                              sc_checks_t *checks);

#endif
