/* cmd_version.c - `scalecheck version`: what was built in, and the library versions. */
#include <jansson.h>
#include <stdio.h>
#include <yaml.h>

#include "cli/sc_cmd.h"
#include "comm/sc_backend.h"
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
    printf("jansson: %s\n", jansson_version_str());
    printf("backends:");
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
