/* cmd_version.c - `scalecheck version`: what was built in, and the library versions. */
#include <stdio.h>
#include <yaml.h>

#include "cli/sc_cmd.h"
#include "coll/sc_coll.h"
#include "comm/sc_backend.h"
#include "report/sc_json_out.h"
#include "sc_config.h"

int sc_cmd_version(const sc_rte_t *rte, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (rte->rank != 0)
        return 0;
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
    printf("\nbackends:");
    for (const sc_backend_ops_t *const *b = sc_backend_list(); *b != NULL; b++)
        printf(" %s", (*b)->name);
    printf("\ngpu path: %s\n", SC_HAVE_NCCL ? "built (CUDA + NCCL + cuBLAS)" : "not built");
#if SC_HAVE_NCCL
    char gpu[256];
    sc_backend_nccl_versions(gpu, sizeof(gpu));
    printf("%s\n", gpu);
#endif
    return 0;
}
