/* sc_verdict.h - every measured point held to its reference (the model, a claim, a baseline):
 * the ratio measured / reference (inverted for times), and PASS (>= 1 - tolerance), WARN
 * (>= 1 - fail_tolerance) or FAIL. Against the model the check is two-sided: a figure better
 * than the declared hardware allows is a WARN of its own - the topology under-declares the
 * system. The list becomes the verdict table on the terminal, summary.json and junit.xml (one
 * test case per check). */
#ifndef SC_VERDICT_H
#define SC_VERDICT_H

#include <stdbool.h>

#include "coll/sc_coll.h"
#include "record/sc_record.h"
#include "record/sc_result.h"
#include "topology/sc_topology.h"

/* How a figure is held to its reference. */
typedef struct {
    double tolerance;      /* PASS at ratio >= 1 - tolerance */
    double fail_tolerance; /* FAIL below 1 - fail_tolerance; 0: one tolerance further,
                              1 - (1 - t)^2, so that a wide tolerance never loses its FAIL band */
    bool two_sided;        /* ratio above 1 / (1 - tolerance): WARN, the reference is too low */
} sc_band_t;

/* One-sided, fail_tolerance from the tolerance. */
sc_band_t sc_band(double tolerance);
/* The band of t's model predictions (expect.tolerance, expect.fail_tolerance), two-sided. */
sc_band_t sc_band_model(const sc_topology_t *t);
/* Whether a ratio (higher is better) falls short of band: not PASS, and not a two-sided band's
 * "better than allowed" - what earns a figure another look. */
bool sc_verdict_short(double ratio, const sc_band_t *band);
/* A check made from the best of looks measurements: their count, and a note saying so. */
void sc_verdict_note_looks(sc_check_t *c, int looks);

/* Adds one check: higher_is_better for bandwidth, efficiency, speedup; false for times.
 * Returns the new check (NULL when memory is short). */
sc_check_t *sc_verdict_band(sc_checks_t *checks, const char *name, const char *metric,
                            double measured, double expected, const sc_band_t *band,
                            bool higher_is_better, const char *source);
/* The same with sc_band(tolerance). */
sc_check_t *sc_verdict_add(sc_checks_t *checks, const char *name, const char *metric,
                           double measured, double expected, double tolerance,
                           bool higher_is_better, const char *source);

/* A collective case held to t's model on gpus_per_node x nodes (the check `coll` and `judge`
 * both make): the row gets its expected time, busbw and algorithm, and checks a time check
 * called name (by time, which for a fixed size is the same test as by bandwidth). */
void sc_verdict_case(const sc_topology_t *t, const sc_coll_t *coll, int gpus_per_node, int nodes,
                     const char *name, sc_case_row_t *row, sc_checks_t *checks);

/* Whether a case is slower than t's model lets it PASS (worth another look before the
 * verdict). */
bool sc_verdict_case_slow(const sc_topology_t *t, const sc_coll_t *coll, int gpus_per_node,
                          int nodes, const sc_case_row_t *row);

/* The reference probe `when` ("before the run") against the one t was calibrated with: a WARN
 * at most, with a note - a probe says the machine is not in its calibrated state, not that the
 * system fails. Nothing when t has no calibrated probe. */
void sc_verdict_probe(const sc_topology_t *t, const char *when, double us, int looks,
                      sc_checks_t *checks);
/* Whether the hosts were quiet while the run measured: the most cores other processes kept
 * busy on a host (host: which; -1: unknown, no check) and whether the reference probe was off
 * its calibration. Both busy and off: WARN, a disturbance - a FAIL beside it makes the verdict
 * INCONCLUSIVE (sc_tally_t); either alone says nothing of the system: PASS, noted. */
void sc_verdict_quiet(double foreign_cores, const char *host, bool probe_off, sc_checks_t *checks);
/* Whether every host showed its CPUs in sysfs (host: the first that did not, "" all did): a
 * host without /sys is a WARN and a disturbance - its ranks ran unbound, so a FAIL beside it
 * makes the verdict INCONCLUSIVE. Nothing is added when all did. */
void sc_verdict_sysfs(const char *host, sc_checks_t *checks);
/* Whether a probe of us sits outside the calibrated probe's band (false without one). */
bool sc_verdict_probe_off(const sc_topology_t *t, double us);

/* A claim's check on a measured figure: at least min (or at most max), in the claim's band. */
void sc_verdict_claim(const sc_topology_t *t, const sc_claim_t *c, double measured,
                      sc_checks_t *checks);

/* Whether row measured claim c's case (a collective case of c's GPUs, at or above its size). */
bool sc_verdict_claim_row(const sc_claim_t *c, const sc_case_row_t *r, int gpus_per_node,
                          int nodes);
/* t's claims on collective cases (busbw, algbw, latency) that rows measured on
 * gpus_per_node x nodes GPUs: the first row of the claim's collective at or above its size. */
void sc_verdict_case_claims(const sc_topology_t *t, const sc_case_row_t *rows, size_t nrows,
                            int gpus_per_node, int nodes, sc_checks_t *checks);

/* The exit a document's verdict gives, the same for every command that judges: 1 when a check
 * failed (the document judged), data came back wrong, or a suspect was named; 5
 * (SC_EXIT_INCONCLUSIVE) when every FAIL was measured on a disturbed machine and no data were
 * wrong; else 0. Rank 0's document. */
int sc_verdict_exit(const sc_result_t *doc);

#endif
