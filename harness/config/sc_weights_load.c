/* sc_weights_load.c - a weights file (sc_weights_load.h), read through the schema engine. */
#include "config/sc_weights_load.h"

#include <stdio.h>
#include <string.h>

#include "config/sc_yaml.h"

#define W(dim)                                                                                     \
    {                                                                                              \
        "weights." #dim, SC_FIELD_NUMBER,                                                          \
            offsetof(sc_weights_t, w) + SC_DIM_##dim * sizeof(double), 0, false, 0, 1e6, NULL,     \
            "how much it counts"                                                                   \
    }
static const sc_field_t weights_load__weight_fields[] = {
    {"name", SC_FIELD_SKIP, 0, 0, false, 0, 0, NULL, "what the weighting is for"},
    {"description", SC_FIELD_SKIP, 0, 0, false, 0, 0, NULL, "one line"},
    {"weights", SC_FIELD_SECTION, 0, 0, true, 0, 0, NULL, "the dimensions and their weights"},
    W(scaling),
    W(throughput),
    W(cost),
    W(energy),
    W(memory),
    W(ecosystem),
    {NULL, 0, 0, 0, false, 0, 0, NULL, NULL},
};
#undef W

sc_status_t sc_weights_load(const char *path, sc_weights_t *w, sc_err_t *err)
{
    memset(w, 0, sizeof(*w));
    sc_yaml_doc_t doc;
    sc_status_t status = sc_yaml_load(path, &doc, err);
    if (status != SC_OK)
        return status;
    sc_weights_t read = {0};
    status = sc_yaml_apply(&doc, weights_load__weight_fields, &read, NULL, err);
    sc_yaml_free(&doc);
    if (status != SC_OK)
        return status;
    double total = 0;
    for (int d = 0; d < SC_DIM_COUNT; d++)
        total += read.w[d];
    if (total <= 0)
        return sc_err_set(err, SC_ERR_INPUT, "%s: every weight is 0: give one dimension a weight",
                          path);
    *w = read;
    snprintf(w->path, sizeof(w->path), "%s", path);
    return SC_OK;
}
