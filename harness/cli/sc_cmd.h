/* sc_cmd.h - the subcommands of the scalecheck program. Each returns the process exit code
 * (0 good, 1 check failed, 2 usage/input, 3 runtime fault) and calls no exit() itself. */
#ifndef SC_CMD_H
#define SC_CMD_H

#include "rte/sc_rte.h"

int sc_cmd_coll(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_compute(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_node(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_telemetry(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_run(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_validate(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_plan(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_model(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_report(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_judge(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_compare(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_detect(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_calibrate(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_pairs(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_soak(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_version(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_baseline(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_preflight(const sc_rte_t *rte, int argc, char **argv);
int sc_cmd_health(const sc_rte_t *rte, int argc, char **argv);

#endif
