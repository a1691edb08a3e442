/* sc_detect_match.h - which shipped topology describes the host detect found: the main job on a
 * GPU server holds its run to that file (scripts/acceptance.sh). The GPU model decides first
 * (the token that names it: "NVIDIA H100 80GB HBM3" and "H100-SXM5-80GB" are both H100), then the
 * GPU count, the intra-node fabric (NVSwitch from 12 NVLinks up, PCIe without) and the NIC
 * count. A topology of another GPU model never matches, not even one of the same architecture
 * (an H200 held to an H100 PCIe server's memory and clocks was misjudged on a real H200): it
 * is only named as the nearest; nor does one of the host path (library mpi). */
#ifndef SC_DETECT_MATCH_H
#define SC_DETECT_MATCH_H

#include <stdbool.h>

#include "detect/sc_detect.h"
#include "topology/sc_topology.h"

typedef struct {
    int score;              /* 0: no match */
    bool same_architecture; /* no match, but another model of the host's GPU architecture */
    char why[320];
} sc_topology_fit_t;

/* How well topology t describes host d (pure). */
sc_topology_fit_t sc_detect_fit(const sc_detected_t *d, const sc_topology_t *t);

/* The GPU model's token of a name ("H100", "A40", "4090", "MI250X"), "" where none. */
void sc_detect_gpu_token(const char *name, char *token, size_t len);

/* The best of the topologies in dirs (':'-separated folders of *.yaml), in path, with why;
 * false when none matches (why then says what was looked at). Files that do not load are
 * skipped. */
bool sc_detect_pick(const sc_detected_t *d, const char *dirs, char *path, size_t path_len,
                    char *why, size_t why_len);

#endif
