/* sc_soak_verdict.h - a soak judged: each cycle against the limits (expect.soak) as it ends,
 * and the whole run at the end - per host the worst of every health figure over the cycles,
 * and the drift of the performance figures from the first cycles to the last. */
#ifndef SC_SOAK_VERDICT_H
#define SC_SOAK_VERDICT_H

#include "record/sc_soak.h"
#include "topology/sc_topology.h"

/* The cycle's level and what broke the limits (c->level, c->breaches): FAIL on a hot GPU or
 * CPU, throttling past its share, uncorrected ECC or EDAC errors, an XID, a node suspect. */
void sc_soak_judge_cycle(sc_soak_cycle_t *c, const sc_soak_limits_t *l);

/* How many cycles at each end a drift compares (their medians): a third of the run, 2 to 3;
 * below SC_SOAK_DRIFT_CYCLES cycles there is no drift check (one noisy cycle is no trend). */
#define SC_SOAK_DRIFT_CYCLES 6
int sc_soak_drift_span(int ncycles);

/* The most the largest sweep size's busbw may swing between cycles: its slowest cycle at a fifth
 * of the median FAILs, however few the cycles (or past max_drift, where that is wider: 1, not
 * judged). */
#define SC_SOAK_SWING_MAX 5.0

/* The run's checks: per host and limit the worst cycle (its number in the note); corrected
 * errors that grew (ECC, PCIe replays, NVLink, EDAC, InfiniBand) a WARN; the drift of the
 * largest sweep size's busbw, the step time and the slowest pair, FAIL past max_drift
 * (SC_SOAK_DRIFT_CYCLES cycles at least); the swing of the busbw (two cycles at least). What
 * could not be checked - a limit no sensor reported, the drift of a short soak - into
 * not_checked ("; "-separated, "" none): said, never a PASS. */
void sc_soak_judge(const sc_soak_cycles_t *cycles, const sc_soak_limits_t *l, sc_checks_t *checks,
                   char *not_checked, size_t len);

/* The GPUs under the soak's load, per host (sc_soak_gpu_verdict.c): pages retired and rows
 * remapped before the soak began (WARN, with the counts and the GPU), the SM clock against its
 * peers' median (the peers' band, naming the GPU, its clock and its top one), and the memory
 * error rate the seeds ask for (ECC errors per GB-hour: WARN above 0). */
void sc_soak_judge_gpus(const sc_soak_cycles_t *cycles, sc_checks_t *checks);

#endif
