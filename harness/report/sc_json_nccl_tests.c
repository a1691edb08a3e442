/* sc_json_nccl_tests.c - `coll -J`: nccl-tests' JSON file (version 3, nccl-tests 2.19's
 * src/util.cu: config with devices, results with both halves of a size, out_of_bounds,
 * average_bus_bandwidth), what its tools/analyze_perf_json.py and `scalecheck judge` read. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/sc_nccl_tests.h"
#include "util/sc_files.h"

static json_t *json_nccl_tests__nt_json_config(const sc_nt_config_t *cfg, const sc_rte_t *rte,
                                               const sc_kvs_t *rank_info)
{
    json_t *c = json_pack("{s:i, s:i, s:I, s:I}", "nthreads", 1, "ngpus", 1, "minimum_bytes",
                          (json_int_t)cfg->min_bytes, "maximum_bytes", (json_int_t)cfg->max_bytes);
    json_object_set_new(c, cfg->step_is_factor ? "step_factor" : "step_bytes",
                        json_real(cfg->step));
    json_object_set_new(c, "warmup_iters", json_integer(cfg->warmup));
    json_object_set_new(c, "iterations", json_integer(cfg->iters));
    json_object_set_new(c, "aggregated_iterations", json_integer(cfg->agg_iters));
    json_object_set_new(c, "validation", json_integer(cfg->check_iters));
    json_object_set_new(c, "graph", json_integer(cfg->graph_launches));
    json_object_set_new(c, "blocking_collectives", json_boolean(cfg->blocking));
    json_object_set_new(c, "per_iter_timing", json_boolean(cfg->per_iter));
    json_object_set_new(c, "parallel_init", json_boolean(cfg->parallel_init));
    json_object_set_new(c, "statistic", json_string(cfg->statistic)); /* scalecheck's */
    json_t *devices = json_array();
    for (int r = 0; r < rte->size; r++) {
        sc_nt_device_t d;
        sc_nt_device(rte, r, rank_info ? &rank_info[r] : NULL, &d);
        json_array_append_new(devices,
                              json_pack("{s:i, s:i, s:i, s:s, s:i, s:s, s:s}", "rank", r, "group",
                                        0, "pid", d.pid, "hostname", d.host, "device", d.device,
                                        "device_hex", d.bus, "device_info", d.name));
    }
    json_object_set_new(c, "devices", devices);
    return c;
}

static json_t *json_nccl_tests__nt_json_half(const sc_nt_config_t *cfg, const sc_case_row_t *row)
{
    bool mean = strcmp(cfg->statistic, "mean") == 0;
    json_t *h = json_pack("{s:f, s:f, s:f}", cfg->cputime ? "cpu_time" : "time",
                          mean ? row->time_us_mean : row->time_us, "alg_bw", row->algbw_GBps,
                          "bus_bw", row->busbw_GBps);
    json_object_set_new(h, "nwrong", row->checked ? json_real((double)row->wrong) : json_null());
    return h;
}

/* Both halves of one size: the rows at i (and i + 1 when it is the same size in place). */
static json_t *json_nccl_tests__nt_json_result(const sc_nt_config_t *cfg, const sc_case_row_t *rows,
                                               size_t nrows, size_t *i)
{
    const sc_case_row_t *first = &rows[*i], *second = NULL;
    if (*i + 1 < nrows && rows[*i + 1].in_place && !first->in_place &&
        rows[*i + 1].size_bytes == first->size_bytes)
        second = &rows[++*i];
    sc_dtype_t dtype = SC_DTYPE_float;
    sc_err_t ignored;
    sc_dtype_parse(first->dtype, "", &dtype, &ignored);
    char root[16];
    snprintf(root, sizeof(root), "%6i", first->root);
    json_t *r = json_pack("{s:I, s:I, s:s, s:s, s:s}", "size", (json_int_t)first->size_bytes,
                          "count", (json_int_t)first->count_per_rank, "type", sc_nt_type(dtype),
                          "redop", first->op, "root", root);
    const sc_case_row_t *oop = first->in_place ? NULL : first;
    const sc_case_row_t *ip = second ? second : first->in_place ? first : NULL;
    json_object_set_new(r, "out_of_place",
                        oop ? json_nccl_tests__nt_json_half(cfg, oop) : json_null());
    json_object_set_new(r, "in_place", ip ? json_nccl_tests__nt_json_half(cfg, ip) : json_null());
    json_object_set_new(r, "actual_iterations", json_integer((json_int_t)first->iterations));
    json_object_set_new(r, "experiment_name", json_string(""));
    return r;
}

typedef struct {
    json_t *doc;
} json_nccl_tests__nt_json_t;

static int json_nccl_tests__nt_dump(FILE *out, void *arg)
{
    json_nccl_tests__nt_json_t *j = arg;
    return json_dumpf(j->doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) != 0 ||
           fputc('\n', out) == EOF;
}

sc_status_t sc_nt_write_json(const char *path, const sc_nt_config_t *cfg, const char *program,
                             int argc, char **argv, const sc_rte_t *rte, const sc_kvs_t *rank_info,
                             const sc_case_row_t *rows, size_t nrows, sc_err_t *err)
{
    char now[32];
    sc_nt_now(now, sizeof(now));
    json_t *doc =
        json_pack("{s:i, s:s}", "version", SC_NT_JSON_VERSION, "start_time", cfg->start_time);
    json_t *args = json_array();
    json_array_append_new(args, json_string(program)); /* readers take the program from here */
    for (int i = 2; i < argc; i++)
        json_array_append_new(args, json_string(argv[i]));
    json_object_set_new(doc, "args", args);
    json_object_set_new(doc, "nccl_version", json_integer(cfg->nccl_library));
    json_object_set_new(doc, "config", json_nccl_tests__nt_json_config(cfg, rte, rank_info));
    json_t *results = json_array();
    uint64_t wrong = 0;
    double busbw = 0;
    for (size_t i = 0; i < nrows; i++) {
        wrong += rows[i].wrong;
        busbw += rows[i].busbw_GBps;
    }
    for (size_t i = 0; i < nrows; i++)
        json_array_append_new(results, json_nccl_tests__nt_json_result(cfg, rows, nrows, &i));
    json_object_set_new(doc, "results", results);
    json_object_set_new(doc, "out_of_bounds",
                        json_pack("{s:I, s:b}", "count", (json_int_t)wrong, "okay", wrong == 0));
    json_object_set_new(doc, "average_bus_bandwidth",
                        json_pack("{s:f, s:s}", "bandwidth", nrows ? busbw / (double)nrows : 0.0,
                                  "okay", "unchecked"));
    json_object_set_new(doc, "errors", json_array());
    json_object_set_new(doc, "end_time", json_string(now));
    json_nccl_tests__nt_json_t j = {doc};
    sc_status_t status = sc_files_write_text(path, json_nccl_tests__nt_dump, &j, err);
    json_decref(doc);
    return status;
}
