#include "sc_coll_report.h"

#include <inttypes.h>
#include <string.h>

void sc_coll_report_table_header(sc_results_t *res, bool with_iters)
{
    const char *it1 = with_iters ? "  iters" : "", *it2 = with_iters ? "       " : "";
    sc_results_printf(res, "#\n#%58s%-38s%s\n", "", "out-of-place", "in-place");
    sc_results_printf(res, "# %12s %13s %9s %7s %6s %8s %7s %7s %6s%s %8s %7s %7s %6s%s\n", "size",
                      "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", it1,
                      "time", "algbw", "busbw", "#wrong", it1);
    sc_results_printf(res, "# %12s %13s %9s %7s %6s %8s %7s %7s %6s%s %8s %7s %7s %6s%s\n", "(B)",
                      "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", it2, "(us)",
                      "(GB/s)", "(GB/s)", "", it2);
}

static void coll_report__row_half(char *buf, size_t len, const sc_case_result_t *r, bool with_iters)
{
    if (r == NULL) { /* the backend does not run this half (e.g. in place) */
        snprintf(buf, len, " %8s %7s %7s %6s%s", "n/a", "n/a", "n/a", "n/a",
                 with_iters ? "    n/a" : "");
        return;
    }
    char wrong[24], iters[16] = "";
    if (r->checked)
        snprintf(wrong, sizeof(wrong), "%" PRIu64, r->wrong);
    else
        snprintf(wrong, sizeof(wrong), "N/A");
    if (with_iters)
        snprintf(iters, sizeof(iters), " %6zu", r->iterations);
    double t = r->time_stat_us;
    snprintf(buf, len, " %8.*f %7.2f %7.2f %6s%s", t < 10000 ? 2 : 0, t, r->algbw_GBps,
             r->busbw_GBps, wrong, iters);
}

void sc_coll_report_table_row(sc_results_t *res, const sc_case_t *c,
                              const sc_case_result_t *out_of_place,
                              const sc_case_result_t *in_place, bool with_iters)
{
    char oop[96], ip[96];
    coll_report__row_half(oop, sizeof(oop), out_of_place, with_iters);
    coll_report__row_half(ip, sizeof(ip), in_place, with_iters);
    uint64_t elements = c->size_bytes / sc_dtype_size(c->dtype);
    sc_results_printf(res, "  %12" PRIu64 " %13" PRIu64 " %9s %7s %6d%s%s\n", c->size_bytes,
                      elements, sc_dtype_name(c->dtype),
                      c->coll->has_op ? sc_redop_name(c->op) : "none",
                      c->coll->has_root ? c->root : -1, oop, ip);
}
