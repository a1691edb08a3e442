/* sc_results.h - a run's own results directory (results/<UTC time>-<name>/, never reused), the
 * log that copies what rank 0 prints, and the gathering of every rank's record to rank 0 (as bytes:
 * records are plain C structs). */
#ifndef SC_RESULTS_H
#define SC_RESULTS_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "rte/sc_rte.h"
#include "util/sc_status.h"

typedef struct {
    char dir[PATH_MAX]; /* empty when no directory was made (ranks other than 0) */
    FILE *log;
    bool reused; /* an earlier run's directory carried on (soak --resume): never discarded */
    char base[PATH_MAX];     /* the --results-dir folder */
    char made_top[PATH_MAX]; /* the outermost folder of base this run created, or "" */
} sc_results_t;

/* Creates base (and parents) if needed, then a new directory base/<UTC>-<name>[-k] and its
 * log. Fails with SC_ERR_IO naming the path. */
sc_status_t sc_results_open(sc_results_t *res, const char *base, const char *name, sc_err_t *err);
/* An earlier run's directory taken up again: its log appended to. SC_ERR_USAGE when it is not
 * a directory. */
sc_status_t sc_results_reopen(sc_results_t *res, const char *dir, sc_err_t *err);
/* Whether sc_results_open could make its directory under base, checked before anything runs:
 * the nearest folder of base that exists takes a new folder (one is made and removed at once,
 * which answers for read-only file systems and permissions alike). SC_ERR_USAGE naming
 * --results-dir and the folder otherwise; nothing is left on disk. */
sc_status_t sc_results_check_base(const char *base, sc_err_t *err);
/* Closes the log and gives back the reserve. */
void sc_results_close(sc_results_t *res);
/* The run directory holds SC_RESULTS_RESERVE_BYTES in `.reserve` from the start, for the
 * final state of a run that filled the disk: given back here, before that last write. */
#define SC_RESULTS_RESERVE_BYTES ((size_t)256 << 10)
/* The longest results base: a run's folder (stamp, command, attempt) and its longest file name
 * must still fit in PATH_MAX, else names would be cut. */
#define SC_RESULTS_BASE_MAX (PATH_MAX - 256)
void sc_results_release_reserve(const sc_results_t *res);
/* Tells the launcher (launch/mpirun.sh) the exit code this process leaves with: rank 0's, once,
 * at its very end. Nothing when no launcher asked. */
void sc_results_note_exit(int code);
/* Removes the run directory and all it holds (a run that ended in a usage error, exit 2,
 * leaves nothing on disk). Nothing when no directory was made. */
void sc_results_discard(sc_results_t *res);

/* printf to stdout and to the log (when open). */
void sc_results_printf(sc_results_t *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Flushes stdout and the log, each unless another thread holds it (never waits: the watchdog
 * calls it just before the process ends). */
void sc_results_flush(void *res);

/* Gathers every rank's bytes (len 0: nothing) to rank 0: returns their concatenation there,
 * with each rank's length and offset in *lens and *offsets (the caller frees all three); NULL
 * on other ranks. Collective over rte->world. */
char *sc_results_gather_bytes(const sc_rte_t *rte, const void *mine, size_t len, int **lens,
                              int **offsets);

/* dir + "/" + file into buf. */
const char *sc_results_path(const sc_results_t *res, const char *file, char *buf, size_t len);

#endif
