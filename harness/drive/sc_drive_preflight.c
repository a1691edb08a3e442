/* sc_drive_preflight.c - preflight inside a measuring command and for `scalecheck preflight`
 * (sc_drive_preflight.h). */
#include "drive/sc_drive_preflight.h"

#include <stdio.h>
#include <stdlib.h>

#include "detect/sc_hostcfg_read.h"
#include "drive/sc_drive_end.h"
#include "judge/sc_preflight.h"
#include "judge/sc_verdict.h"
#include "report/sc_verdict_render.h"
#include "util/sc_clock.h"
#include "util/sc_files.h"

static void drive_preflight__print(sc_results_t *res, const sc_result_t *doc, size_t first, int n,
                                   int ranks, double gather_ms)
{
    const sc_check_t *c = &doc->checks.items[doc->checks.n - 1];
    sc_results_printf(res,
                      "# preflight: records of %d host%s (%zu B each, one a host; %d ranks) read "
                      "and gathered in %.1f ms\n",
                      n, n == 1 ? "" : "s", sizeof(sc_hostcfg_t), ranks, gather_ms);
    if (c->level == SC_LEVEL_PASS) {
        sc_results_printf(res,
                          "# preflight: %d host%s set up alike (versions, GPUs, ports, CPU, "
                          "kernel, NCCL_* and UCX_* variables)\n",
                          n, n == 1 ? "" : "s");
        return;
    }
    sc_results_printf(res, "# preflight: %s - %.0f of %d hosts set up differently\n",
                      sc_level_name(c->level), c->measured, n);
    for (size_t i = first; i < doc->findings.n; i++)
        sc_results_printf(res, "#   %-8s %s\n", doc->findings.items[i].severity,
                          doc->findings.items[i].what);
}

sc_status_t sc_drive_preflight_hosts(sc_session_t *ses, sc_result_t *doc, sc_err_t *err)
{
    const sc_rte_t *rte = ses->rte;
    sc_hostcfg_t *hosts = NULL;
    int n = 0;
    sc_watchdog_arm(ses->wd, "preflight: gathering the hosts' configurations",
                    ses->world->world_rank, ses->world->size);
    uint64_t t0 = sc_clock_ns();
    sc_status_t status = sc_hostcfg_gather(rte, &hosts, &n, err);
    double gather_ms = (double)(sc_clock_ns() - t0) * 1e-6;
    sc_watchdog_disarm(ses->wd);
    if (status != SC_OK || rte->rank != 0)
        return status;
    size_t first = doc->findings.n;
    for (int h = 0; h < n; h++) {
        sc_hostcfg_t *kept = SC_LIST_PUSH(&doc->preflight);
        if (kept != NULL)
            *kept = hosts[h];
    }
    sc_preflight_judge(hosts, n, &doc->findings, &doc->checks);
    doc->has_findings = true;
    doc->judged = true;
    drive_preflight__print(&ses->res, doc, first, n, rte->size, gather_ms);
    free(hosts);
    return SC_OK;
}

int sc_drive_preflight(const sc_rte_t *rte, const sc_drive_preflight_opts_t *o, int argc,
                       char **argv)
{
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = sc_drive_check_outputs(&o->common, &err);
    sc_session_t ses = {0};
    sc_drive_ending_t ending = {.command = "preflight", .common = &o->common};
    sc_result_t doc;
    sc_result_init(&doc, "preflight");
    if (status == SC_OK) {
        /* preflight takes no --backend: its default is MPI (it needs no GPU communicator) */
        sc_session_opts_t so = {.common = &o->common, .default_name = "preflight"};
        status = sc_session_open(&ses, rte, &so, &err);
    }
    if (status == SC_OK) {
        sc_session_on_end(&ses, sc_drive_end_hook, &ending);
        if (rte->rank == 0)
            sc_drive_doc_header(&doc, &ses, argc, argv);
        status = sc_drive_preflight_hosts(&ses, &doc, &err);
    }
    int failed = 0;
    if (status == SC_OK && rte->rank == 0) {
        sc_verdict_print_line(&ses.res, &doc.checks);
        failed = sc_verdict_exit(&doc);
        status = sc_drive_complete(&ses, &doc, &ending, &err);
    }
    if (status != SC_OK && rte->rank == 0 && doc.command[0] != '\0' && ses.res.dir[0] != '\0')
        sc_drive_save_failed(&ses, &doc, &err, &ending);
    int code = sc_session_finish(&ses, rte, "preflight", status, &err, failed);
    sc_session_close(&ses);
    sc_result_free(&doc);
    return code;
}
