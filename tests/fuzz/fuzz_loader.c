/* fuzz_loader.c - libFuzzer target for the YAML loaders (the attack surface): the input is
 * written to a private file and loaded as a workload (FUZZ_TOPOLOGY undefined) or a topology.
 * Every input must end in SC_OK or a clean error - never a crash, a hang or a sanitizer report.
 * Built by scripts/fuzz.sh with clang -fsanitize=fuzzer,address,undefined. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config/sc_workload.h"
#include "topology/sc_topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (path[0] == '\0')
        snprintf(path, sizeof(path), "/tmp/sc-fuzz-%d.yaml", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    sc_err_t err;
#ifdef FUZZ_TOPOLOGY
    static sc_topology_t t; /* large: keep it off the stack */
    (void)sc_topology_load(path, &t, &err);
#else
    sc_workload_t w;
    (void)sc_workload_load(path, &w, &err);
#endif
    return 0;
}
