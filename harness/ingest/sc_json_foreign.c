/* sc_json_foreign.c - nccl-tests' JSON (-J, file version 2) into case rows: the program from
 * args[0], ranks and hosts from config.devices, and per result the size, count, type, redop,
 * root and the out-of-place and in-place time, alg_bw, bus_bw and nwrong. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/sc_ingest.h"
#include "json/sc_json_check.h"

static double json_foreign__num(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : SC_ABSENT;
}

/* ranks: the devices listed; nodes: their distinct host names */
static void json_foreign__devices(const json_t *doc, sc_foreign_t *out)
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

/* One placement of a result into row: false when it has no time (not measured); src refused
 * when a value is not one a run could print. */
static bool json_foreign__placement(sc_json_src_t *src, const json_t *result, size_t index,
                                    bool in_place, sc_case_row_t *row)
{
    const json_t *place = json_object_get(result, in_place ? "in_place" : "out_of_place");
    if (!json_is_object(place))
        return false;
    *row = sc_case_row_foreign(in_place);
    row->root = 0;
    char idx[24], why[192];
    snprintf(idx, sizeof(idx), "%zu", index);
    const char *keys[] = {"results", idx, in_place ? "in_place" : "out_of_place"};
    const json_t *wrong = json_object_get(place, "nwrong");
    if (!sc_json_u64(json_object_get(result, "size"), &row->size_bytes) ||
        !sc_json_u64(json_object_get(result, "count"), &row->count) ||
        (wrong != NULL && !json_is_null(wrong) && !sc_json_u64(wrong, &row->wrong)))
        return sc_json_refuse(src, keys, 2, "size, count, nwrong", "not whole numbers >= 0");
    const char *type = json_string_value(json_object_get(result, "type"));
    const char *redop = json_string_value(json_object_get(result, "redop"));
    const char *root = json_string_value(json_object_get(result, "root"));
    snprintf(row->dtype, sizeof(row->dtype), "%s", type ? type : "");
    snprintf(row->op, sizeof(row->op), "%s", redop && strcmp(redop, "none") ? redop : "");
    row->root = root ? atoi(root) : -1;
    row->time_us = json_foreign__num(place, "time");
    if (row->time_us != row->time_us)
        row->time_us = json_foreign__num(place, "cpu_time");
    row->algbw_GBps = json_foreign__num(place, "alg_bw");
    row->busbw_GBps = json_foreign__num(place, "bus_bw");
    row->checked = wrong != NULL && json_is_number(wrong);
    snprintf(row->timer, sizeof(row->timer), "device");
    if (row->time_us != row->time_us)
        return false;
    const char *bad = sc_case_row_implausible(row, true, why, sizeof(why));
    return bad == NULL || sc_json_refuse(src, keys, 3, keys[2], bad);
}

sc_status_t sc_json_load_nccl_tests(const char *path, sc_foreign_t *out, sc_err_t *err)
{
    sc_json_src_t src = {.path = path, .err = err};
    json_t *doc = sc_json_load(&src);
    if (doc == NULL)
        return src.status;
    const json_t *results = json_object_get(doc, "results");
    const char *program = json_string_value(json_array_get(json_object_get(doc, "args"), 0));
    if (!json_is_object(doc) || !json_is_array(results))
        src.status =
            sc_err_set(err, SC_ERR_INPUT, "%s: not nccl-tests -J output (no 'results' list)", path);
    snprintf(out->path, sizeof(out->path), "%s", path);
    snprintf(out->tool, sizeof(out->tool), "nccl-tests -J");
    const char *coll = program ? sc_ingest_nccl_program(program) : NULL;
    snprintf(out->collective, sizeof(out->collective), "%s", coll ? coll : "");
    snprintf(out->read_as, sizeof(out->read_as), "nccl-tests -J JSON (%s)",
             program ? program : "no program in args");
    if (src.status == SC_OK)
        json_foreign__devices(doc, out);
    size_t i;
    const json_t *result;
    json_array_foreach(results, i, result)
    {
        for (int p = 0; p < 2 && src.status == SC_OK; p++) {
            sc_case_row_t row;
            if (!json_foreign__placement(&src, result, i, p == 1, &row))
                continue;
            sc_case_row_t *slot = SC_LIST_PUSH(&out->rows);
            if (slot == NULL)
                src.status = sc_err_set(err, SC_ERR_NOMEM, "%s: no memory for its rows", path);
            else
                *slot = row;
        }
    }
    out->nrows = out->rows.n;
    if (src.status == SC_OK && out->rows.n == 0)
        src.status = sc_err_set(err, SC_ERR_INPUT, "%s: no result rows with a time", path);
    json_decref(doc);
    sc_json_src_free(&src);
    return src.status;
}
