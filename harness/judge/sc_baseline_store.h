/* sc_baseline_store.h - the figures of many runs held compactly while a baseline is built: each
 * key kept once (ten runs of a million rows name the same million cases), a figure 16 bytes, and
 * the points made from them in key order (record/sc_record.h's sc_baseline_point_t one at a
 * time: a million points need not be held either), in time linear in the figures plus the
 * keys' sort. */
#ifndef SC_BASELINE_STORE_H
#define SC_BASELINE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/sc_record.h"

#define SC_STORE_METRICS 16

/* A figure, chained to the next of its key (figures are kept as they came: a key's are found
 * by following the chain, never by sorting ten million of them). */
typedef struct {
    uint32_t next; /* the key's next figure: its index + 1 (0: the last) */
    uint8_t metric, run;
    double value;
} sc_stored_figure_t;

typedef struct {
    char *arena; /* the keys, each NUL-terminated */
    size_t arena_len, arena_cap;
    uint64_t *key_at;      /* each key's offset in the arena */
    uint32_t *head, *tail; /* each key's first and last figure (index + 1) */
    size_t nkeys, keys_cap;
    uint32_t *slots; /* open addressing: key index + 1, 0 empty */
    size_t nslots;
    char metrics[SC_STORE_METRICS][24];
    bool higher_is_better[SC_STORE_METRICS];
    int nmetrics;
    sc_stored_figure_t *figures;
    size_t nfigures, figures_cap;
    uint32_t *order; /* made by sc_store_group: the keys in byte order */
} sc_store_t;

void sc_store_init(sc_store_t *s);
void sc_store_free(sc_store_t *s);
/* One figure of run; false: no memory, or more metrics than the store names. hint (NULL: none)
 * is where the caller's last key was, plus one: runs name their cases in the same order, so the
 * next key is mostly the one after, found without a hash look-up; it is moved on. */
bool sc_store_add(sc_store_t *s, const char *key, const char *metric, double value,
                  bool higher_is_better, int run, size_t *hint);
/* The keys put in byte order for sc_store_points; false: no memory. */
bool sc_store_group(sc_store_t *s);
/* The points after sc_store_group, in key then metric order: the i-th key's into points (at
 * most SC_STORE_METRICS); their number, -1 without memory for the key's figures. nruns: the
 * runs added (a point of all says "all"). */
int sc_store_points(const sc_store_t *s, size_t i, size_t nruns, sc_baseline_point_t *points);
/* A key's index (as added; no sc_store_group needed), -1 when the store has no such key; and
 * the points of the key at that index, as sc_store_points makes them. */
long sc_store_find(const sc_store_t *s, const char *key);
int sc_store_key_points(const sc_store_t *s, size_t k, size_t nruns, sc_baseline_point_t *points);

#endif
