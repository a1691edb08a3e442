/* sc_common_opts.h - the options every command that opens a run shares, as one record: each
 * command's options record embeds it (`common`), cli/sc_cli_common.c holds their rows (one
 * table, composed into each command's table by the bits the command takes), the defaults are
 * set here once, the session opens from it (session/sc_session.h) and the result header copies
 * it whole (sc_result_t.asked, in drive/sc_drive_end.c's sc_drive_doc_header), so that a field
 * the header's field table lists (record/sc_result.c) is written to result.json and read back.
 *
 * A shared option: a field here, a row (and its bit) in cli/sc_cli_common.c; recorded in
 * result.json, also a row in sc_result_header_fields (docs/ARCHITECTURE.md, "Recipes"). */
#ifndef SC_COMMON_OPTS_H
#define SC_COMMON_OPTS_H

#include <limits.h>
#include <stdbool.h>

/* Which shared options a command takes: the bits of its group row (cli/sc_cli.h). */
enum {
    SC_COMMON_BACKEND = 1u << 0,
    SC_COMMON_DEVICE = 1u << 1,
    SC_COMMON_JSON = 1u << 2,
    SC_COMMON_CSV = 1u << 3,
    SC_COMMON_RESULTS_DIR = 1u << 4,
    SC_COMMON_NAME = 1u << 5,
    SC_COMMON_TIMEOUT = 1u << 6,
    SC_COMMON_DEADLINE = 1u << 7,
    SC_COMMON_TELEMETRY = 1u << 8,
    SC_COMMON_NO_PREFLIGHT = 1u << 9,
    SC_COMMON_METRICS = 1u << 10,
};
/* Where a run's files go: the results base, the run's name, --json. */
#define SC_COMMON_FILES (SC_COMMON_RESULTS_DIR | SC_COMMON_NAME | SC_COMMON_JSON)
/* What a measuring command across ranks takes (coll, run, pairs, soak add or drop a few). */
#define SC_COMMON_MEASURE                                                                          \
    (SC_COMMON_BACKEND | SC_COMMON_FILES | SC_COMMON_TIMEOUT | SC_COMMON_DEADLINE |                \
     SC_COMMON_NO_PREFLIGHT | SC_COMMON_METRICS)

/* A path option's room: past any path, so that the check that knows the limit (the run's own
 * files need room under --results-dir) is the one that refuses a long one, and says why. */
#define SC_COMMON_PATH_MAX (2 * PATH_MAX)

/* An empty text is "not given" (a path, the name). */
typedef struct {
    char backend[32];                      /* "auto", "mpi", "ucx", "nccl" */
    int device;                            /* -1: the rank's index on its host */
    double timeout_s;                      /* every wait's bound, 0: none */
    double deadline_s;                     /* the whole run's bound, 0: none */
    double telemetry_s;                    /* GPU sampling interval, 0: off */
    char results_base[SC_COMMON_PATH_MAX]; /* parent of the run directory */
    char name[64]; /* the run directory's name after its time stamp, "": the command's */
    char json_path[SC_COMMON_PATH_MAX], csv_path[SC_COMMON_PATH_MAX],
        metrics_path[SC_COMMON_PATH_MAX];
    bool no_preflight;
} sc_common_opts_t;

/* The defaults, for a command that takes `takes` (a shared option it does not take stays off:
 * no telemetry without SC_COMMON_TELEMETRY). */
void sc_common_opts_default(sc_common_opts_t *c, unsigned takes);
/* A path option's value, or NULL when not given. */
const char *sc_common_path(const char *value);

#endif
