/* sc_drive_preflight.c - preflight inside a measuring command and for `scalecheck preflight`
 * (sc_drive_preflight.h). */
#include "drive/sc_drive_preflight.h"

#include <stdlib.h>

#include "detect/sc_hostcfg_read.h"
#include "judge/sc_preflight.h"
#include "util/sc_clock.h"

static void drive_preflight__print(sc_results_t *res, const sc_result_t *doc, size_t first, int n,
                                   int ranks, double gather_ms)
{
    const sc_check_t *c = &doc->checks.items[doc->checks.n - 1];
    sc_results_printf(res,
                      "# preflight: %d ranks' records (%zu B each) read and gathered in %.1f ms\n",
                      ranks, sizeof(sc_hostcfg_t), gather_ms);
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
