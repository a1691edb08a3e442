/* sc_compare.c - the dimensions' names, the default weights and the compare row's fields. */
#include "record/sc_compare.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/sc_defaults.h"

static const char *const compare__dim_names[] = {
#define SC__DIM_NAME(name) #name,
    SC_DIM_MAP(SC__DIM_NAME)
#undef SC__DIM_NAME
};
/* in SC_DIM_MAP's order */
static const char *const compare__dim_words[SC_DIM_COUNT] = {
    "scaling efficiency", "absolute throughput", "cost efficiency",
    "energy efficiency",  "memory headroom",     "ecosystem",
};

const char *sc_dim_name(sc_dim_t d)
{
    return compare__dim_names[d];
}

const char *sc_dim_words(sc_dim_t d)
{
    return compare__dim_words[d];
}

void sc_weights_default(sc_weights_t *w)
{
    static const double defaults[SC_DIM_COUNT] = SC_DEFAULT_WEIGHTS;
    memset(w, 0, sizeof(*w));
    memcpy(w->w, defaults, sizeof(defaults));
}

#define R(field, kind)                                                                             \
    {                                                                                              \
#field, kind, offsetof(sc_compare_row_t, field), sizeof(((sc_compare_row_t *)0)->field),   \
            SC_SHOW_CSV, NULL                                                                      \
    }
#define S(dim)                                                                                     \
    {                                                                                              \
        "score_" #dim, SC_FIELD_OPTIONAL,                                                          \
            offsetof(sc_compare_row_t, score) + SC_DIM_##dim * sizeof(double), sizeof(double),     \
            SC_SHOW_CSV, NULL                                                                      \
    }
const sc_field_t sc_compare_row_fields[] = {
    R(rank, SC_FIELD_INT),
    R(system, SC_FIELD_TEXT),
    R(source, SC_FIELD_TEXT),
    R(origin, SC_FIELD_TEXT),
    R(description, SC_FIELD_TEXT),
    R(gpu, SC_FIELD_TEXT),
    R(library, SC_FIELD_TEXT),
    R(workload, SC_FIELD_TEXT),
    R(gpus, SC_FIELD_INT),
    R(nodes, SC_FIELD_INT),
    R(gpus_per_node, SC_FIELD_INT),
    R(throughput, SC_FIELD_DOUBLE),
    R(throughput_per_gpu, SC_FIELD_DOUBLE),
    R(throughput_per_node, SC_FIELD_DOUBLE),
    R(efficiency, SC_FIELD_DOUBLE),
    R(expected_efficiency, SC_FIELD_OPTIONAL),
    R(cost_hour_usd, SC_FIELD_OPTIONAL),
    R(samples_per_usd, SC_FIELD_OPTIONAL),
    R(power_kw, SC_FIELD_OPTIONAL),
    R(power_from, SC_FIELD_TEXT_OPT),
    R(samples_per_kwh, SC_FIELD_OPTIONAL),
    R(memory_need_gb, SC_FIELD_DOUBLE),
    R(gpu_memory_gb, SC_FIELD_DOUBLE),
    R(memory_headroom, SC_FIELD_DOUBLE),
    R(memory_fits, SC_FIELD_BOOL),
    R(memory_note, SC_FIELD_TEXT_OPT),
    R(input_note, SC_FIELD_TEXT_OPT),
    R(compute_note, SC_FIELD_TEXT_OPT),
    R(note, SC_FIELD_TEXT_OPT),
    R(verdict, SC_FIELD_TEXT_OPT),
    R(claims, SC_FIELD_TEXT_OPT),
    R(differences, SC_FIELD_INT),
    R(versions, SC_FIELD_TEXT_OPT),
    S(scaling),
    S(throughput),
    S(cost),
    S(energy),
    S(memory),
    S(ecosystem),
    R(total, SC_FIELD_DOUBLE),
    {NULL, SC_FIELD_INT, 0, 0, 0, NULL},
};
#undef R
#undef S

void sc_compare_systems_free(sc_compare_systems_t *s)
{
    for (size_t i = 0; i < s->n; i++) {
        sc_list_free(&s->items[i].curve);
        sc_list_free(&s->items[i].busbw);
    }
    sc_list_free(s);
}
