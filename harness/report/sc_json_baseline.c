/* sc_json_baseline.c - a baseline file: written by `scalecheck baseline create`, read back by
 * every command that takes --baseline. A file that is not JSON is an error naming
 * path:line:column; one whose points are incomplete names the point. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/sc_json_build.h"
#include "json/sc_json_check.h"
#include "report/sc_json_in.h"
#include "report/sc_json_out.h"

/* The "scalecheck_baseline" number: bumped on an incompatible change. */
#define SC__BASELINE_FORMAT 1

sc_status_t sc_json_write_baseline(const char *path, const sc_baseline_t *b, sc_err_t *err)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "scalecheck_baseline", json_integer(SC__BASELINE_FORMAT));
    json_object_set_new(doc, "created_utc", json_string(b->created_utc));
    json_object_set_new(doc, "version", json_string(b->version));
    json_object_set_new(doc, "tolerance", json_real(b->tolerance));
    json_object_set_new(
        doc, "runs",
        sc_json_records(b->runs.items, b->runs.n, sizeof(*b->runs.items), sc_baseline_run_fields));
    json_object_set_new(doc, "points",
                        b->points_source != NULL
                            ? sc_json_source_rows(b->points_source)
                            : sc_json_rows(b->points.items, b->points.n, sizeof(*b->points.items),
                                           sc_baseline_point_fields));
    return sc_json_write_new(path, doc, err);
}

/* Every point usable: a key, a metric, a positive median, a spread that is a fraction. */
static sc_status_t json_baseline__check_points(const char *path, const sc_baseline_t *b,
                                               sc_err_t *err)
{
    if (b->points.n == 0)
        return sc_err_set(err, SC_ERR_INPUT, "%s: a baseline without points", path);
    for (size_t i = 0; i < b->points.n; i++) {
        const sc_baseline_point_t *p = &b->points.items[i];
        if (p->key[0] == '\0' || p->metric[0] == '\0' || !(p->median > 0) || !(p->spread >= 0) ||
            p->count < 1)
            return sc_err_set(err, SC_ERR_INPUT,
                              "%s: points[%zu]: needs key, metric, median > 0, spread >= 0 "
                              "and count >= 1",
                              path, i);
    }
    if (!(b->tolerance >= 0 && b->tolerance < 1))
        return sc_err_set(err, SC_ERR_INPUT, "%s: tolerance: a fraction in [0, 1)", path);
    return SC_OK;
}

sc_status_t sc_json_load_baseline(const char *path, sc_baseline_t *b, sc_err_t *err)
{
    memset(b, 0, sizeof(*b));
    static const char *const streamed[] = {"points", NULL}; /* a figure per row of its runs */
    sc_json_src_t src = {.path = path, .err = err, .streamed = streamed};
    json_t *doc = sc_json_load(&src);
    if (doc == NULL)
        return src.status;
    json_t *format = json_object_get(doc, "scalecheck_baseline");
    sc_status_t status = SC_OK;
    if (!json_is_integer(format))
        status = sc_err_set(err, SC_ERR_INPUT,
                            "%s: not a scalecheck baseline (make one with `scalecheck baseline "
                            "create RUN_DIR... -o FILE`)",
                            path);
    else if (json_integer_value(format) != SC__BASELINE_FORMAT)
        status = sc_err_set(err, SC_ERR_INPUT, "%s: baseline format %lld, this scalecheck reads %d",
                            path, (long long)json_integer_value(format), SC__BASELINE_FORMAT);
    if (status == SC_OK) {
        const char *s = json_string_value(json_object_get(doc, "created_utc"));
        snprintf(b->created_utc, sizeof(b->created_utc), "%s", s ? s : "");
        s = json_string_value(json_object_get(doc, "version"));
        snprintf(b->version, sizeof(b->version), "%s", s ? s : "");
        json_t *t = json_object_get(doc, "tolerance");
        b->tolerance = json_is_number(t) ? json_number_value(t) : NAN;
        if (sc_json_read_list(&src, doc, "runs", &b->runs, sizeof(*b->runs.items),
                              sc_baseline_run_fields) &&
            sc_json_read_list(&src, doc, "points", &b->points, sizeof(*b->points.items),
                              sc_baseline_point_fields))
            status = json_baseline__check_points(path, b, err);
        else
            status = src.status;
    }
    json_decref(doc);
    sc_json_src_free(&src);
    if (status != SC_OK)
        sc_baseline_free(b);
    return status;
}
