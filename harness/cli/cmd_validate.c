/* cmd_validate.c - `scalecheck validate FILE...`: checks workload and topology files without
 * running anything (a file with a `model:` section is a workload, else a topology). Errors
 * carry file:line:column; exit 2 on the first bad one. */
#include <stdio.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "config/sc_workload.h"
#include "config/sc_yaml.h"
#include "topology/sc_topology.h"

/* Checks one file; prints its summary on rank 0. */
static sc_status_t validate__one(const char *path, char *summary, size_t len, sc_err_t *err)
{
    sc_yaml_doc_t doc;
    sc_status_t status = sc_yaml_load(path, &doc, err);
    if (status != SC_OK)
        return status;
    bool workload = sc_yaml_get(doc.root, "model") != NULL;
    sc_yaml_free(&doc);
    if (workload) {
        sc_workload_t w;
        status = sc_workload_load(path, &w, err);
        if (status == SC_OK)
            snprintf(summary, len,
                     "workload %s: %.3g parameters, %lld layers, tp %lld, pp %lld, zero %lld",
                     w.name, w.parameters, w.layers, w.tp, w.pp, w.zero);
        return status;
    }
    sc_topology_t t;
    status = sc_topology_load(path, &t, err);
    if (status == SC_OK)
        snprintf(summary, len,
                 "topology %s: %lld x %s per node, %s, %.0f GB/s per GPU, %lld x %.0f Gb/s NICs, "
                 "%lld node%s, %d claim%s",
                 t.name, t.gpus_per_node, t.gpu, sc_fabric_name(t.fabric),
                 sc_topology_intra_GBps(&t), t.nics, t.nic_gbps, t.nodes, t.nodes == 1 ? "" : "s",
                 t.nclaims, t.nclaims == 1 ? "" : "s");
    return status;
}

#define VALIDATE_MAX_FILES 256

typedef struct {
    bool help;
} validate__opts_t;

static const sc_cli_opt_t validate__options[] = {
    SC_OPT_ROW('h', "help", NULL, "this help", SC_OPT_FLAG, validate__opts_t, help, 0, 0),
    SC_OPT_END,
};

int sc_cmd_validate(const sc_rte_t *rte, int argc, char **argv)
{
    validate__opts_t o = {0};
    const char *files[VALIDATE_MAX_FILES];
    int nfiles = 0;
    sc_err_t err;
    sc_status_t status = sc_cli_parse_words(validate__options, argc, argv, 2, &o, files,
                                            VALIDATE_MAX_FILES, &nfiles, &err);
    if (status == SC_OK && o.help) {
        if (rte->rank == 0) {
            printf("usage: scalecheck validate FILE...  (workloads and topologies)\n\n");
            sc_cli_print_help(validate__options, stdout);
        }
        return 0;
    }
    if (status == SC_OK && nfiles == 0)
        status = sc_err_set(&err, SC_ERR_USAGE, "give one or more files to check");
    for (int i = 0; i < nfiles && status == SC_OK; i++) {
        char summary[512];
        status = validate__one(files[i], summary, sizeof(summary), &err);
        if (status == SC_OK && rte->rank == 0)
            printf("%s: ok (%s)\n", files[i], summary);
    }
    if (status != SC_OK && rte->rank == 0)
        fprintf(stderr, "scalecheck validate: %s\n", err.msg);
    return sc_status_exit_code(status);
}
