/* sc_size.h - byte sizes as users type them, on the command line and in YAML alike: "8", "8B",
 * "512K", "64M", "1G", "64MiB" - binary suffixes, 1K = 1024 bytes, as nccl-tests and OSU read
 * them. "64MB" is refused as ambiguous. Counts (parameters: 13B) and rates (GB/s, Gb/s) are
 * decimal; see docs/report.md, "Units". */
#ifndef SC_SIZE_H
#define SC_SIZE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "sc_status.h"

/* Parses text into *bytes. Fails with SC_ERR_USAGE (message naming `what`, e.g. "-b") on an
 * empty string, a negative value, an unknown suffix, an ambiguous one ("MB"), trailing garbage,
 * or a value that does not fit in 64 bits. */
sc_status_t sc_size_parse(const char *text, const char *what, uint64_t *bytes, sc_err_t *err);

/* Writes a short form of bytes ("64M", "1.5K", "8") into buf. Returns buf. */
char *sc_size_format(uint64_t bytes, char *buf, size_t len);

/* A duration: a number of seconds, or with s, m, h or d ("90s", "30m", "72h", "3d"); more than
 * 0 and finite. false otherwise. */
bool sc_duration_parse(const char *text, double *seconds);

#endif
