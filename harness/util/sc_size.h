/* sc_size.h - sizes as users type them: "8", "512K", "64M", "1G" (binary suffixes, 1K = 1024
 * bytes, an optional trailing "B" or "iB"), and the same sizes printed back. */
#ifndef SC_SIZE_H
#define SC_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "sc_status.h"

/* Parses text into *bytes. Fails with SC_ERR_USAGE (message naming `what`, e.g. "-b") on an
 * empty string, a negative value, an unknown suffix, trailing garbage, or a value that does not
 * fit in 64 bits. */
sc_status_t sc_size_parse(const char *text, const char *what, uint64_t *bytes, sc_err_t *err);

/* Writes a short form of bytes ("64M", "1.5K", "8") into buf. Returns buf. */
char *sc_size_format(uint64_t bytes, char *buf, size_t len);

#endif
