/* sc_calibrate.h - `scalecheck calibrate`: what this host and this cluster deliver, measured on
 * the spot so that a run is held to the machine it runs on and not to a spec sheet. An
 * all-reduce ladder inside one host (shared memory, NVLink, PCIe: whatever the ranks of a host
 * use) and between hosts (one rank per host: TCP, InfiniBand), each fitted as alpha-beta lines
 * per size regime (libraries change protocol with the size); how much of a started collective
 * moves on while the rank computes; one rank's memory copy; and a short reference probe that
 * later runs repeat before and after to tell a disturbed machine. The result is written into a
 * topology file (the declared one plus a `calibrated:` block) that `run`, `coll` and `model`
 * read like any other. */
#ifndef SC_CALIBRATE_H
#define SC_CALIBRATE_H

#include "comm/sc_backend.h"
#include "config/sc_workload.h"
#include "engine/sc_sweep.h"
#include "engine/sc_watchdog.h"
#include "record/sc_record.h"
#include "topology/sc_topology.h"

/* Defaults of the ladders (calibrate's --max-size and --iters, run --calibrate). */
#define SC_CALIBRATE_MAX_BYTES ((uint64_t)16 << 20)
#define SC_CALIBRATE_ITERS     SC_SWEEP_ITERS

typedef struct {
    uint64_t max_bytes; /* largest all-reduce of the ladders */
    int iters;          /* timed iterations per size */
    /* a workload whose layer's products each GPU times (NULL: none; a GPU backend only), at
     * compute_scale of their FLOPs */
    const sc_workload_t *w;
    double compute_scale;
} sc_calibrate_opts_t;

/* One path's ladder and its fit. */
typedef struct {
    int ranks;           /* ranks of the ladder's communicator; 0: not measured */
    char where[96];      /* "2 ranks on vm", "4 hosts, one rank each" */
    sc_case_rows_t rows; /* measured (rank 0) */
    sc_regimes_t fit;    /* regimes, ring formula at `ranks` */
    double worst_error;  /* largest |fit - measured| / measured over the ladder */
} sc_calibrated_path_t;

typedef struct {
    sc_calibrated_path_t intra, inter;
    double memory_GBps; /* 0: not measured (buffers in GPU memory) */
    double overlap;     /* -1: not measured */
    double probe_us, probe_spread;
    /* the workload's own products (o->w): the median GPU's TFLOP/s and the slowest's; 0: not
     * measured */
    char compute_workload[64];
    double compute_tflops, compute_tflops_min, compute_scale;
    int compute_gpus;
} sc_calibration_t;

/* Measures everything on world (collective; the results on rank 0). */
sc_status_t sc_calibrate_measure(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd,
                                 const sc_calibrate_opts_t *o, sc_calibration_t *out,
                                 sc_err_t *err);
void sc_calibration_free(sc_calibration_t *c);

/* The reference probe: a small all-reduce on world for ~25 ms, looked at several times; the
 * median of the looks' mean times (us: a mean over a window longer than a time slice sees a
 * core taken by another task) and their spread (max/min - 1) on every rank. Collective. Calibrate
 * records it; runs repeat it before and after and compare. */
sc_status_t sc_probe(sc_comm_t *world, MPI_Comm control, sc_watchdog_t *wd, double *us,
                     double *spread, sc_err_t *err);

/* Fits alpha-beta regimes to an all-reduce ladder on n ranks (sizes growing) that pays
 * `steps` latencies (the model's: a ring inside a host, a tree between hosts): at most
 * SC_TOPOLOGY_MAX_REGIMES lines, as few as keep every point within a few per cent. */
void sc_calibrate_fit(const sc_case_row_t *rows, size_t nrows, int n, double steps,
                      sc_regimes_t *fit, double *worst_error);

/* What measured a calibration, for its `by:` line: version, ranks, hosts, library, date. */
void sc_calibrate_by(sc_comm_t *world, char *by, size_t len);

/* Writes declared_path's text with the calibration as its `calibrated:` block (replacing one
 * it had) to out_path; `by` says what measured it. */
sc_status_t sc_calibrate_write(const char *declared_path, const char *out_path,
                               const sc_calibration_t *c, const char *by, sc_err_t *err);

#endif
