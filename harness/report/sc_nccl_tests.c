/* sc_nccl_tests.c - a sweep in nccl-tests' own layout (sc_nccl_tests.h). The widths, the
 * number formats and the order of the lines are nccl-tests 2.19's (src/util.cu: the header,
 * writeBenchmarkLine*, writeResultFooter; src/common.cu: the order of a run); the code is
 * scalecheck's. */
#include "report/sc_nccl_tests.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sc_config.h"

const char *sc_nt_type(sc_dtype_t dtype)
{
    switch (dtype) {
    case SC_DTYPE_fp16:
        return "half";
    case SC_DTYPE_bf16:
        return "bfloat16";
    default:
        return sc_dtype_name(dtype);
    }
}

/* nccl-tests' number in `width` characters: 2 decimals, fewer, none, then an exponent. */
static void nccl_tests__nt_number(double value, int width, char *buf, size_t len)
{
    const char *formats[] = {"%*.2f", "%*.1f", "%*.0f"};
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (snprintf(buf, len, formats[i], width, value) <= width)
            return;
    snprintf(buf, len, width >= 7 ? "%*.1e" : "%*.0e", width, value);
}

void sc_nt_now(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm local;
    strftime(buf, len, "%Y-%m-%d %H:%M:%S", localtime_r(&now, &local));
}

void sc_nt_device(const sc_rte_t *rte, int r, const sc_kvs_t *info, sc_nt_device_t *out)
{
    const sc_kv_t *pid = sc_kvs_find(info, "pid"), *dev = sc_kvs_find(info, "device");
    const sc_kv_t *name = sc_kvs_find(info, "gpu_name"), *bus = sc_kvs_find(info, "gpu_bus");
    const sc_kv_t *mpi = sc_kvs_find(info, "mpi_library");
    *out = (sc_nt_device_t){
        .rank = r, .pid = pid ? (int)pid->number : 0, .device = dev ? (int)dev->number : -1};
    snprintf(out->host, sizeof(out->host), "%s", rte->hosts[r]);
    snprintf(out->bus, sizeof(out->bus), "%s", bus ? bus->text : "");
    if (name != NULL) /* a rank without a GPU: its backend */
        snprintf(out->name, sizeof(out->name), "%s", name->text);
    else
        snprintf(out->name, sizeof(out->name), "host (%s)", mpi ? mpi->text : "no GPU");
}

/* One rank's device line, as nccl-tests writes it. */
static void nccl_tests__nt_device_line(const sc_nt_device_t *d, char *buf, size_t len)
{
    unsigned domain = 0, bus = 0, slot = 0;
    sscanf(d->bus, "%x:%x:%x", &domain, &bus, &slot);
    snprintf(buf, len, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n",
             d->rank, 0, d->pid, d->host, d->device, domain, bus, slot, d->name);
}

void sc_nt_header(sc_results_t *res, const sc_nt_config_t *cfg, const char *program,
                  const sc_rte_t *rte, const sc_kvs_t *rank_info)
{
    sc_results_printf(res, "# nccl-tests version %s nccl-headers=%d nccl-library=%d\n",
                      SC_NT_VERSION, cfg->nccl_headers, cfg->nccl_library);
    sc_results_printf(res, "# Collective test starting: %s\n", program);
    sc_results_printf(res,
                      "# nThread 1 nGpus 1 minBytes %" PRIu64 " maxBytes %" PRIu64
                      " step: %g(%s) warmup iters: %d iters: %d agg iters: %d validation: %d "
                      "graph: %d unalign: 0\n",
                      cfg->min_bytes, cfg->max_bytes, cfg->step,
                      cfg->step_is_factor ? "factor" : "bytes", cfg->warmup, cfg->iters,
                      cfg->agg_iters, cfg->check_iters, cfg->graph_launches);
    if (cfg->blocking == 1 || cfg->blocking == 3)
        sc_results_printf(res, "# Blocking Enabled: wait and barrier after each outer iteration "
                               "(-n); time excludes barrier \n");
    if (cfg->per_iter)
        sc_results_printf(res, "# Per-Iteration Report: i_* over every rank's iterations \n");
    if (cfg->parallel_init)
        sc_results_printf(res, "# Parallel Init Enabled: threads call into NcclInitRank "
                               "concurrently \n");
    sc_results_printf(res,
                      "# scalecheck %s: time is the %s of each size's iterations, rank times "
                      "combined by %s (-a %d); results %s\n",
                      SC_VERSION, cfg->statistic, cfg->combine, cfg->combine_number,
                      cfg->results_dir);
    sc_results_printf(res, "#\n# Using devices\n");
    for (int r = 0; r < rte->size; r++) {
        char line[512];
        sc_nt_device_t dev;
        sc_nt_device(rte, r, rank_info ? &rank_info[r] : NULL, &dev);
        nccl_tests__nt_device_line(&dev, line, sizeof(line));
        sc_results_printf(res, "%s", line);
    }
    const char *time = cfg->cputime ? "cputime" : "time";
    sc_results_printf(res, "#\n");
    if (cfg->per_iter) {
        sc_results_printf(res,
                          "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ "
                          "per-iteration)                                in-place (+ "
                          "per-iteration)\n",
                          "", "", "", "", "");
        sc_results_printf(res,
                          "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  "
                          "%7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s\n",
                          "size", "count", "type", "redop", "root", time, "algbw", "busbw",
                          "#wrong", "i_min", "i_max", "i_p99", "i_cv%", time, "algbw", "busbw",
                          "#wrong", "i_min", "i_max", "i_p99", "i_cv%", cfg->timestamps ? 19 : 0,
                          cfg->timestamps ? "timestamp" : "");
        sc_results_printf(res,
                          "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  "
                          "%7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s\n",
                          "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                          "(us)", "(us)", "(%)", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)",
                          "(us)", "(%)", cfg->timestamps ? 19 : 0,
                          cfg->timestamps ? "%Y-%m-%d %H:%M:%S" : "");
        return;
    }
    sc_results_printf(res,
                      "# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
                      "in-place          \n",
                      "", "", "", "", "");
    sc_results_printf(
        res, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size",
        "count", "type", "redop", "root", time, "algbw", "busbw", "#wrong", time, "algbw", "busbw",
        "#wrong", cfg->timestamps ? 19 : 0, cfg->timestamps ? "timestamp" : "");
    sc_results_printf(
        res, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)",
        "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "",
        cfg->timestamps ? 19 : 0, cfg->timestamps ? "%Y-%m-%d %H:%M:%S" : "");
}

