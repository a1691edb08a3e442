/* cmd_version.c - `scalecheck version`: what was built in, and the library versions. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "cli/sc_cmd.h"
#include "coll/sc_coll.h"
#include "comm/sc_backend.h"
#include "comm/sc_gpu_plugin.h"
#include "cli/sc_cli.h"
#include "report/sc_json_out.h"
#include "sc_config.h"

typedef struct {
    bool help;
} version__opts_t;

static const sc_cli_opt_t version__options[] = {
    SC_OPT_ROW('h', "help", NULL, "this help", SC_OPT_FLAG, version__opts_t, help, 0, 0),
    SC_OPT_END,
};

/* "NAME runs: allreduce ...": the collectives a backend's table has. */
static void version__runs(const char *name, const sc_backend_ops_t *ops)
{
    printf("%s runs:", name);
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++)
        if (sc_backend_runs(ops, (*c)->id))
            printf(" %s", (*c)->name);
    printf("\n");
}

/* A collective's busbw factor written as the formula it follows: k(n-1)/n, or a constant. */
static const char *version__factor(const sc_coll_t *c)
{
    static char text[32];
    double k = c->busbw_factor(2) * 2.0, at4 = c->busbw_factor(4);
    if (fabs(at4 - k * 0.75) < 1e-12 && k != 0)
        snprintf(text, sizeof(text), k == 1.0 ? "(n-1)/n" : "%g(n-1)/n", k);
    else
        snprintf(text, sizeof(text), "%g", at4);
    return text;
}

int sc_cmd_version(const sc_rte_t *rte, int argc, char **argv)
{
    version__opts_t o = {0};
    sc_err_t err;
    sc_status_t status = sc_cli_parse(version__options, argc, argv, 2, &o, &err);
    if (status != SC_OK || rte->rank != 0) {
        if (status != SC_OK && rte->rank == 0)
            fprintf(stderr, "scalecheck version: %s\n", err.msg);
        return sc_status_exit_code(status);
    }
    if (o.help) {
        sc_cli_print_help(version__options, stdout);
        return 0;
    }
    printf("scalecheck %s\n", SC_VERSION);
    printf("mpi: %s\n", rte->mpi_version);
    printf("libyaml: %s\n", yaml_get_version_string());
    printf("jansson: %s\n", sc_json_library_version());
    printf("collectives:"); /* the registry, in its order; "reductions" take --op */
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++)
        printf(" %s", (*c)->name);
    printf("\nreductions:");
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++)
        if ((*c)->has_op)
            printf(" %s", (*c)->name);
    /* each collective's busbw factor as a formula of the ranks n (docs/REFERENCE.md §1), and
     * those whose size is the whole buffer: the integration tests read both from here */
    printf("\nbusbw factors:");
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++)
        printf(" %s=%s", (*c)->name, version__factor(*c));
    printf("\nsize is total:");
    for (const sc_coll_t *const *c = sc_coll_list(); *c != NULL; c++)
        if ((*c)->size_is_total)
            printf(" %s", (*c)->name);
    printf("\nbackends:");
    for (const sc_backend_ops_t *const *b = sc_backend_list(); *b != NULL; b++)
        printf(" %s", (*b)->name);
    printf("\n");
    /* what each backend runs (the tests measure each collective where its backend has it); the
     * GPU path's from its module, when it loads */
    for (const sc_backend_ops_t *const *b = sc_backend_list(); *b != NULL; b++)
        if (sc_gpu_vendor_of((*b)->name) == NULL)
            version__runs((*b)->name, *b);
    printf("gpu path: built (%sAMD: HIP + RCCL + rocBLAS; Ascend: ACL + HCCL + aclnn; loaded at "
           "run time)\n",
           SC_HAVE_NCCL ? "NVIDIA: CUDA + NCCL + cuBLAS; " : "");
    /* each vendor's module and the libraries it loads, or why it does not load */
    for (const sc_gpu_vendor_t *const *v = sc_gpu_vendors(); *v != NULL; v++) {
        char gpu[PATH_MAX + 512];
        const sc_gpu_plugin_t *plugin = sc_gpu_plugin_load(*v, gpu, sizeof(gpu));
        if (plugin != NULL) {
            version__runs((*v)->backend, plugin->ops);
            plugin->versions(gpu, sizeof(gpu));
            printf("%s\n", gpu);
        } else {
            printf("%s plugin: not loadable: %s\n", (*v)->backend, gpu);
        }
    }
    return 0;
}
