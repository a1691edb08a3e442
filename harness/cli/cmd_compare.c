/* cmd_compare.c - `scalecheck compare DIR|TOPOLOGY...`: systems side by side. A run directory
 * is a measured system (its scaling curve, its verdict, what it ran with); a topology is a
 * predicted one (the model's curve for --workload). Normalised, scored on the weights and
 * ranked: a terminal table, compare.csv, compare.json and compare.html with the overlaid curves
 * in a results directory of its own (or -o DIR), or docs/compare.md's Markdown table. Runs alone.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "config/sc_weights_load.h"
#include "judge/sc_compare.h"
#include "report/sc_compare_report.h"
#include "report/sc_json_in.h"
#include "sc_config.h"
#include "session/sc_results.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

#define COMPARE_MAX 64

typedef struct {
    sc_common_opts_t common; /* the shared options: the results directory and --name */
    const char *workload, *weights, *output;
    int gpus;
    bool predict, markdown, help;
    const char *inputs[COMPARE_MAX];
    int ninputs;
} compare__opts_t;

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, compare__opts_t, field, lo, hi)
static const sc_cli_opt_t compare__options[] = {
    O('W', "workload", "FILE",
      "the workload to predict (topologies), and to size memory by (default: each run's own)",
      SC_OPT_STRING, workload, 0, 0),
    O(0, "gpus", "N",
      "the scale to compare at (default: a run's largest point; 8 for a prediction)", SC_OPT_INT,
      gpus, 1, 1000000),
    O(0, "predict", NULL, "every input is a topology: the model alone, for systems not at hand",
      SC_OPT_FLAG, predict, 0, 0),
    O(0, "weights", "FILE", "how much each dimension counts (YAML; docs/compare.md)", SC_OPT_STRING,
      weights, 0, 0),
    O('o', "output", "DIR", "write the files here (default: a run directory of its own)",
      SC_OPT_STRING, output, 0, 0),
    SC_OPT_COMMON_ROW(compare__opts_t, common, SC_COMMON_RESULTS_DIR | SC_COMMON_NAME, "compare"),
    O(0, "markdown", NULL, "print the ranking as a Markdown table and write no files", SC_OPT_FLAG,
      markdown, 0, 0),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

static bool compare__is_run(const char *path)
{
    char file[PATH_MAX];
    struct stat st;
    snprintf(file, sizeof(file), "%s/result.json", path);
    return stat(file, &st) == 0;
}

/* A measured system: the run's document, the topology it was held to (the calibrated one it
 * kept, else the shipped one of that name) and its workload. */
static sc_status_t compare__measured(const compare__opts_t *o, const char *dir,
                                     sc_compare_system_t *out, sc_err_t *err)
{
    sc_result_t r;
    sc_status_t status = sc_json_load_result(dir, &r, err);
    if (status != SC_OK)
        return status;
    sc_topology_t t;
    sc_workload_t w;
    char kept[PATH_MAX];
    sc_err_t missing;
    snprintf(kept, sizeof(kept), "%s/calibrated-topology.yaml", dir);
    bool have_t = sc_topology_load(kept, &t, &missing) == SC_OK ||
                  (r.topology[0] && sc_topology_load(r.topology, &t, &missing) == SC_OK);
    const char *wname = o->workload          ? o->workload
                        : r.workload_file[0] ? r.workload_file
                                             : r.workload;
    bool have_w = wname[0] && sc_workload_load(wname, &w, &missing) == SC_OK;
    if (o->workload != NULL && !have_w)
        status = sc_err_set(err, SC_ERR_INPUT, "-W: %s", missing.msg);
    if (status == SC_OK)
        status =
            sc_compare_measured(&r, dir, have_t ? &t : NULL, have_w ? &w : NULL, o->gpus, out, err);
    sc_result_free(&r);
    return status;
}

static sc_status_t compare__predicted(const compare__opts_t *o, const char *name,
                                      sc_compare_system_t *out, sc_err_t *err)
{
    if (o->workload == NULL)
        return sc_err_set(err, SC_ERR_USAGE,
                          "%s: a topology is predicted for a workload: give -W/--workload", name);
    sc_topology_t t;
    sc_workload_t w;
    sc_status_t status = sc_topology_load(name, &t, err);
    if (status == SC_OK)
        status = sc_workload_load(o->workload, &w, err);
    if (status == SC_OK)
        status = sc_compare_predict(&t, &w, o->gpus ? o->gpus : 8, out, err);
    return status;
}

static sc_status_t compare__inputs(const compare__opts_t *o, sc_compare_systems_t *systems,
                                   sc_err_t *err)
{
    if (o->ninputs == 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "compare: give run directories or topologies (see --help)");
    for (int i = 0; i < o->ninputs; i++) {
        bool run = compare__is_run(o->inputs[i]);
        if (run && o->predict)
            return sc_err_set(err, SC_ERR_USAGE,
                              "--predict: %s is a run directory; --predict takes topologies",
                              o->inputs[i]);
        sc_compare_system_t *sys = SC_LIST_PUSH(systems);
        if (sys == NULL)
            return sc_err_set(err, SC_ERR_NOMEM, "compare: no memory");
        sc_status_t status = run ? compare__measured(o, o->inputs[i], sys, err)
                                 : compare__predicted(o, o->inputs[i], sys, err);
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

static sc_status_t compare__write(const compare__opts_t *o, const sc_compare_systems_t *s,
                                  const sc_weights_t *w, int argc, char **argv, sc_err_t *err)
{
    sc_results_t res = {0};
    const char *dir = o->output;
    sc_status_t status = SC_OK;
    if (dir == NULL) {
        status = sc_results_open(&res, o->common.results_base,
                                 o->common.name[0] ? o->common.name : "compare", err);
        dir = res.dir;
    } else {
        status = sc_files_make_folders("-o", dir, err);
    }
    sc_kvs_t head = {0};
    sc_kvs_text(&head, "tool", "scalecheck");
    sc_kvs_text(&head, "version", SC_VERSION);
    sc_kvs_text(&head, "command", "compare");
    char line[192];
    size_t used = (size_t)snprintf(line, sizeof(line), "scalecheck compare");
    for (int i = 2; i < argc && used < sizeof(line); i++)
        used += (size_t)snprintf(line + used, sizeof(line) - used, " %s", argv[i]);
    sc_kvs_text(&head, "command_line", line);
    if (status == SC_OK)
        status = sc_compare_write(dir, s, w, &head, err);
    if (status == SC_OK)
        printf("compare: %s/compare.html (compare.csv, compare.json)\n", dir);
    sc_list_free(&head);
    if (dir == res.dir)
        sc_results_close(&res);
    return status;
}

int sc_cmd_compare(const sc_rte_t *rte, int argc, char **argv)
{
    if (rte->rank != 0)
        return 0;
    compare__opts_t o = {0};
    sc_common_opts_default(&o.common, SC_COMMON_RESULTS_DIR | SC_COMMON_NAME);
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse_words(compare__options, argc, argv, 2, &o, o.inputs,
                                            COMPARE_MAX, &o.ninputs, &err);
    if (status == SC_OK && o.help) {
        sc_cli_print_help(compare__options, stdout);
        return 0;
    }
    sc_weights_t weights;
    sc_weights_default(&weights);
    if (status == SC_OK && o.weights != NULL)
        status = sc_weights_load(o.weights, &weights, &err);
    if (status == SC_OK && o.output != NULL && !o.markdown)
        status = sc_files_check_folder("-o", o.output, &err);
    else if (status == SC_OK && !o.markdown)
        status = sc_results_check_base(o.common.results_base, &err);
    sc_compare_systems_t systems = {0};
    if (status == SC_OK)
        status = compare__inputs(&o, &systems, &err);
    if (status == SC_OK) {
        sc_compare_rank(&systems, &weights);
        sc_compare_print(stdout, &systems, &weights, o.markdown);
        if (!o.markdown)
            status = compare__write(&o, &systems, &weights, argc, argv, &err);
    }
    sc_compare_systems_free(&systems);
    if (status != SC_OK) {
        fprintf(stderr, "scalecheck compare: %s\n", err.msg);
        return sc_status_exit_code(status);
    }
    return 0;
}
