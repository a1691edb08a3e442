/* sc_weights.h - the dimensions a buyer weighs systems on (`compare`), and their weights: a
 * weights file (config/sc_weights_load.h) or the defaults (util/sc_defaults.h). Apart from the
 * records, so that the YAML loader can fill one. */
#ifndef SC_WEIGHTS_H
#define SC_WEIGHTS_H

/* The dimensions a system is scored on, 0-10 each, in this order everywhere. */
#define SC_DIM_MAP(X) X(scaling) X(throughput) X(cost) X(energy) X(memory) X(ecosystem)
typedef enum {
#define SC__DIM_ENUM(name) SC_DIM_##name,
    SC_DIM_MAP(SC__DIM_ENUM)
#undef SC__DIM_ENUM
        SC_DIM_COUNT
} sc_dim_t;
const char *sc_dim_name(sc_dim_t d);  /* "scaling" */
const char *sc_dim_words(sc_dim_t d); /* "scaling efficiency" */

typedef struct {
    double w[SC_DIM_COUNT]; /* relative weights, >= 0 (the total need not be 1) */
    char path[512];         /* the file they came from, "" for the defaults */
} sc_weights_t;

void sc_weights_default(sc_weights_t *w);

#endif
