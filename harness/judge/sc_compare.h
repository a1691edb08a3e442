/* sc_compare.h - systems side by side (`scalecheck compare`): a system measured (a `run`
 * document) or predicted (the model on its topology) at one scale for one workload, its
 * figures normalised - per GPU, per dollar-hour (the topology's cost), per kWh (NVML's power
 * samples where the run has them, the topology's declared power otherwise) - whether the
 * workload fits its GPUs' memory at that layout (the step plan's estimate), and its 0-10
 * scores, weighted and ranked. docs/compare.md states every rule. */
#ifndef SC_JUDGE_COMPARE_H
#define SC_JUDGE_COMPARE_H

#include "config/sc_workload.h"
#include "record/sc_compare.h"
#include "record/sc_result.h"
#include "topology/sc_topology.h"

/* The model's curve of w on t from its first point that fits up to gpus GPUs, and the row at
 * gpus (a layout that does not fit there: throughput 0, memory_fits false, the reason). A
 * predicted efficiency is the step's share of compute (compute / step time). */
sc_status_t sc_compare_predict(const sc_topology_t *t, const sc_workload_t *w, int gpus,
                               sc_compare_system_t *out, sc_err_t *err);

/* A `run` document at gpus GPUs (0: its largest point; SC_ERR_INPUT naming dir when it has no
 * such point), t the topology it was held to and w its workload (either NULL when not found:
 * the figures they give are then absent). */
sc_status_t sc_compare_measured(const sc_result_t *r, const char *dir, const sc_topology_t *t,
                                const sc_workload_t *w, int gpus, sc_compare_system_t *out,
                                sc_err_t *err);

/* Scores every system on every dimension it has the figure for and ranks them: those the
 * workload fits first, then by the weighted total. */
void sc_compare_rank(sc_compare_systems_t *s, const sc_weights_t *weights);

#endif
