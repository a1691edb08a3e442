/* sc_json_check.h - reading a JSON document's records through their field tables, and
 * refusing what no run could have written: a value of the wrong type ("size": "big"), a number
 * that does not fit its field (sizes past 2^64, a fractional count), a negative quantity or one
 * past what any machine reaches (a field's unit, in its name, says which: sc_json_unit_max). A
 * refusal names file:line and where in the document ("results[3].size_bytes"). For the readers
 * of JSON only (the layers test holds it): result.json, baselines and the soak journal
 * (report/sc_json_*), other tools' JSON (ingest/sc_json_*). */
#ifndef SC_JSON_CHECK_H
#define SC_JSON_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "record/sc_record.h"
#include "json/sc_json_scan.h"
#include "util/sc_status.h"

#define SC_JSON_STREAMED_MAX 8
/* A streamed array of a loaded document. */
typedef struct {
    const char *key;
    size_t at;       /* the offset of its '[' in text */
    uint32_t *sizes; /* its elements' lengths, noted as loading passed them (reading them again
                        needs no second scan), as far as memory went */
    size_t nsizes, cap;
} sc_json_streamed_t;

/* A document being read: its name and bytes (for a bad value's line), or the line it is on (a
 * journal holds a document a line); the first refusal lands in err and status. */
typedef struct {
    const char *path;
    const char *text; /* NULL: every value is on `line` */
    size_t len;
    int line;
    sc_err_t *err;
    sc_status_t status;
    /* Arrays of the top-level object read an element at a time (NULL-terminated keys; NULL:
     * none): sc_json_load leaves each in the document as an empty array and notes where it is,
     * and sc_json_read_list reads its elements one by one from the file's bytes - a run's rows
     * never become one tree (a million rows would take gigabytes). */
    const char *const *streamed;
    sc_json_streamed_t lists[SC_JSON_STREAMED_MAX];
    int nlists;
    size_t released; /* text before this offset is given back to the kernel (read, not needed) */
} sc_json_src_t;

/* src->path mapped and parsed (src->text keeps its bytes, mapped from the file, and the
 * streamed arrays' element lengths: free with sc_json_src_free); NULL when it is not a regular file
 * or not JSON (src refused, naming path:line:column). With src->streamed, the arrays it names are
 * left out of the tree and read by sc_json_read_list. */
json_t *sc_json_load(sc_json_src_t *src);
void sc_json_src_free(sc_json_src_t *src);

/* The line (1-based) of the value at keys (object keys, or array indices in decimal) in text;
 * 0 when it is not there. */
int sc_json_line(const char *text, size_t len, const char *const *keys, int nkeys);

/* Refuses src (once: the first refusal is kept) with "path:line: where: why". where is the
 * value's place ("results[3].size_bytes"), keys its path for the line. Returns false. */
bool sc_json_refuse(sc_json_src_t *src, const char *const *keys, int nkeys, const char *where,
                    const char *why);

/* The largest value a field may hold, by the unit its name ends in (_us, _ms, _s, _GBps,
 * _bytes...): a quantity in it is never negative; HUGE_VAL for a field without a unit. */
double sc_json_unit_max(const char *name);

/* obj's fields into record through fields (absent ones left as they are, absent optional
 * figures absent); false (src refused) at the first value that cannot be that field. key and
 * index say where obj is (key NULL: the document itself; index -1: not in an array). */
bool sc_json_read_record(sc_json_src_t *src, const json_t *obj, void *record,
                         const sc_field_t *fields, const char *key, long index);

/* How a list is visited: which elements are read, and what is done with each read. */
typedef struct {
    /* element index (its bytes text[0..len), or NULL when the list is in the tree): read it into
     * the record (true), or pass it by (false) */
    bool (*wants)(void *ctx, long index, const char *text, size_t len);
    /* a read element (record, zeroed then filled through the fields); false stops the list */
    bool (*take)(void *ctx, void *record);
    void *ctx;
} sc_json_visit_t;

/* doc's array key visited an element at a time through record (elem_size bytes): false when one
 * is refused or v stops it. A streamed array (src->streamed) is never a tree: a million rows
 * cost the memory of the ones the visitor keeps. */
bool sc_json_visit_list(sc_json_src_t *src, const json_t *doc, const char *key, void *record,
                        size_t elem_size, const sc_field_t *fields, const sc_json_visit_t *v);

/* Every element of doc's array key into list, a zeroed record each; false when one is refused
 * (or memory ran out: src->status SC_ERR_NOMEM). A streamed array (src->streamed) is parsed an
 * element at a time from the file. */
bool sc_json_read_list(sc_json_src_t *src, const json_t *doc, const char *key, void *list,
                       size_t elem_size, const sc_field_t *fields);

/* A JSON number as a uint64_t without undefined behaviour: false unless v is a whole number in
 * [0, 2^64). */
bool sc_json_u64(const json_t *v, uint64_t *out);

#endif
