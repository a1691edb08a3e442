/* GPU choice per rank, on fake visible-device sets: every rank of a node seeing all its GPUs,
 * Slurm's --gpus-per-task=1 (each rank sees one GPU, its own), and the real duplicates (ranks
 * that see the same one GPU) found by bus id; --device, and the one-line reasons when there is
 * no GPU or a device that does not exist. */
#include <stdio.h>
#include <string.h>

#include "comm/sc_gpu_select.h"
#include "sc_test.h"

#define RANKS 8

/* A host's ranks: visible[r] lists the bus ids rank r sees (nvis[r] of them), in CUDA order.
 * Runs the selection on every rank and returns the shared pair check's answer. */
static int select_on_host(const char *visible[RANKS][RANKS], const int *nvis, int nranks,
                          int *devices)
{
    char bus[RANKS][SC_GPU_BUS_ID_MAX];
    int host_index[RANKS] = {0};
    char why[256];
    for (int r = 0; r < nranks; r++) {
        SC_EXPECT(sc_gpu_select(-1, nvis[r], r, nranks, "n1", "CUDA", NULL, &devices[r], why,
                                sizeof(why)) == SC_OK);
        snprintf(bus[r], sizeof(bus[r]), "%s", visible[r][devices[r]]);
    }
    int a = -1, b = -1;
    int shared =
        sc_gpu_find_shared((const char(*)[SC_GPU_BUS_ID_MAX])bus, host_index, nranks, &a, &b);
    return shared ? a * 100 + b : -1;
}

static const char *const gpus[RANKS] = {"0000:1b:00.0", "0000:43:00.0", "0000:52:00.0",
                                        "0000:61:00.0", "0000:9d:00.0", "0000:c3:00.0",
                                        "0000:d1:00.0", "0000:df:00.0"};

static void check_visible_sets(void)
{
    const char *visible[RANKS][RANKS];
    int nvis[RANKS], dev[RANKS];
    /* Every rank sees the whole node: rank r takes GPU r. */
    for (int r = 0; r < RANKS; r++) {
        nvis[r] = RANKS;
        for (int g = 0; g < RANKS; g++)
            visible[r][g] = gpus[g];
    }
    SC_EXPECT(select_on_host(visible, nvis, RANKS, dev) == -1);
    SC_EXPECT(dev[5] == 5);
    /* --gpus-per-task=1: each rank sees only its own GPU, as device 0. */
    for (int r = 0; r < RANKS; r++) {
        nvis[r] = 1;
        visible[r][0] = gpus[r];
    }
    SC_EXPECT(select_on_host(visible, nvis, RANKS, dev) == -1);
    SC_EXPECT(dev[0] == 0 && dev[7] == 0);
    /* Four ranks that all see the same single GPU: ranks 0 and 1 share it. */
    for (int r = 0; r < 4; r++) {
        nvis[r] = 1;
        visible[r][0] = gpus[2];
    }
    SC_EXPECT(select_on_host(visible, nvis, 4, dev) == 1);
    /* Eight ranks on a host with four visible GPUs: rank 4 lands on rank 0's. */
    for (int r = 0; r < RANKS; r++) {
        nvis[r] = 4;
        for (int g = 0; g < 4; g++)
            visible[r][g] = gpus[g];
    }
    SC_EXPECT(select_on_host(visible, nvis, RANKS, dev) == 4);
    /* The same bus id on two different hosts is no conflict. */
    char bus[2][SC_GPU_BUS_ID_MAX] = {"0000:1b:00.0", "0000:1b:00.0"};
    int hosts[2] = {0, 1}, a = -1, b = -1;
    SC_EXPECT(sc_gpu_find_shared((const char(*)[SC_GPU_BUS_ID_MAX])bus, hosts, 2, &a, &b) == 0);
    /* Ranks without a device (empty ids) on one host share nothing. */
    char none[2][SC_GPU_BUS_ID_MAX] = {"", ""};
    int one_host[2] = {0, 0};
    SC_EXPECT(sc_gpu_find_shared((const char(*)[SC_GPU_BUS_ID_MAX])none, one_host, 2, &a, &b) == 0);
}

int main(void)
{
    char why[256];
    int dev = -1;
    check_visible_sets();
    SC_EXPECT(sc_gpu_select(5, 8, 0, 1, "n1", "CUDA", NULL, &dev, why, sizeof(why)) == SC_OK);
    SC_EXPECT(dev == 5);

    SC_EXPECT(sc_gpu_select(-1, 0, 0, 1, "n1", "CUDA", "CUDA driver version is insufficient", &dev,
                            why, sizeof(why)) == SC_ERR_UNSUPPORTED);
    SC_EXPECT(strcmp(why, "no CUDA device on host n1: CUDA driver version is insufficient") == 0);
    SC_EXPECT(sc_gpu_select(-1, 0, 0, 1, "n2", "CUDA", NULL, &dev, why, sizeof(why)) ==
              SC_ERR_UNSUPPORTED);
    SC_EXPECT(strstr(why, "no CUDA device on host n2") != NULL);

    SC_EXPECT(sc_gpu_select(4, 4, 0, 1, "n4", "CUDA", NULL, &dev, why, sizeof(why)) ==
              SC_ERR_USAGE);
    SC_EXPECT(strstr(why, "--device: device 4 does not exist on host n4 (4 GPUs)") != NULL);
    SC_EXPECT(sc_status_exit_code(SC_ERR_UNSUPPORTED) == 2);
    return sc_test_done("test_gpu_select");
}
