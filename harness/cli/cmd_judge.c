/* cmd_judge.c - `scalecheck judge --topology T [--baseline B] FILE...`: results other tools
 * wrote (nccl-tests text or -J JSON, OSU micro-benchmarks) held to the topology's model and to a
 * baseline like scalecheck's own runs; its options declared and parsed here, the judging driven
 * by drive/sc_drive_judge.h. */
#include <stdio.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_judge.h"

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, sc_drive_judge_opts_t, field, lo, hi)
static const sc_cli_opt_t judge__options[] = {
    O('Y', "topology", "FILE", "the hardware the results are held to; required", SC_OPT_STRING,
      topology, 0, 0),
    O(0, "baseline", "FILE", "also hold the results to this baseline (baseline create)",
      SC_OPT_STRING, baseline, 0, 0),
    O(0, "algo", "NAME",
      "the algorithm the files' runs forced (NCCL_ALGO): ring, tree, nvls, sharp (default auto)",
      SC_OPT_STRING, algo, 0, 0),
    O(0, "symmetric", NULL,
      "the files' runs registered their buffers as symmetric memory (nccl-tests -R 2)", SC_OPT_FLAG,
      symmetric, 0, 0),
    O(0, "collective", "NAME", "what the files measured, when they do not say", SC_OPT_STRING,
      collective, 0, 0),
    O(0, "gpus", "N",
      "ranks in the run: where the file does not list them (OSU), or over what it lists",
      SC_OPT_INT, gpus, 1, 10000000),
    O(0, "nodes", "N",
      "nodes in the run: where the file does not list them (OSU, a device list cut short), or "
      "over what it lists",
      SC_OPT_INT, nodes, 1, 1000000),
    SC_OPT_COMMON_ROW(sc_drive_judge_opts_t, common, SC_COMMON_FILES, "judge"),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

static sc_status_t judge__parse(sc_drive_judge_opts_t *o, int argc, char **argv, sc_err_t *err)
{
    sc_status_t status = sc_cli_parse_words(judge__options, argc, argv, 2, o, o->files,
                                            JUDGE_MAX_FILES, &o->nfiles, err);
    if (status == SC_OK && !o->help && o->topology == NULL && o->baseline == NULL)
        status = sc_err_set(err, SC_ERR_USAGE,
                            "--topology: required (what to hold the results to), or --baseline");
    if (status == SC_OK && !o->help && o->nfiles == 0)
        status = sc_err_set(err, SC_ERR_USAGE,
                            "judge: give the files to judge (nccl-tests or OSU output)");
    return status;
}

int sc_cmd_judge(const sc_rte_t *rte, int argc, char **argv)
{
    if (rte->rank != 0)
        return 0;
    sc_drive_judge_opts_t o = {0};
    sc_common_opts_default(&o.common, SC_COMMON_FILES);
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = judge__parse(&o, argc, argv, &err);
    if (status != SC_OK) {
        fprintf(stderr, "scalecheck judge: %s\n", err.msg);
        return sc_status_exit_code(status);
    }
    if (o.help) {
        sc_cli_print_help(judge__options, stdout);
        return 0;
    }
    return sc_drive_judge(&o, argc, argv);
}
