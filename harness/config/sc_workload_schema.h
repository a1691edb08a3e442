/* sc_workload_schema.h - the table a workload file is checked with (sc_workload.c), for the
 * generated reference (scalecheck validate --schema workload). */
#ifndef SC_WORKLOAD_SCHEMA_H
#define SC_WORKLOAD_SCHEMA_H

#include "config/sc_yaml.h"

/* The schema the loader checks a workload with (ends with a NULL path). */
const sc_field_t *sc_workload_schema(void);

#endif
