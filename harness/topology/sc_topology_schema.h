/* sc_topology_schema.h - the tables a topology file is checked with (sc_topology.c), for the
 * generated reference (scalecheck validate --schema topology). Apart from sc_topology.h: the
 * YAML field type would clash there with the records' own. */
#ifndef SC_TOPOLOGY_SCHEMA_H
#define SC_TOPOLOGY_SCHEMA_H

#include "config/sc_yaml.h"

/* The schemas the loader checks a topology with: the file's, an expect.claims item's, a
 * calibrated regime's (each ends with a NULL path). */
const sc_field_t *sc_topology_schema(void);
const sc_field_t *sc_topology_claim_schema(void);
const sc_field_t *sc_topology_regime_schema(void);

/* Every entry of a topology file's switch map read, as it is loaded (validate, every command):
 * a reversed or impossible range, a map that is not one - file:line:column. No map: SC_OK.
 * (sc_switches.c; here, beside the YAML it reads.) */
sc_status_t sc_switches_check(const sc_yaml_doc_t *doc, sc_err_t *err);

#endif
