/* Which shipped topology describes a detected host (detect --pick), both ways: the model token
 * of NVML's and the topologies' names; the same model beats the same architecture, which beats
 * nothing; another architecture, the host path and a host without GPUs never match; over the
 * shipped files, 8 H100s with NVSwitch pick dgx-h100, 8 H200s too (said as the same
 * architecture), and an unknown GPU picks none and says what was looked at. */
#include <limits.h>
#include <string.h>

#include "detect/sc_detect_match.h"
#include "sc_test.h"
#include "util/sc_files.h"

static int token_is(const char *name, const char *want)
{
    char token[32];
    sc_detect_gpu_token(name, token, sizeof(token));
    return strcmp(token, want) == 0;
}

static sc_detected_t host(const char *gpu, int gpus, int nvlinks)
{
    sc_detected_t d;
    memset(&d, 0, sizeof(d));
    snprintf(d.host, sizeof(d.host), "h1");
    snprintf(d.gpu, sizeof(d.gpu), "%s", gpu);
    d.gpus = gpus;
    d.nvlinks_up = nvlinks;
    return d;
}

static sc_topology_t topology(const char *gpu, int gpus, int fabric, int library)
{
    sc_topology_t t;
    memset(&t, 0, sizeof(t));
    snprintf(t.name, sizeof(t.name), "t");
    snprintf(t.gpu, sizeof(t.gpu), "%s", gpu);
    t.gpus_per_node = gpus;
    t.fabric = fabric;
    t.library = library;
    return t;
}

static int score(const sc_detected_t *d, const sc_topology_t *t)
{
    return sc_detect_fit(d, t).score;
}

int main(void)
{
    SC_EXPECT(token_is("NVIDIA H100 80GB HBM3", "H100"));
    SC_EXPECT(token_is("H100-SXM5-80GB", "H100"));
    SC_EXPECT(token_is("NVIDIA GeForce RTX 4090", "4090"));
    SC_EXPECT(token_is("AMD Instinct MI250X", "MI250X"));
    SC_EXPECT(token_is("NVIDIA A100-SXM4-40GB", "A100"));
    SC_EXPECT(token_is("cpu-rank", ""));

    sc_topology_t h100 = topology("H100-SXM5-80GB", 8, SC_FABRIC_nvswitch, SC_LIB_nccl);
    sc_detected_t same = host("NVIDIA H100 80GB HBM3", 8, 18);
    sc_detected_t hopper = host("NVIDIA H200", 8, 18);
    sc_detected_t ampere = host("NVIDIA A100-SXM4-80GB", 8, 12);
    /* another model of the architecture is named, never held to (other memory and clocks) */
    SC_EXPECT(score(&same, &h100) > 0 && score(&hopper, &h100) == 0);
    SC_EXPECT(sc_detect_fit(&hopper, &h100).same_architecture);
    SC_EXPECT(strstr(sc_detect_fit(&hopper, &h100).why, "same architecture, other rates") != NULL);
    SC_EXPECT(score(&ampere, &h100) == 0 && !sc_detect_fit(&ampere, &h100).same_architecture);
    /* fewer GPUs, or PCIe where NVSwitch is declared: still the model, a lower score */
    sc_detected_t four = host("NVIDIA H100 80GB HBM3", 4, 18), pcie = host("NVIDIA H100", 8, 0);
    SC_EXPECT(score(&four, &h100) < score(&same, &h100) && score(&four, &h100) > 0);
    SC_EXPECT(score(&pcie, &h100) < score(&same, &h100) && score(&pcie, &h100) > 0);
    sc_topology_t hostpath = topology("H100-SXM5-80GB", 8, SC_FABRIC_shm, SC_LIB_mpi);
    SC_EXPECT(score(&same, &hostpath) == 0);
    sc_detected_t none = host("", 0, -1);
    SC_EXPECT(score(&none, &h100) == 0);

    char dirs[SC_FILES_DIRS_MAX], path[PATH_MAX + 256], why[512];
    sc_files_data_dirs("topologies", dirs, sizeof(dirs));
    SC_EXPECT(sc_detect_pick(&same, dirs, path, sizeof(path), why, sizeof(why)));
    SC_EXPECT(strstr(path, "/dgx-h100.yaml") != NULL && strstr(why, "same GPU") != NULL);
    SC_EXPECT(!sc_detect_pick(&hopper, dirs, path, sizeof(path), why, sizeof(why)));
    SC_EXPECT(path[0] == '\0' && strstr(why, "; nearest ") != NULL &&
              strstr(why, "same architecture, other rates") != NULL);
    sc_detected_t unknown = host("Acme Q7", 8, 0);
    SC_EXPECT(!sc_detect_pick(&unknown, dirs, path, sizeof(path), why, sizeof(why)));
    SC_EXPECT(path[0] == '\0' && strstr(why, "topologies looked at") != NULL);
    return sc_test_done("test_detect_match");
}
