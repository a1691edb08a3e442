/* sc_soak_gpu_verdict.c - a soak's GPUs judged over the whole run, per host: what was wrong
 * with them before it began, their clocks against their peers under the same load, and the
 * memory error rate. */
#include <stdio.h>
#include <string.h>

#include "judge/sc_soak_verdict.h"
#include "judge/sc_verdict.h"
#include "util/sc_defaults.h"

/* Pages retired and rows remapped already at the first cycle: a WARN naming the GPU. */
static void soak_gpu__before(const sc_soak_host_t *first, sc_checks_t *checks)
{
    long long pages = first->retired_pages_start, rows = first->remapped_rows_start;
    if (pages < 0 && rows < 0)
        return;
    long long total = (pages > 0 ? pages : 0) + (rows > 0 ? rows : 0);
    char name[192];
    snprintf(name, sizeof(name), "%s: retired pages and remapped rows before the soak",
             first->host);
    sc_check_t *c =
        sc_verdict_add(checks, name, "memory_repairs", (double)total, 0, 0, false, "first cycle");
    if (c == NULL)
        return;
    c->level = total > 0 ? SC_LEVEL_WARN : SC_LEVEL_PASS;
    c->ratio = total > 0 ? 0 : 1;
    if (total > 0)
        snprintf(c->note, sizeof(c->note),
                 "%lld retired page%s, %lld remapped row%s at the start (GPU %d first): the "
                 "memory was repaired before; ask the vendor",
                 pages > 0 ? pages : 0, pages == 1 ? "" : "s", rows > 0 ? rows : 0,
                 rows == 1 ? "" : "s", first->start_errors_gpu);
}

/* The lowest SM clock against its peers' over the cycles: the peers' band, the GPU named. */
static void soak_gpu__clock(const sc_soak_cycles_t *cycles, const char *host, sc_checks_t *checks)
{
    const sc_soak_host_t *worst = NULL;
    for (size_t i = 0; i < cycles->n; i++)
        for (int k = 0; k < cycles->items[i].nhosts; k++) {
            const sc_soak_host_t *h = &cycles->items[i].hosts[k];
            if (strcmp(h->host, host) == 0 && h->clock_ratio > 0 &&
                (worst == NULL || h->clock_ratio < worst->clock_ratio))
                worst = h;
        }
    if (worst == NULL)
        return;
    char name[192];
    snprintf(name, sizeof(name), "%s: SM clock against its peers (GPU %d)", host,
             worst->slow_clock_gpu);
    sc_band_t band = {SC_DEFAULT_PEER_TOLERANCE, SC_DEFAULT_PEER_FAIL_TOLERANCE, false};
    sc_check_t *c = sc_verdict_band(checks, name, "sm_clock_ratio", worst->clock_ratio, 1.0, &band,
                                    true, "peers (median)");
    if (c != NULL)
        snprintf(c->note, sizeof(c->note), "%d MHz (top %d MHz), the lowest against its peers'",
                 worst->slow_clock_mhz, worst->max_sm_mhz);
}

/* ECC errors per GB of GPU memory and hour of soak (corrected and uncorrected: the rate the
 * seeds ask for; an uncorrected one is also a FAIL of its own). */
static void soak_gpu__error_rate(const sc_soak_cycles_t *cycles, const char *host,
                                 sc_checks_t *checks)
{
    double errors = 0, hours = 0, gb = 0;
    bool reported = false;
    for (size_t i = 0; i < cycles->n; i++)
        for (int k = 0; k < cycles->items[i].nhosts; k++) {
            const sc_soak_host_t *h = &cycles->items[i].hosts[k];
            if (strcmp(h->host, host) != 0 || h->memory_gb <= 0)
                continue;
            reported |= h->ecc_corrected_new >= 0 || h->ecc_uncorrected_new >= 0;
            errors += (double)(h->ecc_corrected_new > 0 ? h->ecc_corrected_new : 0) +
                      (double)(h->ecc_uncorrected_new > 0 ? h->ecc_uncorrected_new : 0);
            hours += cycles->items[i].wall_s / 3600.0;
            gb = h->memory_gb;
        }
    if (!reported || hours <= 0)
        return;
    char name[192];
    snprintf(name, sizeof(name), "%s: GPU memory errors per GB-hour", host);
    double rate = errors / (gb * hours);
    sc_check_t *c =
        sc_verdict_add(checks, name, "errors_per_gb_hour", rate, 0, 0, false, "expect.soak");
    if (c == NULL)
        return;
    c->level = rate > 0 ? SC_LEVEL_WARN : SC_LEVEL_PASS;
    c->ratio = rate > 0 ? 0 : 1;
    snprintf(c->note, sizeof(c->note), "%.0f ECC errors over %.0f GB of GPU memory and %.3g h",
             errors, gb, hours);
}

void sc_soak_judge_gpus(const sc_soak_cycles_t *cycles, sc_checks_t *checks)
{
    if (cycles->n == 0)
        return;
    const sc_soak_cycle_t *first = &cycles->items[0], *last = &cycles->items[cycles->n - 1];
    for (int k = 0; k < first->nhosts; k++)
        soak_gpu__before(&first->hosts[k], checks);
    for (int k = 0; k < last->nhosts; k++) {
        soak_gpu__clock(cycles, last->hosts[k].host, checks);
        soak_gpu__error_rate(cycles, last->hosts[k].host, checks);
    }
}
