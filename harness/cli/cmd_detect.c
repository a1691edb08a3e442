/* cmd_detect.c - `scalecheck detect [--output FILE]`: writes, as a topology file, what the hosts
 * of the job really have (CPUs and NUMA, GPUs and NVLinks, NICs, hosts and ranks), and with
 * --topology FILE lists every difference from the declared one as a finding. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "session/sc_results.h"
#include "detect/sc_detect.h"
#include "detect/sc_detect_match.h"
#include "report/sc_verdict_render.h"
#include "util/sc_files.h"

typedef struct {
    const char *output, *declared, *pick;
    bool help;
} detect__opts_t;

#define O(s, l, meta, help, type, field)                                                           \
    SC_OPT_ROW(s, l, meta, help, type, detect__opts_t, field, 0, 0)
static const sc_cli_opt_t detect__options[] = {
    O('o', "output", "FILE", "write what the hosts have as a topology file", SC_OPT_STRING, output),
    O('Y', "topology", "FILE", "list every difference from this declared topology", SC_OPT_STRING,
      declared),
    O(0, "pick", "FILE",
      "choose the shipped topology that describes this host (GPU model, count, fabric, NICs) and "
      "write it, the GPUs, their library and why, as shell assignments (SC_DETECTED_GPUS, "
      "SC_DETECTED_LIBRARY, SC_TOPOLOGY, SC_TOPOLOGY_WHY) for scripts",
      SC_OPT_STRING, pick),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help),
    SC_OPT_END,
};
#undef O

/* One shell assignment, the value single-quoted (a quote inside closes, escapes and reopens). */
static void detect__assign(FILE *out, const char *name, const char *value)
{
    fprintf(out, "%s='", name);
    for (const char *c = value; *c; c++) {
        if (*c == '\'')
            fputs("'\\''", out);
        else
            fputc(*c, out);
    }
    fputs("'\n", out);
}

typedef struct {
    const sc_detected_t *host;
    const char *path, *why;
} detect__pick_t;

static int detect__pick_writer(FILE *out, void *arg)
{
    const detect__pick_t *p = arg;
    fprintf(out, "# written by scalecheck detect --pick\nSC_DETECTED_GPUS=%d\n", p->host->gpus);
    detect__assign(out, "SC_DETECTED_GPU", p->host->gpus > 0 ? p->host->gpu : "");
    /* the --backend its GPUs take: nccl (NVIDIA), rccl (AMD); mpi without GPUs */
    detect__assign(out, "SC_DETECTED_LIBRARY", p->host->library);
    detect__assign(out, "SC_TOPOLOGY", p->path);
    detect__assign(out, "SC_TOPOLOGY_WHY", p->why);
    return ferror(out);
}

/* Rank 0: the shipped topology for host 0, printed and written to file. */
static sc_status_t detect__pick(const sc_detected_t *host, const char *file, sc_err_t *err)
{
    char dirs[SC_FILES_DIRS_MAX], path[PATH_MAX + 256] = "", why[512];
    bool found = sc_detect_pick(host, sc_files_data_dirs("topologies", dirs, sizeof(dirs)), path,
                                sizeof(path), why, sizeof(why));
    printf("# topology: %s (%s)\n", found ? path : "none shipped fits", why);
    detect__pick_t p = {host, path, why};
    return sc_files_write_text(file, detect__pick_writer, &p, err);
}

int sc_cmd_detect(const sc_rte_t *rte, int argc, char **argv)
{
    detect__opts_t o = {0};
    sc_err_t err;
    sc_status_t status = sc_cli_parse(detect__options, argc, argv, 2, &o, &err);
    if (status == SC_OK && o.help) {
        if (rte->rank == 0) {
            sc_cli_print_help(detect__options, stdout);
        }
        return 0;
    }
    const char *output = o.output, *declared = o.declared;
    sc_topology_t topo;
    if (status == SC_OK && declared != NULL)
        status = sc_topology_load(declared, &topo, &err);
    if (status == SC_OK)
        status = sc_files_check_output("--output", output, &err);
    if (status == SC_OK)
        status = sc_files_check_output("--pick", o.pick, &err);
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
        if (status == SC_OK && o.pick != NULL)
            status = detect__pick(d, o.pick, &err);
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
