/* sc_weights_load.h - a weights file for `compare --weights`: how much each dimension counts.
 *   weights:
 *     scaling: 3       # any numbers >= 0; a dimension left out counts 0
 *     throughput: 2
 *     cost: 2
 * Errors name file:line:column (an unknown dimension: the closest known one). */
#ifndef SC_WEIGHTS_LOAD_H
#define SC_WEIGHTS_LOAD_H

#include "record/sc_weights.h"
#include "util/sc_status.h"

sc_status_t sc_weights_load(const char *path, sc_weights_t *w, sc_err_t *err);

#endif
