/* fuzz_loader.c - libFuzzer target for the YAML loaders (the attack surface): the input is
 * written to a private folder and loaded as a workload (FUZZ_TOPOLOGY undefined) or a topology.
 * The folder holds copies of the shipped bases (FUZZ_BASES: the topologies folder), so that a
 * seed's `extends: localhost.yaml` or `extends: nodes/a100-sxm-8.yaml` resolves and the merge of
 * a file over its base is fuzzed too. Every input must end in SC_OK or a clean error - never a
 * crash, a hang or a sanitizer report. Built by scripts/fuzz.sh with clang
 * -fsanitize=fuzzer,address,undefined. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/sc_workload.h"
#include "topology/sc_topology.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz__dir[64];

static void fuzz__copy(const char *name)
{
    char from[512], to[512], buf[4096];
    snprintf(from, sizeof(from), "%s/%s", FUZZ_BASES, name);
    snprintf(to, sizeof(to), "%s/%s", fuzz__dir, name);
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    for (size_t n; out != NULL && (n = fread(buf, 1, sizeof(buf), in)) > 0;)
        fwrite(buf, 1, n, out);
    if (out != NULL)
        fclose(out);
    if (in != NULL)
        fclose(in);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(fuzz__dir, sizeof(fuzz__dir), "/tmp/sc-fuzz-%d", (int)getpid());
    char nodes[96];
    snprintf(nodes, sizeof(nodes), "%s/nodes", fuzz__dir);
    mkdir(fuzz__dir, 0700);
    mkdir(nodes, 0700);
    fuzz__copy("localhost.yaml");
    fuzz__copy("nodes/a100-sxm-8.yaml");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[96];
    snprintf(path, sizeof(path), "%s/input.yaml", fuzz__dir);
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
