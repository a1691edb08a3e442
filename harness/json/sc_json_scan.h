/* sc_json_scan.h - passing over JSON text without parsing it: to the end of a string, past a
 * value (a container's brackets matched, its strings jumped), to a member of an object. The
 * readers of a fleet's results pass millions of rows this way, so the search for the bytes that
 * matter (quotes, brackets, newlines) goes 16 bytes a step where the CPU has SSE2. Inside the
 * JSON readers only (json/sc_json_check.c and the readers above it). */
#ifndef SC_JSON_SCAN_H
#define SC_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* Where a scan is: p in [p, end), and the line p is on (counted over the newlines passed). */
typedef struct {
    const char *p, *end;
    int line;
} sc_scan_t;

/* Past white space (newlines counted). */
void sc_scan_ws(sc_scan_t *c);
/* Past a string's closing quote (c->p just after its opening one), a quote escaped by an odd
 * run of backslashes passed over; false when the text ends first. */
bool sc_scan_string_end(sc_scan_t *c);
/* Past the value at c->p (white space first): a string, a scalar to its delimiter, or a
 * container with its brackets matched (64 deep at most, depth already taken); false when it is
 * not one. Scalars are not validated: a reader parses what it keeps. */
bool sc_scan_skip(sc_scan_t *c, int depth);
/* The text of a scalar member key of the object at text[0..len) (a string without its quotes)
 * into out; false when it has none or it is longer than SC_JSON_PEEK_MAX. For a visitor that
 * decides from one field. */
bool sc_json_peek_text(const char *text, size_t len, const char *key, char *out, size_t outlen);
/* The raw text of the members keys[0..nkeys) of the object at text[0..len) - a string with its
 * quotes, a number as written - into out (empty when absent or longer than SC_JSON_PEEK_MAX);
 * how many were found. One scan, no parse: a reader that needs five fields of a million rows. */
#define SC_JSON_PEEK_MAX 64
int sc_json_peek_texts(const char *text, size_t len, const char *const *keys, int nkeys,
                       char (*out)[SC_JSON_PEEK_MAX]);

#endif
