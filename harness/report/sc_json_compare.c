/* sc_json_compare.c - compare.json: the weights and the formula, then every system's row with
 * its curve and its busbw sweep. */
#include <jansson.h>

#include "report/sc_compare_report.h"
#include "report/sc_json_build.h"

sc_status_t sc_json_write_compare(const char *path, const sc_compare_systems_t *s,
                                  const sc_weights_t *w, const sc_kvs_t *head, sc_err_t *err)
{
    json_t *doc = sc_json_kvs(head);
    json_t *weights = json_object();
    for (int d = 0; d < SC_DIM_COUNT; d++)
        json_object_set_new(weights, sc_dim_name((sc_dim_t)d), json_real(w->w[d]));
    json_object_set_new(doc, "weights", weights);
    char formula[512];
    sc_compare_formula(w, formula, sizeof(formula));
    json_object_set_new(doc, "formula", json_string(formula));
    json_t *systems = json_array();
    for (size_t i = 0; i < s->n; i++) {
        const sc_compare_system_t *sys = &s->items[i];
        json_t *o = sc_json_record(&sys->row, sc_compare_row_fields);
        json_object_set_new(o, "curve",
                            sc_json_records(sys->curve.items, sys->curve.n,
                                            sizeof(*sys->curve.items), sc_point_fields));
        json_object_set_new(o, "busbw",
                            sc_json_records(sys->busbw.items, sys->busbw.n,
                                            sizeof(*sys->busbw.items), sc_case_row_fields));
        json_array_append_new(systems, o);
    }
    json_object_set_new(doc, "systems", systems);
    return sc_json_write_new(path, doc, err);
}
