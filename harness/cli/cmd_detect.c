/* cmd_detect.c - `scalecheck detect [--output FILE]`: writes, as a topology file, what the hosts
 * of the job really have (CPUs and NUMA, GPUs and NVLinks, NICs, hosts and ranks), and with
 * --topology FILE lists every difference from the declared one as a finding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sc_cmd.h"
#include "session/sc_results.h"
#include "detect/sc_detect.h"
#include "report/sc_verdict_render.h"
#include "util/sc_files.h"

int sc_cmd_detect(const sc_rte_t *rte, int argc, char **argv)
{
    const char *output = NULL, *declared = NULL;
    sc_err_t err;
    sc_status_t status = SC_OK;
    for (int i = 2; i < argc && status == SC_OK; i++) {
        if ((strcmp(argv[i], "--output") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc)
            output = argv[++i];
        else if ((strcmp(argv[i], "--topology") == 0 || strcmp(argv[i], "-T") == 0) && i + 1 < argc)
            declared = argv[++i];
        else
            status = sc_err_set(&err, SC_ERR_USAGE,
                                "%s: unknown option (detect [--output FILE] [--topology FILE])",
                                argv[i]);
    }
    sc_topology_t topo;
    if (status == SC_OK && declared != NULL)
        status = sc_topology_load(declared, &topo, &err);
    if (status == SC_OK)
        status = sc_files_check_output("--output", output, &err);
    sc_detected_t *hosts = NULL;
    if (status == SC_OK)
        status = sc_detect_all(rte, &hosts, &err);
    int per_host = rte->size / rte->nhosts;
    if (status == SC_OK && rte->rank == 0) {
        const sc_detected_t *d = &hosts[0];
        printf("# %d host%s; %s: %d socket%s, %d cores, %d NUMA node%s, %d GPU%s%s%s, %d NIC%s "
               "(%s, %g Gb/s)\n",
               rte->nhosts, rte->nhosts == 1 ? "" : "s", d->host, d->sockets,
               d->sockets == 1 ? "" : "s", d->cores, d->numa_nodes, d->numa_nodes == 1 ? "" : "s",
               d->gpus, d->gpus == 1 ? "" : "s", d->gpus ? "" : " - ", d->gpus ? "" : d->gpu_note,
               d->nics, d->nics == 1 ? "" : "s", d->nic_kind, d->nic_gbps);
        if (output != NULL) {
            status = sc_detect_write_yaml(output, hosts, rte->nhosts, per_host, &err);
            if (status == SC_OK)
                printf("# written: %s\n", output);
        }
        if (status == SC_OK && declared != NULL) {
            sc_topology_t actual;
            sc_findings_t findings = {0};
            sc_detect_compare(&topo, hosts, rte->nhosts, per_host, &actual, &findings);
            printf("# declared %s vs detected:\n", topo.name);
            sc_print_findings(NULL, &findings);
            sc_list_free(&findings);
        }
    }
    free(hosts);
    if (status != SC_OK && rte->rank == 0)
        fprintf(stderr, "scalecheck detect: %s\n", err.msg);
    return sc_status_exit_code(status);
}
