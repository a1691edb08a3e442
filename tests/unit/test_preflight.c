/* Preflight's comparison: alike hosts PASS with no finding; one host with another NCCL is named
 * against the fifteen that agree (error, FAIL); a group of three odd hosts is named as a group;
 * a 1:1 split has no majority; a variable set on one host only is a warning (WARN); a port
 * that is not ACTIVE and a PCIe link below its maximum are each host's own findings. */
#include <stdio.h>
#include <string.h>

#include "judge/sc_preflight.h"
#include "sc_test.h"

#define NHOSTS 16

static void alike(sc_hostcfg_t *h, int n)
{
    memset(h, 0, (size_t)n * sizeof(*h));
    for (int i = 0; i < n; i++) {
        snprintf(h[i].host, sizeof(h[i].host), "h%d", i + 1);
        for (const sc_hostcfg_kind_t *k = sc_hostcfg_kinds; k->field; k++)
            snprintf((char *)&h[i] + k->offset, k->size, "same");
        snprintf(h[i].nccl, sizeof(h[i].nccl), "2.28.9");
        snprintf(h[i].env, sizeof(h[i].env), "NCCL_IB_HCA=mlx5_0\nUCX_TLS=rc\n");
    }
}

/* The findings' texts, one a line; and the level of the one check. */
static sc_level_t judge(const sc_hostcfg_t *h, int n, char *texts, size_t len, size_t *count,
                        double *differing)
{
    sc_findings_t findings = {0};
    sc_checks_t checks = {0};
    sc_level_t level = sc_preflight_judge(h, n, &findings, &checks);
    SC_EXPECT(checks.n == 1 && checks.items[0].level == level);
    *differing = checks.n ? checks.items[0].measured : -1;
    texts[0] = '\0';
    for (size_t i = 0; i < findings.n; i++)
        snprintf(texts + strlen(texts), len - strlen(texts), "%s %s|%s\n",
                 findings.items[i].severity, findings.items[i].host, findings.items[i].what);
    *count = findings.n;
    sc_list_free(&findings);
    sc_list_free(&checks);
    return level;
}

int main(void)
{
    static sc_hostcfg_t h[NHOSTS];
    char texts[4096];
    size_t n = 0;
    double differing = 0;

    alike(h, NHOSTS);
    SC_EXPECT(judge(h, NHOSTS, texts, sizeof(texts), &n, &differing) == SC_LEVEL_PASS);
    SC_EXPECT(n == 0 && differing == 0);

    snprintf(h[6].nccl, sizeof(h[6].nccl), "2.18.5");
    SC_EXPECT(judge(h, NHOSTS, texts, sizeof(texts), &n, &differing) == SC_LEVEL_FAIL);
    SC_EXPECT(n == 1 && differing == 1);
    SC_EXPECT(strcmp(texts, "error h7|h7: NCCL 2.18.5 while 15 hosts have 2.28.9\n") == 0);

    alike(h, NHOSTS);
    for (int i = 1; i < 10; i += 4) /* h2, h6, h10 */
        snprintf(h[i].kernel, sizeof(h[i].kernel), "6.1.0-old");
    SC_EXPECT(judge(h, NHOSTS, texts, sizeof(texts), &n, &differing) == SC_LEVEL_WARN);
    SC_EXPECT(n == 1 && differing == 3);
    SC_EXPECT(strstr(texts, "warning h2|3 hosts (h2, h6, h10): kernel 6.1.0-old while 13 hosts "
                            "have same") != NULL);

    alike(h, 2);
    snprintf(h[1].gpu_driver, sizeof(h[1].gpu_driver), "560.35.03");
    SC_EXPECT(judge(h, 2, texts, sizeof(texts), &n, &differing) == SC_LEVEL_FAIL);
    SC_EXPECT(n == 2 && differing == 2);
    SC_EXPECT(strstr(texts, "h2: GPU driver 560.35.03; no setting has a majority of the 2 hosts") &&
              strstr(texts, "h1: GPU driver same; no setting has a majority of the 2 hosts"));

    alike(h, 4);
    snprintf(h[2].env, sizeof(h[2].env),
             "NCCL_IB_HCA=mlx5_0\nNCCL_SOCKET_IFNAME=eth9\nUCX_TLS=rc\n");
    snprintf(h[3].env, sizeof(h[3].env), "NCCL_IB_HCA=mlx5_1\nUCX_TLS=rc\n");
    SC_EXPECT(judge(h, 4, texts, sizeof(texts), &n, &differing) == SC_LEVEL_WARN);
    SC_EXPECT(n == 2 && differing == 2);
    SC_EXPECT(strstr(texts, "warning h4|h4: NCCL_IB_HCA mlx5_1 while 3 hosts have mlx5_0") &&
              strstr(texts, "warning h3|h3: NCCL_SOCKET_IFNAME eth9 while 3 hosts have (unset)"));

    alike(h, 4);
    snprintf(h[1].ib_down, sizeof(h[1].ib_down), "mlx5_0/1 is DOWN");
    snprintf(h[3].pcie_degraded, sizeof(h[3].pcie_degraded), "GPU 2 at PCIe Gen4 x8 of Gen4 x16");
    SC_EXPECT(judge(h, 4, texts, sizeof(texts), &n, &differing) == SC_LEVEL_FAIL);
    SC_EXPECT(n == 2 && differing == 2);
    SC_EXPECT(strstr(texts, "error h2|h2: mlx5_0/1 is DOWN") &&
              strstr(texts, "warning h4|h4: GPU 2 at PCIe Gen4 x8 of Gen4 x16"));

    /* GPUs at rest: a pending remap breaks a run (an error), memory repaired is a warning */
    alike(h, 4);
    snprintf(h[2].gpu_trouble, sizeof(h[2].gpu_trouble),
             "GPU 5: a row remap pending (reset the GPU)");
    snprintf(h[0].gpu_repairs, sizeof(h[0].gpu_repairs), "GPU 1: 2 retired pages, 0 remapped rows");
    SC_EXPECT(judge(h, 4, texts, sizeof(texts), &n, &differing) == SC_LEVEL_FAIL);
    SC_EXPECT(n == 2 && differing == 2);
    SC_EXPECT(strstr(texts, "error h3|h3: GPU 5: a row remap pending (reset the GPU)") &&
              strstr(texts, "warning h1|h1: GPU 1: 2 retired pages, 0 remapped rows"));
    return sc_test_done("test_preflight");
}
