/* sc_drive_run.h - `scalecheck run` driven: sc_drive_run takes what was asked (no argv) and
 * runs it to its exit code; what one run carries from start to end is shared by sc_drive_run.c
 * (the points of the curves, measured) and sc_drive_run_judge.c (calibration, the reference
 * probe, the sweep's second looks and the verdict). */
#ifndef SC_DRIVE_RUN_H
#define SC_DRIVE_RUN_H

#include "drive/sc_drive_run_opts.h"
#include "drive/sc_drive_end.h"
#include "config/sc_workload.h"
#include "patterns/sc_pattern.h"
#include "record/sc_result.h"
#include "report/sc_trace.h"
#include "session/sc_session.h"
#include "topology/sc_topology.h"

typedef struct {
    int gpus_per_node, nodes;
} sc_run_point_t;

typedef struct {
    const sc_rte_t *rte;
    int argc;
    char **argv;
    sc_run_opts_t opts;
    sc_workload_t w;
    sc_topology_t topo;
    sc_baseline_t baseline; /* --baseline, empty without */
    sc_run_point_t points[64];
    int npoints;
    sc_session_t ses;
    sc_drive_ending_t ending;         /* what the watchdog's ending needs */
    sc_result_t doc;                  /* rank 0 */
    double probe_before, probe_after; /* the reference probe around the run, us (0: none) */
    int probe_before_looks, probe_after_looks; /* its measurements (the best kept) */
    sc_load_mark_t load_from;                  /* the hosts' CPU time when the probe began */
    double foreign_cores;                      /* what other processes took since (-1 unknown) */
    char foreign_host[SC_HOST_MAX];            /* ... most of, on this host */
    sc_trace_point_t trace[64];                /* --trace: each point's timelines (rank 0) */
    int ntrace;
} sc_run_t;

/* --calibrate: this machine measured first, in the same launch (the same placement of ranks);
 * rank 0 holds the run to the calibrated topology it writes into the run directory. Collective. */
sc_status_t sc_run_calibrate(sc_run_t *run, sc_err_t *err);
/* The reference probe, when the topology has one to compare with (0 left in *us otherwise);
 * looked at again (up to --looks, the best kept, the count in *looks) while it sits off the
 * calibrated one: a blip of a few milliseconds is not a disturbed run. Collective. */
sc_status_t sc_run_probe(sc_run_t *run, double *us, int *looks, sc_err_t *err);
/* Point i measured again (run->points[i], already in run->doc.points on rank 0): the faster
 * of the two kept, its looks counted. Collective. */
sc_status_t sc_run_point_again(sc_run_t *run, int i, sc_err_t *err);
/* The optional all-reduce sweep with its second looks, the probe after the run, then on rank 0
 * the expectations, the checks (topology, baseline) and the verdict. Collective. */
sc_status_t sc_run_sweep_and_verdict(sc_run_t *run, sc_err_t *err);

/* Where the step's products ran (step->kernels): every rank's TFLOP/s and its compute and
 * communication alone (ms) gathered on control; rank 0 of the point fills p's compute figures
 * and its grid rows'. Collective over the point. */
void sc_run_compute_combine(sc_run_t *run, const sc_step_t *step, sc_comm_t *pc, double alone_c,
                            double alone_m, MPI_Comm control, sc_point_t *p);
/* Each point's GPUs held to the median of their peers' TFLOP/s (sc_peers.h), rank 0. */
void sc_run_compute_checks(const sc_run_t *run, sc_checks_t *checks);
/* The least ranks any host of the job has (a point's GPUs per node fit every host). Collective. */
int sc_drive_ranks_per_host(const sc_rte_t *rte);
/* The run whole: workload, points, session, calibration, probe, curves, sweep, verdict, the
 * documents; every rank returns the exit code (0, 1 a check failed, 2 bad input, 3 a fault,
 * 5 inconclusive). argv is recorded in the document only. Collective. */
int sc_drive_run(const sc_rte_t *rte, const sc_run_opts_t *opts, int argc, char **argv);

#endif
