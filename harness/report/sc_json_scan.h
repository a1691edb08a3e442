/* sc_json_scan.h - passing over JSON text without parsing it: to the end of a string, past a
 * value (a container's brackets matched, its strings jumped), to a member of an object. The
 * readers of a fleet's results pass millions of rows this way, so the search for the bytes that
 * matter (quotes, brackets, newlines) goes 16 bytes a step where the CPU has SSE2. Inside the
 * report module only (sc_json_check.c and its readers). */
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

#endif