/* One half of a row: time, algbw, busbw, #wrong (and with -I the per-iteration columns). */
static void nccl_tests__nt_half(char *buf, size_t len, const sc_nt_config_t *cfg,
                                const sc_case_result_t *r)
{
    if (r == NULL) { /* the backend does not run this half (NCCL: in-place all-to-all) */
        snprintf(buf, len, "  %7s  %6s  %6s    N/A%s", "N/A", "N/A", "N/A",
                 cfg->per_iter ? "      N/A      N/A      N/A      N/A" : "");
        return;
    }
    char t[16], alg[16], bus[16];
    nccl_tests__nt_number(r->time_stat_us, 7, t, sizeof(t));
    nccl_tests__nt_number(r->algbw_GBps, 6, alg, sizeof(alg));
    nccl_tests__nt_number(r->busbw_GBps, 6, bus, sizeof(bus));
    int used = r->checked
                   ? snprintf(buf, len, "  %7s  %6s  %6s  %6g", t, alg, bus, (double)r->wrong)
                   : snprintf(buf, len, "  %7s  %6s  %6s    N/A", t, alg, bus);
    if (!cfg->per_iter || used < 0 || (size_t)used >= len)
        return;
    char lo[16], hi[16], p99[16], cv[16];
    nccl_tests__nt_number(r->time_us.min, 7, lo, sizeof(lo));
    nccl_tests__nt_number(r->time_us.max, 7, hi, sizeof(hi));
    nccl_tests__nt_number(r->time_us.p99, 7, p99, sizeof(p99));
    nccl_tests__nt_number(r->time_us.cv * 100.0, 7, cv, sizeof(cv));
    snprintf(buf + used, len - (size_t)used, "  %7s  %7s  %7s  %7s", lo, hi, p99, cv);
}

void sc_nt_row(sc_results_t *res, const sc_nt_config_t *cfg, const sc_case_t *c,
               const sc_case_result_t *out_of_place, const sc_case_result_t *in_place)
{
    char oop[160], ip[160], stamp[32] = "";
    nccl_tests__nt_half(oop, sizeof(oop), cfg, out_of_place);
    nccl_tests__nt_half(ip, sizeof(ip), cfg, in_place);
    if (cfg->timestamps) {
        char when[24];
        sc_nt_now(when, sizeof(when));
        snprintf(stamp, sizeof(stamp), "%21s", when);
    }
    char root[16];
    snprintf(root, sizeof(root), "%6i", c->coll->has_root ? c->root : -1);
    sc_results_printf(res, "%12" PRIu64 "  %12zu  %8s  %6s  %6s%s%s%s\n", c->size_bytes, c->count,
                      sc_nt_type(c->dtype), c->coll->has_op ? sc_redop_name(c->op) : "none", root,
                      oop, ip, stamp);
}

const char *sc_nt_min_bw_word(double avg_busbw, double min_avg_busbw)
{
    if (!(min_avg_busbw > 0))
        return "";
    return avg_busbw < 0.9 * min_avg_busbw ? "FAILED" : "OK";
}

void sc_nt_footer(sc_results_t *res, const char *program, uint64_t wrong, double avg_busbw,
                  double min_avg_busbw, uint64_t memory_bytes)
{
    sc_results_printf(res, "# %-20s : %" PRIu64 " %s\n", "Out of bounds values", wrong,
                      wrong ? "FAILED" : "OK");
    sc_results_printf(res, "# %-20s : %g %s\n", "Avg bus bandwidth", avg_busbw,
                      sc_nt_min_bw_word(avg_busbw, min_avg_busbw));
    sc_results_printf(res, "#\n# Collective test concluded: %s\n", program);
    if (memory_bytes > 0)
        sc_results_printf(res, "# %-20s : User-Allocated %.2f MB | Total  %.2f MB\n",
                          "GPU memory usage", (double)memory_bytes / 1048576.0,
                          (double)memory_bytes / 1048576.0);
    sc_results_printf(res, "#\n\n");
}
