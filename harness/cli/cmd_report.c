/* cmd_report.c - `scalecheck report DIR` re-renders a finished run's summary.json, junit.xml,
 * plots and report.html from its result.json; `scalecheck report DIR1 DIR2` compares the two
 * runs point by point and exits 1 when DIR2 regressed beyond --tolerance (default 5 %). */
#include <stdio.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "report/sc_json_in.h"
#include "report/sc_report.h"

int sc_cmd_report(const sc_rte_t *rte, int argc, char **argv)
{
    if (rte->rank != 0)
        return 0;
    const char *dirs[2] = {NULL, NULL};
    int ndirs = 0;
    double tolerance = 0.05;
    sc_err_t err;
    sc_status_t status = SC_OK;
    for (int i = 2; i < argc && status == SC_OK; i++) {
        if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc)
            status = sc_cli_double("--tolerance", argv[++i], 0, 1, &tolerance, &err);
        else if (argv[i][0] == '-')
            status = sc_err_set(&err, SC_ERR_USAGE,
                                "%s: unknown option (report DIR [DIR2] "
                                "[--tolerance F])",
                                argv[i]);
        else if (ndirs < 2)
            dirs[ndirs++] = argv[i];
        else
            status = sc_err_set(&err, SC_ERR_USAGE, "report: at most two run directories");
    }
    if (status == SC_OK && ndirs == 0)
        status = sc_err_set(&err, SC_ERR_USAGE, "report: give a run directory (or two to compare)");
    sc_result_t a, b;
    sc_result_init(&a, "");
    sc_result_init(&b, "");
    if (status == SC_OK)
        status = sc_json_load_result(dirs[0], &a, &err);
    if (status == SC_OK && ndirs == 2)
        status = sc_json_load_result(dirs[1], &b, &err);
    int regressions = 0;
    if (status == SC_OK && ndirs == 1) {
        status = sc_report_render(dirs[0], &a, &err);
        if (status == SC_OK)
            printf("report: %s/report.html (summary.json, junit.xml, plots)\n", dirs[0]);
    } else if (status == SC_OK) {
        status = sc_report_compare(&a, &b, tolerance, &regressions, &err);
    }
    sc_result_free(&a);
    sc_result_free(&b);
    if (status != SC_OK) {
        fprintf(stderr, "scalecheck report: %s\n", err.msg);
        return sc_status_exit_code(status);
    }
    return regressions > 0 ? 1 : 0;
}
