/* cmd_preflight.c - `scalecheck preflight`: are all hosts set up the same? Every rank reports
 * its host's configuration (versions, GPUs, fabric ports, CPU, kernel, NCCL_* and UCX_* variables)
 * in one collective; rank 0 groups the hosts and names the odd ones, with a severity per kind
 * of difference (judge/sc_preflight.h). Exit 1 when an error-level difference exists. coll,
 * run and pairs do the same at the start of every multi-node run. */
#include <stdio.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "drive/sc_drive_end.h"
#include "drive/sc_drive_preflight.h"
#include "report/sc_prometheus.h"
#include "report/sc_report.h"
#include "report/sc_verdict_render.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"

typedef struct {
    double timeout_s;
    const char *json_path, *results_base, *name, *metrics_path;
    bool help;
} preflight__opts_t;

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, preflight__opts_t, field, lo, hi)
static const sc_cli_opt_t preflight__options[] = {
    O(0, "json", "FILE", "also write result.json here", SC_OPT_STRING, json_path, 0, 0),
    O('T', "timeout", "SECONDS", "bound on the gather (default " SC_DEFAULT_TIMEOUT_TEXT ")",
      SC_OPT_DOUBLE, timeout_s, 1, 86400),
    O(0, "results-dir", "DIR", "where run directories go (default " SC_DEFAULT_RESULTS_TEXT ")",
      SC_OPT_STRING, results_base, 0, 0),
    O(0, "name", "NAME", "the run directory's name after the time stamp (default preflight)",
      SC_OPT_NAME, name, 0, 0),
    O(0, "metrics", "FILE", SC_METRICS_HELP, SC_OPT_STRING, metrics_path, 0, 0),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

int sc_cmd_preflight(const sc_rte_t *rte, int argc, char **argv)
{
    preflight__opts_t o = {.timeout_s = SC_DEFAULT_TIMEOUT_S,
                           .results_base = sc_files_results_default()};
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_cli_parse(preflight__options, argc, argv, 2, &o, &err);
    if (status == SC_OK && o.help) {
        if (rte->rank == 0) {
            printf("usage: mpirun -np N scalecheck preflight [options]   (a rank per host is "
                   "enough)\n\n");
            sc_cli_print_help(preflight__options, stdout);
        }
        return 0;
    }
    if (status == SC_OK)
        status = sc_files_check_output("--json", o.json_path, &err);
    if (status == SC_OK)
        status = sc_files_check_output("--metrics", o.metrics_path, &err);
    sc_session_t ses = {0};
    sc_drive_ending_t ending = {
        .command = "preflight", .metrics_path = o.metrics_path, .json_path = o.json_path};
    sc_result_t doc;
    sc_result_init(&doc, "preflight");
    if (status == SC_OK) {
        sc_session_opts_t so = {.backend = "mpi", /* preflight needs no GPU communicator */
                                .device = -1,
                                .timeout_s = o.timeout_s,
                                .results_base = o.results_base,
                                .name = o.name ? o.name : "preflight"};
        status = sc_session_open(&ses, rte, &so, &err);
    }
    if (status == SC_OK) {
        sc_session_on_end(&ses, sc_drive_end_hook, &ending);
        if (rte->rank == 0)
            sc_drive_doc_header(&doc, &ses, argc, argv);
        status = sc_drive_preflight_hosts(&ses, &doc, &err);
    }
    bool failed = false;
    if (status == SC_OK && rte->rank == 0) {
        sc_verdict_print_line(&ses.res, &doc.checks);
        failed = sc_checks_tally(&doc.checks).fail > 0;
        status = sc_drive_save_doc(&ses, &doc, "complete", o.json_path, &err);
        if (status == SC_OK)
            status = sc_report_render(ses.res.dir, &doc, &err);
        if (status == SC_OK && o.metrics_path != NULL)
            status = sc_prometheus_write(o.metrics_path, &doc, &err);
        if (status == SC_OK)
            sc_results_printf(&ses.res, "# report: %s/report.html\n", ses.res.dir);
    }
    if (status != SC_OK && rte->rank == 0 && doc.command[0] != '\0' && ses.res.dir[0] != '\0')
        sc_drive_save_failed(&ses, &doc, &err, o.json_path, o.metrics_path);
    int code = sc_session_finish(&ses, rte, "preflight", status, &err, failed);
    sc_session_close(&ses);
    sc_result_free(&doc);
    return code;
}
