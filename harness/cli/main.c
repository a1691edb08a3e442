/* main.c - scalecheck: dispatches to a subcommand. MPI is initialised first so that exactly one
 * rank speaks and every rank leaves with the same exit code. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/sc_cmd.h"

typedef struct {
    const char *name;
    int (*run)(const sc_rte_t *rte, int argc, char **argv);
    const char *help;
    bool alone; /* needs no peers: runs without MPI when no launcher started it */
} sc__command_t;

static const sc__command_t sc__commands[] = {
    {"coll", sc_cmd_coll, "measure collectives (nccl-tests-style sweeps)", false},
    {"run", sc_cmd_run, "run a workload's training step and measure its scaling curves", false},
    {"pairs", sc_cmd_pairs, "point-to-point matrix between nodes, and where a problem is", false},
    {"soak", sc_cmd_soak, "the stability run: cycles until --duration, health sampled, drift",
     false},
    {"preflight", sc_cmd_preflight,
     "are all hosts set up the same? versions, GPUs, ports, CPU, kernel; the odd ones named",
     false},
    {"health", sc_cmd_health,
     "check one node for a scheduler: GPUs, an all-reduce, ports (NHC-style exit, reason line)",
     false},
    {"detect", sc_cmd_detect, "write what the hosts really have as a topology file", false},
    {"calibrate", sc_cmd_calibrate,
     "measure this host's and cluster's paths and write them into a topology", false},
    {"plan", sc_cmd_plan, "print the operations one training step of a workload issues", true},
    {"model", sc_cmd_model, "predict what a topology should deliver, without running anything",
     true},
    {"judge", sc_cmd_judge, "hold nccl-tests or OSU output to a topology: the same verdict", true},
    {"baseline", sc_cmd_baseline, "summarise known-good runs into a baseline file (--baseline)",
     true},
    {"report", sc_cmd_report, "re-render a run's report, or compare two runs (regressions)", true},
    {"validate", sc_cmd_validate, "check workload files (file:line:column errors)", true},
    {"compute", sc_cmd_compute, "run the compute phase alone (spin, or cuBLAS GEMM TFLOP/s)",
     false},
    {"telemetry", sc_cmd_telemetry, "sample GPU health through NVML", false},
    {"version", sc_cmd_version, "print versions of scalecheck and its libraries", true},
};

static void sc__usage(FILE *out)
{
    fprintf(out, "usage: mpirun [mpirun options] scalecheck COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(sc__commands) / sizeof(sc__commands[0]); i++)
        fprintf(out, "  %-10s %s\n", sc__commands[i].name, sc__commands[i].help);
    fprintf(out, "\n'scalecheck COMMAND --help' lists a command's options.\n"
                 "exit codes: 0 good, 1 a check failed, 2 bad usage or input, 3 runtime fault\n");
}

static const sc__command_t *sc__find(const char *name)
{
    for (size_t i = 0; name != NULL && i < sizeof(sc__commands) / sizeof(sc__commands[0]); i++)
        if (strcmp(name, sc__commands[i].name) == 0)
            return &sc__commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    sc_rte_t rte;
    sc_err_t err;
    sc_err_clear(&err);
    const sc__command_t *cmd = sc__find(argc > 1 ? argv[1] : NULL);
    sc_status_t started = cmd != NULL && cmd->alone ? sc_rte_init_alone(&argc, &argv, &rte, &err)
                                                    : sc_rte_init(&argc, &argv, &rte, &err);
    if (started != SC_OK) {
        fprintf(stderr, "scalecheck: %s\n", err.msg);
        return sc_status_exit_code(err.status);
    }
    int code = 2;
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (rte.rank == 0)
            sc__usage(argc < 2 ? stderr : stdout);
        code = argc < 2 ? 2 : 0;
    } else {
        if (cmd != NULL)
            code = cmd->run(&rte, argc, argv);
        else if (rte.rank == 0)
            fprintf(stderr, "scalecheck: unknown command '%s' (try scalecheck --help)\n", argv[1]);
    }
    sc_rte_fini(&rte);
    return code;
}
