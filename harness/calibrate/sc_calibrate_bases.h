/* sc_calibrate_bases.h - the text of a calibrated copy of a topology, and what it extends. The
 * copy lives elsewhere (a run directory, --output) and a topology may extend only files beside
 * it or shipped ones (topology/sc_topology.h): a shipped base is named by its absolute path;
 * any other base is copied, with the bases it extends in turn, into `<copy>.bases/` beside the
 * copy. Used by sc_calibrate_write. */
#ifndef SC_CALIBRATE_BASES_H
#define SC_CALIBRATE_BASES_H

#include <stdbool.h>
#include <stddef.h>

#include "util/sc_status.h"

/* A file's text, whole (NUL-terminated; free it), or NULL with err set. */
char *sc_calibrate_read_text(const char *path, sc_err_t *err);

/* Copies text into out with its top-level `extends:` line replaced by extends_line ("" drops
 * it) and, when drop_calibrated, without its top-level `calibrated:` block and the comments
 * calibrate wrote. out holds strlen(text) + strlen(extends_line) + 1 bytes. Returns the length. */
size_t sc_calibrate_copy_text(const char *text, const char *extends_line, bool drop_calibrated,
                              char *out);

/* The `extends:` line (with its newline; "" for none) a copy at out_path of the topology src_real
 * (resolved) with this text must carry, after copying its non-shipped bases. */
sc_status_t sc_calibrate_extends_line(const char *src_real, const char *text, const char *out_path,
                                      char *line, size_t len, sc_err_t *err);

#endif
