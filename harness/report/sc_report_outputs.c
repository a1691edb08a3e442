/* sc_report_outputs.c - the files a run directory holds besides result.json, one row each
 * (sc_report_outputs.h). */
#include "report/sc_report_outputs.h"

#include "report/sc_json_out.h"
#include "report/sc_prometheus.h"
#include "report/sc_verdict_render.h"

static sc_status_t report_outputs__summary(const char *path, const sc_report_ctx_t *x,
                                           sc_err_t *err)
{
    return sc_json_write_summary(path, x->r, x->plots, x->nplots, x->no_plots_why, err);
}

/* a verdict to give, or an ending to report as a failed test */
static bool report_outputs__has_verdict(const sc_result_t *r)
{
    return r->judged || sc_result_incomplete(r);
}

static sc_status_t report_outputs__junit(const char *path, const sc_report_ctx_t *x, sc_err_t *err)
{
    return sc_verdict_write_junit(path, x->r, err);
}

static sc_status_t report_outputs__metrics(const char *path, const sc_report_ctx_t *x,
                                           sc_err_t *err)
{
    return sc_prometheus_write(path, x->r, err);
}

const sc_report_output_t sc_report_outputs[] = {
    {"summary.json", NULL, report_outputs__summary},
    {"junit.xml", report_outputs__has_verdict, report_outputs__junit},
    {"metrics.prom", NULL, report_outputs__metrics},
    {"report.html", NULL, sc_report_write_html},
    {NULL, NULL, NULL},
};
