/* main.c - scalecheck: dispatches to a subcommand. MPI is initialised first so that exactly one
 * rank speaks and every rank leaves with the same exit code. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "sc_config.h"
#include "session/sc_results.h"
#include "util/sc_defaults.h"
#include "util/sc_names.h"

typedef struct {
    const char *name;
    int (*run)(const sc_rte_t *rte, int argc, char **argv);
    const char *help;
    bool alone;        /* needs no peers: runs without MPI when no launcher started it */
    const char *usage; /* the synopsis --help opens with (sc_cli_print_help) */
} main__command_t;

static const main__command_t main__commands[] = {
    {"coll", sc_cmd_coll, "measure collectives (nccl-tests-style sweeps)", false,
     "mpirun -np N scalecheck coll [options]"},
    {"run", sc_cmd_run, "run a workload's training step and measure its scaling curves", false,
     "mpirun -np N scalecheck run --workload FILE [options]"},
    {"pairs", sc_cmd_pairs, "point-to-point matrix between nodes, and where a problem is", false,
     "mpirun -np N scalecheck pairs [options]   (a rank per node, or --per rank)"},
    {"soak", sc_cmd_soak, "the stability run: cycles until --duration, health sampled, drift",
     false, "mpirun -np N scalecheck soak --duration DUR [options] | scalecheck soak --resume DIR"},
    {"preflight", sc_cmd_preflight,
     "are all hosts set up the same? versions, GPUs, ports, CPU, kernel; the odd ones named", false,
     "mpirun -np N scalecheck preflight [options]   (a rank per host is enough)"},
    {"node", sc_cmd_node,
     "inside each node: PCIe links, the NIC nearest each GPU, each rank's place, host memory "
     "per NUMA node",
     false, "mpirun -np <ranks a node> scalecheck node [options]"},
    {"health", sc_cmd_health,
     "check one node for a scheduler: GPUs, an all-reduce, ports (NHC-style exit and reason)",
     false, "mpirun -np <ranks of one node> scalecheck health [options]"},
    {"detect", sc_cmd_detect, "write what the hosts really have as a topology file", false,
     "mpirun -np N scalecheck detect [--output FILE] [--topology FILE] [--pick FILE]"},
    {"calibrate", sc_cmd_calibrate,
     "measure this host's and cluster's paths and write them into a topology", false,
     "mpirun -np N scalecheck calibrate --topology FILE [--output FILE] [options]"},
    {"plan", sc_cmd_plan, "print the operations one training step of a workload issues", true,
     "scalecheck plan --workload FILE [options]"},
    {"model", sc_cmd_model, "predict what a topology should deliver, without running anything",
     true, "scalecheck model --topology FILE --workload FILE [options]"},
    {"judge", sc_cmd_judge, "hold nccl-tests or OSU output to a topology: the same verdict", true,
     "scalecheck judge --topology FILE [--baseline FILE] [options] FILE..."},
    {"compare", sc_cmd_compare,
     "systems side by side, measured or predicted: normalised, scored on weights, ranked", true,
     "scalecheck compare [options] RUN_DIR|TOPOLOGY..."},
    {"baseline", sc_cmd_baseline, "summarise known-good runs into a baseline file (--baseline)",
     true, "scalecheck baseline create RUN_DIR... -o FILE [--tolerance F]"},
    {"report", sc_cmd_report, "re-render a run's report, or compare two runs (regressions)", true,
     "scalecheck report DIR | scalecheck report DIR1 [DIR...] DIRN"},
    {"validate", sc_cmd_validate, "check workload files (file:line:column errors)", true,
     "scalecheck validate FILE...  (workloads and topologies)"},
    {"compute", sc_cmd_compute, "run the compute phase alone (spin, or cuBLAS GEMM TFLOP/s)", false,
     "mpirun -np N scalecheck compute [--mode spin|gemm] [options]"},
    {"telemetry", sc_cmd_telemetry, "sample GPU health through NVML", false,
     "mpirun -np N scalecheck telemetry [options]"},
    {"version", sc_cmd_version, "print versions of scalecheck and its libraries", true,
     "scalecheck version"},
};

/* An unknown command, with the nearest one where one is close ("colll": coll). */
static void main__unknown(const char *name)
{
    const char *names[sizeof(main__commands) / sizeof(main__commands[0])];
    int n = 0;
    for (size_t i = 0; i < sizeof(main__commands) / sizeof(main__commands[0]); i++)
        names[n++] = main__commands[i].name;
    const char *near = sc_names_nearest(names, n, name);
    if (near != NULL)
        fprintf(stderr, "scalecheck: unknown command '%s' (did you mean '%s'?)\n", name, near);
    else
        fprintf(stderr, "scalecheck: unknown command '%s' (try scalecheck --help)\n", name);
}

