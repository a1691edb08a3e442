/* sc_dtype.h - the element types and reduction operations every backend speaks, each kept once
 * in an X-macro list so that names, sizes and parsing come from one place. */
#ifndef SC_DTYPE_H
#define SC_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sc_dtype_core.h"
#include "util/sc_status.h"

const char *sc_dtype_name(sc_dtype_t dtype);
size_t sc_dtype_size(sc_dtype_t dtype);
bool sc_dtype_is_float(sc_dtype_t dtype);
bool sc_dtype_is_signed(sc_dtype_t dtype);
double sc_dtype_max(sc_dtype_t dtype);

/* Looks a name up (case-sensitive, plus the aliases nccl-tests users type: char, int, half...).
 * Returns SC_ERR_USAGE naming `flag` and the valid names when unknown. */
sc_status_t sc_dtype_parse(const char *name, const char *flag, sc_dtype_t *dtype, sc_err_t *err);

const char *sc_redop_name(sc_redop_t op);
sc_status_t sc_redop_parse(const char *name, const char *flag, sc_redop_t *op, sc_err_t *err);

/* Element access (sc_dtype_load, sc_dtype_store, sc_dtype_round) is in sc_dtype_core.h, shared
 * with the CUDA kernels. */

#endif
