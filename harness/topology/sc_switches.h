/* sc_switches.h - the switch map a topology may declare (`switches:`, read by
 * sc_switches.c): which hosts sit under which leaf switch; the spine joins the leaves.
 *
 *   switches:
 *     leaf1: [h1, h2, h3, h4]     # host names,
 *     leaf2: "gpu[005-008]"       # or a Slurm-style range: one [a-b,c] group, zero padding kept
 *
 * `pairs --strategy switch` pairs hosts under each leaf and across the spine from it. */
#ifndef SC_SWITCHES_H
#define SC_SWITCHES_H

#include "topology/sc_topology.h"

/* The leaf switches of a declared switch map (the topology's `switches:`), as the participants
 * of a pairs run sit under them: leaf_of[i] is participant i's leaf (0 .. nleaves - 1). The
 * spine is what joins the leaves. nleaves 0: no map. */
typedef struct {
    int nleaves, n;
    char (*names)[64];
    int *leaf_of;
} sc_leaves_t;

void sc_leaves_free(sc_leaves_t *l);

/* The leaves of t's map (the file that declared it, t->switches_file) with the participants'
 * hosts under them: leaf_of[i] for hosts[i]. A participant under no leaf is an error naming it
 * (SC_ERR_INPUT); so is a map that is not one (file:line:column). No map: SC_ERR_INPUT too,
 * naming the file. */
sc_status_t sc_switches_leaves(const sc_topology_t *t, const char *const *hosts, int n,
                               sc_leaves_t *out, sc_err_t *err);

/* Whether a host name matches one entry of the map ("h3", "gpu[001-016,020]"); *bad set when
 * the entry is not a name or a range. */
bool sc_switches_match(const char *entry, const char *host, bool *bad);

/* The widest range an entry may span: the most participants a plan takes (pairs --nodes). */
#define SC_SWITCHES_RANGE_MAX 1048576

#endif