/* scalecheck(1) in roff, or the command names for the completion. */
static bool main__usage_as(FILE *out)
{
    const char *format = sc_cli_help_format();
    size_t n = sizeof(main__commands) / sizeof(main__commands[0]);
    if (!strcmp(format, "exit-codes")) {
        sc_cli_markdown_exit_codes(out);
    } else if (!strcmp(format, "words")) {
        for (size_t i = 0; i < n; i++)
            fprintf(out, "%s%s", i ? " " : "", main__commands[i].name);
        fputc('\n', out);
    } else if (!strcmp(format, "man")) {
        fprintf(out,
                ".TH SCALECHECK 1 \"\" \"scalecheck %s\" \"scalecheck manual\"\n.SH NAME\n"
                "scalecheck \\- prove that a GPU cluster scales\n.SH SYNOPSIS\n.B mpirun\n"
                "[\\fImpirun options\\fR]\n.B scalecheck\n\\fICOMMAND\\fR [\\fIoptions\\fR]\n"
                ".SH DESCRIPTION\n",
                SC_VERSION);
        const sc_cli_page_t *page = sc_cli_page("scalecheck");
        sc_cli_roff(out, page->description);
        fputs("\n.SH COMMANDS\n", out);
        for (size_t i = 0; i < n; i++) {
            fprintf(out, ".TP\n.BR scalecheck\\-%s (1)\n", main__commands[i].name);
            sc_cli_roff(out, main__commands[i].help);
            fputc('\n', out);
        }
        fputs(".SH ENVIRONMENT\n.TP\nSCALECHECK_RESULTS\nwhere run directories go (default: "
              "results/ in the build tree, else ~/.local/share/scalecheck/results)\n",
              out);
        sc_cli_man_exit_codes(out);
        fputs(".SH EXAMPLES\n.nf\n", out);
        sc_cli_roff(out, page->examples);
        fputs("\n.fi\n", out);
    }
    return strcmp(format, "text") != 0;
}

static void main__usage(FILE *out)
{
    if (main__usage_as(out))
        return;
    fprintf(out, "usage: mpirun [mpirun options] scalecheck COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(main__commands) / sizeof(main__commands[0]); i++)
        fprintf(out, "  %-10s %s\n", main__commands[i].name, main__commands[i].help);
    char codes[256];
    fprintf(out,
            "\n'scalecheck COMMAND --help' lists a command's options.\nexit codes (README.md "
            "says what each means, and the verdicts):\n  %s\n",
            sc_exit_codes_line(codes, sizeof(codes)));
}

static const main__command_t *main__find(const char *name)
{
    for (size_t i = 0; name != NULL && i < sizeof(main__commands) / sizeof(main__commands[0]); i++)
        if (strcmp(name, main__commands[i].name) == 0)
            return &main__commands[i];
    return NULL;
}

/* The seconds option `name` (and its short form, 0: none) gives on the command line, before the
 * options are parsed; fallback when absent, or when not a number from 0 to most (the parser
 * refuses those: 1e999 is inf). */
static double main__seconds(int argc, char **argv, const char *name, char short_name, double most,
                            double fallback)
{
    const char *text = NULL;
    size_t len = strlen(name);
    for (int i = 2; i < argc; i++) {
        bool short_form =
            short_name && argv[i][0] == '-' && argv[i][1] == short_name && !argv[i][2];
        if ((short_form || (!strncmp(argv[i], "--", 2) && !strcmp(argv[i] + 2, name))) &&
            i + 1 < argc)
            text = argv[i + 1];
        else if (!strncmp(argv[i], "--", 2) && !strncmp(argv[i] + 2, name, len) &&
                 argv[i][2 + len] == '=')
            text = argv[i] + 3 + len;
    }
    char *end = NULL;
    double seconds = text != NULL ? strtod(text, &end) : fallback;
    bool refused = end == text || *end != '\0' || !(seconds >= 0 && seconds <= most);
    return text != NULL && refused ? fallback : seconds;
}

/* What bounds the start (sc_rte_guard_bound): the command's --timeout (-T) with the graces, or
 * with no such bound (--timeout 0) its --deadline for the whole run, else none. */
static double main__start_bound(int argc, char **argv)
{
    double timeout =
        main__seconds(argc, argv, "timeout", 'T', SC_MAX_TIMEOUT_S, SC_DEFAULT_TIMEOUT_S);
    return timeout > 0 ? SC_START_TIMEOUT_S(timeout)
                       : main__seconds(argc, argv, "deadline", 0, SC_MAX_DEADLINE_S, 0);
}

int main(int argc, char **argv)
{
    sc_rte_t rte;
    sc_err_t err;
    sc_err_clear(&err);
    /* the habit of every tool: scalecheck --version, and scalecheck coll --version */
    for (int i = 1; i < argc && i < 3; i++)
        if (strcmp(argv[i], "--version") == 0) {
            argv[1] = "version";
            argc = 2;
        }
    const main__command_t *cmd = main__find(argc > 1 ? argv[1] : NULL);
    /* the man pages and the completion are made at build time, without an MPI launcher; and
     * help needs no peers either (an MPI singleton's start is the slowest part of it) */
    bool docs = strcmp(sc_cli_help_format(), "text") != 0;
    for (int i = 2; i < argc && !docs; i++)
        docs = strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
    bool alone = (cmd != NULL && cmd->alone) || docs;
    if (!alone)
        sc_rte_guard_bound(main__start_bound(argc, argv));
    sc_status_t started =
        alone ? sc_rte_init_alone(&argc, &argv, &rte, &err) : sc_rte_init(&argc, &argv, &rte, &err);
    if (cmd != NULL)
        sc_cli_set_command(cmd->name, cmd->help, cmd->usage);
    if (started != SC_OK) {
        fprintf(stderr, "scalecheck: %s\n", err.msg);
        return sc_status_exit_code(err.status);
    }
    int code = 2;
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        if (rte.rank == 0)
            main__usage(argc < 2 ? stderr : stdout);
        code = argc < 2 ? 2 : 0;
    } else {
        if (cmd != NULL)
            code = cmd->run(&rte, argc, argv);
        else if (rte.rank == 0)
            main__unknown(argv[1]);
    }
    if (rte.rank == 0)
        sc_results_note_exit(code);
    sc_rte_fini(&rte);
    return code;
}
