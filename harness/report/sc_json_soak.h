/* sc_json_soak.h - a soak's journal, DIR/journal.jsonl: append-only JSON Lines, one object a
 * line, each written whole with one write() and synced before the next cycle starts, so that a
 * killed soak loses at most the cycle it was in:
 *   {"type":"start", version, start_utc, ranks, hosts, argv, duration_s}
 *   {"type":"cycle", cycle, start_s, wall_s, ..., "sweep":[...], "hosts":[...]}   one a cycle
 *   {"type":"resume", at_utc, cycles}           where `soak --resume DIR` carried on
 *   {"type":"end", state, reason, verdict}       where a launch ended (complete or not) */
#ifndef SC_JSON_SOAK_H
#define SC_JSON_SOAK_H

#include <stdbool.h>

#include "record/sc_soak.h"
#include "util/sc_status.h"

#define SC_SOAK_JOURNAL "journal.jsonl"

/* What the first line says: the launch a resume must match, and its options. */
typedef struct {
    char version[32], start_utc[32];
    int ranks, nhosts;
    char hosts[2048]; /* "a,b,c" */
    char **argv;      /* the soak's own arguments (after "soak"), NULL-terminated */
    int argc;
    double duration_s;
    int launches; /* read back: the first launch and every resume */
} sc_soak_start_t;

void sc_soak_start_free(sc_soak_start_t *s);

/* A new journal at path with its start line (SC_ERR_IO when it exists or cannot be made). */
sc_status_t sc_soak_journal_create(const char *path, const sc_soak_start_t *s, sc_err_t *err);
/* One cycle appended, synced. */
sc_status_t sc_soak_journal_cycle(const char *path, const sc_soak_cycle_t *c, sc_err_t *err);
/* A resume or end line: type "resume" (cycles done) or "end" (state, reason, verdict). */
sc_status_t sc_soak_journal_mark(const char *path, const char *type, const char *state,
                                 const char *reason, int cycles, sc_err_t *err);

/* Reads a journal back: the start line, every cycle, and whether its last line is an end of a
 * complete soak. A last line without its newline (a write the kill cut short) is dropped and
 * the file cut back to the last whole line. SC_ERR_INPUT naming path:line otherwise. */
sc_status_t sc_soak_journal_read(const char *path, sc_soak_start_t *start, sc_soak_cycles_t *cycles,
                                 bool *complete, sc_err_t *err);

#endif
