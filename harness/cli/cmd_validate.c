/* cmd_validate.c - `scalecheck validate FILE...`: checks workload files (and, later, topology
 * files) without running anything. Errors carry file:line:column; exit 2 on the first bad one. */
#include <stdio.h>

#include "cli/sc_cmd.h"
#include "config/sc_workload.h"

int sc_cmd_validate(const sc_rte_t *rte, int argc, char **argv)
{
    if (argc < 3) {
        if (rte->rank == 0)
            fprintf(stderr, "scalecheck validate: give one or more files to check\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        sc_workload_t w;
        sc_err_t err;
        if (sc_workload_load(argv[i], &w, &err) != SC_OK) {
            if (rte->rank == 0)
                fprintf(stderr, "scalecheck validate: %s\n", err.msg);
            return sc_status_exit_code(err.status);
        }
        if (rte->rank == 0)
            printf("%s: ok (workload %s: %.3g parameters, %lld layers, tp %lld, pp %lld, zero "
                   "%lld)\n",
                   argv[i], w.name, w.parameters, w.layers, w.tp, w.pp, w.zero);
    }
    return 0;
}
