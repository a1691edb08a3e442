/* sc_traffic_verdict.h - traffic that collides, judged: each victim (a group's collective, a
 * host's or a leaf's pairs) by how much slower it ran under the others' load than alone. */
#ifndef SC_TRAFFIC_VERDICT_H
#define SC_TRAFFIC_VERDICT_H

#include <stddef.h>

#include "record/sc_record.h"

/* Each row's vs_peers: its time under load over the fastest row's of its kind and size. */
void sc_traffic_peers(sc_traffic_rows_t *rows);

/* Each row's level by its slowdown and its vs_peers (a WARN from SC_COLLIDE_WARN_SLOWDOWN, a
 * FAIL from SC_COLLIDE_FAIL_SLOWDOWN), and two checks per kind of row - "pair" rows excepted:
 * their hosts', leaves' and spine's rows are the checks - naming its most slowed group, by the
 * load and against its peers. crowded: "" or why the host's cores alone slow the load (more
 * ranks than cores, sc_session_crowded): the load's check is then a WARN at most. line: the
 * groups past the WARN line, "" when none. */
void sc_verdict_traffic(sc_traffic_rows_t *rows, const char *crowded, sc_checks_t *checks,
                        char *line, size_t len);

#endif
