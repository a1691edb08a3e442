/* sc_json_async.h - a list of records written to its own file by a thread of its own, joined as
 * result.json holds it (sc_json_joined_put): judge's checks, formatted on the second core while
 * the first reads and judges the rows (a fleet's million checks were a quarter of its time). */
#ifndef SC_JSON_ASYNC_H
#define SC_JSON_ASYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "record/sc_record.h"

typedef struct sc_json_async sc_json_async_t;

/* A writer of records of elem_size bytes (fields) to out, which it owns until closed; NULL when
 * there is no memory or no thread for it. */
sc_json_async_t *sc_json_async_open(FILE *out, size_t elem_size, const sc_field_t *fields);
/* record copied into the batch; a full batch goes to the thread (waiting while it still writes
 * the one before). */
void sc_json_async_put(sc_json_async_t *a, const void *record);
/* The last batch written, the thread joined and a freed; the records written. */
size_t sc_json_async_close(sc_json_async_t *a);

#endif
