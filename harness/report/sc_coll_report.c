#include "sc_coll_report.h"

#include <inttypes.h>
#include <string.h>
#include "report/sc_json_out.h"

/* The CSV columns, in order; each is a key of the case's JSON object. */
static const char *const sc__csv_fields[] = {
    "collective",   "size_bytes",   "count",       "count_per_rank",
    "dtype",        "op",           "root",        "in_place",
    "time_us",      "time_us_min",  "time_us_max", "time_us_p99",
    "time_us_mean", "cv",           "ci95_rel",    "algbw_GBps",
    "busbw_GBps",   "busbw_factor", "checked",     "wrong",
    "iterations",   NULL,
};

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

static void sc__row_half(char *buf, size_t len, const sc_case_result_t *r, bool with_iters)
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
    double t = r->time_us.median;
    snprintf(buf, len, " %8.*f %7.2f %7.2f %6s%s", t < 10000 ? 2 : 0, t, r->algbw_GBps,
             r->busbw_GBps, wrong, iters);
}

void sc_coll_report_table_row(sc_results_t *res, const sc_case_t *c,
                              const sc_case_result_t *out_of_place,
                              const sc_case_result_t *in_place, bool with_iters)
{
    char oop[96], ip[96];
    sc__row_half(oop, sizeof(oop), out_of_place, with_iters);
    sc__row_half(ip, sizeof(ip), in_place, with_iters);
    uint64_t elements = c->size_bytes / sc_dtype_size(c->dtype);
    sc_results_printf(res, "  %12" PRIu64 " %13" PRIu64 " %9s %7s %6d%s%s\n", c->size_bytes,
                      elements, sc_dtype_name(c->dtype),
                      c->coll->has_op ? sc_redop_name(c->op) : "none",
                      c->coll->has_root ? c->root : -1, oop, ip);
}

json_t *sc_coll_report_case_json(const sc_case_t *c, const sc_case_result_t *r, int nranks)
{
    const sc_stats_t *t = &r->time_us;
    json_t *obj = json_pack(
        "{s:s, s:I, s:I, s:I, s:s, s:s, s:i, s:b, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
        "s:f, s:f, s:f, s:b, s:I, s:I}",
        "collective", c->coll->name, "size_bytes", (json_int_t)c->size_bytes, "count",
        (json_int_t)(c->size_bytes / sc_dtype_size(c->dtype)), "count_per_rank",
        (json_int_t)c->count, "dtype", sc_dtype_name(c->dtype), "op",
        c->coll->has_op ? sc_redop_name(c->op) : "none", "root", c->coll->has_root ? c->root : -1,
        "in_place", c->in_place, "time_us", t->median, "time_us_min", t->min, "time_us_max", t->max,
        "time_us_p99", t->p99, "time_us_mean", t->mean, "cv", t->cv, "ci95_lo_us", t->ci_lo,
        "ci95_hi_us", t->ci_hi, "ci95_rel", t->ci_rel, "algbw_GBps", r->algbw_GBps, "busbw_GBps",
        r->busbw_GBps, "busbw_factor", c->coll->busbw_factor(nranks), "checked", r->checked,
        "wrong", (json_int_t)r->wrong, "iterations", (json_int_t)r->iterations);
    json_object_set_new(obj, "timer", json_string(r->device_timed ? "device" : "host"));
    json_object_set_new(obj, "host_time_us", json_real(r->host_time_us.median));
    json_object_set_new(obj, "host_time_us_p99", json_real(r->host_time_us.p99));
    return obj;
}

sc_status_t sc_coll_report_write_csv(const char *path, json_t *results, sc_err_t *err)
{
    return sc_csv_write_rows(path, results, sc__csv_fields, err);
}
