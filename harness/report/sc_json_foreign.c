/* sc_json_foreign.c - nccl-tests' JSON (-J, file version 2) into case rows: the program from
 * args[0], ranks and hosts from config.devices, and per result the size, count, type, redop,
 * root and the out-of-place and in-place time, alg_bw, bus_bw and nwrong. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/sc_ingest.h"
#include "report/sc_json_in.h"

static double sc__num(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : SC_ABSENT;
}

/* ranks: the devices listed; nodes: their distinct host names */
static void sc__devices(const json_t *doc, sc_foreign_t *out)
{
    const json_t *devices = json_object_get(json_object_get(doc, "config"), "devices");
    size_t n = json_array_size(devices);
    out->gpus = (int)n;
    out->nodes = 0;
    for (size_t i = 0; i < n; i++) {
        const char *host =
            json_string_value(json_object_get(json_array_get(devices, i), "hostname"));
        bool seen = false;
        for (size_t j = 0; j < i && host != NULL && !seen; j++) {
            const char *other =
                json_string_value(json_object_get(json_array_get(devices, j), "hostname"));
            seen = other != NULL && strcmp(other, host) == 0;
        }
        out->nodes += host != NULL && !seen;
    }
}

static bool sc__placement(const json_t *result, const json_t *place, bool in_place,
                          sc_case_row_t *row)
{
    if (!json_is_object(place))
        return false;
    *row = (sc_case_row_t){
        .in_place = in_place, .expected_time_us = SC_ABSENT, .expected_busbw_GBps = SC_ABSENT};
    row->size_bytes = (uint64_t)json_number_value(json_object_get(result, "size"));
    row->count = (uint64_t)json_number_value(json_object_get(result, "count"));
    const char *type = json_string_value(json_object_get(result, "type"));
    const char *redop = json_string_value(json_object_get(result, "redop"));
    const char *root = json_string_value(json_object_get(result, "root"));
    snprintf(row->dtype, sizeof(row->dtype), "%s", type ? type : "");
    snprintf(row->op, sizeof(row->op), "%s", redop && strcmp(redop, "none") ? redop : "");
    row->root = root ? atoi(root) : -1;
    row->time_us = sc__num(place, "time");
    if (row->time_us != row->time_us)
        row->time_us = sc__num(place, "cpu_time");
    row->algbw_GBps = sc__num(place, "alg_bw");
    row->busbw_GBps = sc__num(place, "bus_bw");
    double wrong = sc__num(place, "nwrong");
    row->checked = wrong == wrong;
    row->wrong = row->checked ? (uint64_t)wrong : 0;
    snprintf(row->timer, sizeof(row->timer), "device");
    return row->time_us == row->time_us && row->time_us > 0;
}

sc_status_t sc_json_load_nccl_tests(const char *path, sc_foreign_t *out, sc_err_t *err)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (doc == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: %s", path, jerr.line, jerr.column,
                          jerr.text);
    const json_t *results = json_object_get(doc, "results");
    const char *program = json_string_value(json_array_get(json_object_get(doc, "args"), 0));
    sc_status_t status = SC_OK;
    if (!json_is_object(doc) || !json_is_array(results))
        status =
            sc_err_set(err, SC_ERR_INPUT, "%s: not nccl-tests -J output (no 'results' list)", path);
    snprintf(out->path, sizeof(out->path), "%s", path);
    snprintf(out->tool, sizeof(out->tool), "nccl-tests -J");
    const char *coll = program ? sc_ingest_nccl_program(program) : NULL;
    snprintf(out->collective, sizeof(out->collective), "%s", coll ? coll : "");
    if (status == SC_OK)
        sc__devices(doc, out);
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result)
    {
        for (int p = 0; p < 2 && status == SC_OK; p++) {
            sc_case_row_t row;
            if (!sc__placement(result, json_object_get(result, p ? "in_place" : "out_of_place"),
                               p == 1, &row))
                continue;
            sc_case_row_t *slot = SC_LIST_PUSH(&out->rows);
            if (slot == NULL)
                status = sc_err_set(err, SC_ERR_NOMEM, "%s: no memory for its rows", path);
            else
                *slot = row;
        }
    }
    if (status == SC_OK && out->rows.n == 0)
        status = sc_err_set(err, SC_ERR_INPUT, "%s: no result rows with a time", path);
    json_decref(doc);
    return status;
}
