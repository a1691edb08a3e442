/* sc_files.h - output files: a path checked before anything runs (so a bad one exits 2 with
 * nothing on disk), text written through a temporary file and a rename (a reader never sees half
 * of it), and text escaped for XML and HTML. */
#ifndef SC_FILES_H
#define SC_FILES_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "util/sc_status.h"

/* Checks that an output file given by `flag` can be written, by what its final write
 * (sc_files_write_text) will do: a regular file's temporary made beside it and removed (the
 * folder, its permissions, the name's length), a FIFO or device opened (a FIFO with no reader
 * refused; its writer held for the final write, so its reader does not see an end first), a
 * folder refused. NULL path: nothing to check. SC_ERR_USAGE naming the flag and the path
 * otherwise. */
sc_status_t sc_files_check_output(const char *flag, const char *path, sc_err_t *err);

/* An input that must be a regular file (a FIFO would block the reader, a directory reads as
 * nothing): SC_ERR_INPUT naming path and what it is instead, or why it cannot be opened. */
sc_status_t sc_files_check_input(const char *path, sc_err_t *err);

/* A folder that can be made at path (flag names it in errors): the nearest part of path that
 * exists is a folder in which a folder can be made (probed, removed). Bad usage otherwise. */
sc_status_t sc_files_check_folder(const char *flag, const char *path, sc_err_t *err);

/* Whether a part of path (path itself included) is a symbolic link owned by neither the user
 * nor root - planted in a shared folder: its name into link, its owner into owner. */
bool sc_files_foreign_link(const char *path, char *link, size_t len, unsigned *owner);

/* mkdir -p path (0755); an I/O error names flag and the part that could not be made. */
sc_status_t sc_files_make_folders(const char *flag, const char *path, sc_err_t *err);

/* Writes what writer produces (it returns non-zero on failure) to path, whole or not at all: a
 * regular file (or none) through a temporary made exclusively beside it (mkstemp) and a rename
 * over it; a device, FIFO or terminal (`--json /dev/stdout`) directly, a FIFO without a reader
 * refused at once. A symbolic link owned by the user or root is followed (its target is
 * written); one owned by anybody else - planted in a shared folder - is replaced, never
 * followed. A directory at path is an I/O error. */
typedef int (*sc_files_writer_t)(FILE *out, void *arg);
sc_status_t sc_files_write_text(const char *path, sc_files_writer_t writer, void *arg,
                                sc_err_t *err);
/* The file at from written to `to` the same way (whole or not at all). */
sc_status_t sc_files_copy(const char *from, const char *to, sc_err_t *err);
/* The file at path appended to out (flushed first, and after): copied in the kernel where it
 * can be. False when it cannot be read or written whole. */
bool sc_files_append(FILE *out, const char *path);

/* text for XML and HTML (junit.xml, report.html): <, >, &, " and ' escaped, control characters
 * other than tab and newline dropped (XML 1.0 cannot hold them); NULL writes nothing. */
void sc_files_xml_text(FILE *out, const char *text);

/* A file a user names: name itself when it exists, else - for a bare name without '/' - the
 * first of dirs (':'-separated) that holds name or name.yaml: `--topology dgx-a100` finds the
 * shipped topologies/dgx-a100.yaml wherever scalecheck runs from. out gets name unchanged when
 * nothing matches (its load then says it cannot open it). Whether a shipped file was found. */
bool sc_files_shipped(const char *name, const char *dirs, char *out, size_t len);
/* The shipped names in dirs (':'-separated): every NAME.yaml, each once, at most max; how many. */
#define SC_FILES_STEM_MAX 64
int sc_files_shipped_names(const char *dirs, char (*stems)[SC_FILES_STEM_MAX], int max);
/* After loading name failed with status: where name is a bare name that is neither a file nor
 * shipped (a misspelt -Y dgx-a10), the error names the nearest shipped KIND ("topology") in
 * dirs when one is close; otherwise status and err as they are. */
sc_status_t sc_files_shipped_hint(const char *name, const char *dirs, const char *kind,
                                  sc_status_t status, sc_err_t *err);

/* Where the shipped files of a kind ("topologies", "workloads") are, ':'-separated: the source
 * tree's, the program's own ../share/scalecheck/KIND, and the install prefix's. */
#define SC_FILES_DIRS_MAX (3 * PATH_MAX + 64)
const char *sc_files_data_dirs(const char *kind, char *buf, size_t len);

/* The default results folder: SCALECHECK_RESULTS when set; else results/ where scalecheck runs
 * from its build tree (the tests', the README's), else - installed - $XDG_DATA_HOME (or
 * ~/.local/share)/scalecheck/results, which does not depend on where it was started; "" when
 * neither XDG_DATA_HOME nor HOME is set (sc_results_check_base refuses it, naming the ways to
 * say where). */
const char *sc_files_results_default(void);

/* Where sysfs is read from: SCALECHECK_SYSFS_ROOT when set (the tests' fake trees), else /sys. */
const char *sc_files_sysfs_root(void);

#endif
