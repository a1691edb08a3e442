/* sc_node_verdict.c - inside the node, judged (sc_node_verdict.h). */
#include "judge/sc_node_verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/sc_verdict.h"

/* nvidia-smi's classes in sc_pci_distance_t's order: NODE and SYS cross host bridges */
#define NODE__CLASS_NODE 3

/* a NUMA node below the host's best by these shares: BIOS settings halve a socket's */
#define NODE__MEMORY_WARN 0.2
#define NODE__MEMORY_FAIL 0.5

sc_level_t sc_node_nic_level(int nearest_class)
{
    return nearest_class >= NODE__CLASS_NODE ? SC_LEVEL_WARN : SC_LEVEL_PASS;
}

sc_level_t sc_node_rank_level(int cpu_numa, int spans, int gpu_numa, int nic_class,
                              int nearest_class)
{
    if ((gpu_numa >= 0 && cpu_numa >= 0 && cpu_numa != gpu_numa) ||
        (nic_class >= 0 && nearest_class >= 0 && nic_class > nearest_class))
        return SC_LEVEL_FAIL;
    return gpu_numa >= 0 && spans > 1 ? SC_LEVEL_WARN : SC_LEVEL_PASS;
}

/* The best memory figure of a host's NUMA nodes, and how many it has. */
static double node__best_memory(const sc_node_rows_t *rows, const char *host, int *nodes)
{
    double best = 0;
    *nodes = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const sc_node_row_t *r = &rows->items[i];
        if (strcmp(r->kind, "memory") == 0 && strcmp(r->host, host) == 0) {
            (*nodes)++;
            best = fmax(best, r->measured_GBps);
        }
    }
    return best;
}

/* A row's own check: its name, and the row's figures where it has them. */
static void node__check(const sc_node_row_t *r, const char *words, sc_checks_t *checks,
                        sc_level_t *level)
{
    char name[192];
    snprintf(name, sizeof(name), "%s: %.60s on %.40s (%.60s)", words, r->what, r->host, r->detail);
    if (sc_present(r->measured_GBps) && sc_present(r->expected_GBps) && r->expected_GBps > 0) {
        bool memory = strcmp(r->kind, "memory") == 0;
        sc_band_t band = {.tolerance = memory ? NODE__MEMORY_WARN : 0.01,
                          .fail_tolerance = memory ? NODE__MEMORY_FAIL : 0.01};
        sc_check_t *c = sc_verdict_band(checks, name, "GBps", r->measured_GBps, r->expected_GBps,
                                        &band, true, memory ? "the host's best node" : "its best");
        *level = c != NULL ? c->level : *level;
        return;
    }
    sc_check_t *c = sc_verdict_add(checks, name, "placement", *level == SC_LEVEL_PASS, 1, 0, true,
                                   "its GPU's place");
    if (c != NULL)
        c->level = *level;
}

/* One PASS check for a kind whose rows all passed (and were judged). */
static void node__all_passed(const sc_node_rows_t *rows, const char *kind, const char *words,
                             sc_checks_t *checks)
{
    int n = 0;
    for (size_t i = 0; i < rows->n; i++) {
        if (strcmp(rows->items[i].kind, kind) != 0)
            continue;
        if (rows->items[i].level != SC_LEVEL_PASS)
            return;
        n++;
    }
    char name[192];
    snprintf(name, sizeof(name), "%s (%d)", words, n);
    if (n > 0)
        sc_verdict_add(checks, name, "count", n, n, 0, true, "sysfs");
}

void sc_verdict_node(sc_node_rows_t *rows, sc_checks_t *checks)
{
    for (size_t i = 0; i < rows->n; i++) {
        sc_node_row_t *r = &rows->items[i];
        if (strcmp(r->kind, "link") == 0) {
            r->level = r->measured_GBps < r->expected_GBps ? SC_LEVEL_FAIL : SC_LEVEL_PASS;
            if (r->level != SC_LEVEL_PASS)
                node__check(r, "PCIe link at its best", checks, &r->level);
        } else if (strcmp(r->kind, "gpu-nic") == 0 && r->level != SC_LEVEL_PASS) {
            node__check(r, "a NIC under the GPU's host bridge", checks, &r->level);
        } else if (strcmp(r->kind, "rank") == 0 && r->level != SC_LEVEL_PASS) {
            node__check(r, "rank near its GPU and NIC", checks, &r->level);
        } else if (strcmp(r->kind, "memory") == 0) {
            int nodes = 0;
            double best = node__best_memory(rows, r->host, &nodes);
            r->expected_GBps = nodes > 1 ? best : SC_ABSENT;
            if (nodes > 1)
                node__check(r, "NUMA node's memory as fast as the host's best", checks, &r->level);
        }
    }
    node__all_passed(rows, "link", "every PCIe link at its best", checks);
    node__all_passed(rows, "gpu-nic", "every GPU with a NIC under its host bridge", checks);
    node__all_passed(rows, "rank", "every rank on its GPU's NUMA node and nearest NIC", checks);
}
