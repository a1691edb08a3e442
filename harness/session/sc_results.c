#include "sc_results.h"

#include "util/sc_files.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

sc_status_t sc_results_check_base(const char *base, sc_err_t *err)
{
    if (base[0] == '\0')
        return sc_err_set(err, SC_ERR_USAGE,
                          "no results folder: HOME is not set; give --results-dir DIR or set "
                          "SCALECHECK_RESULTS");
    if (strlen(base) > SC_RESULTS_BASE_MAX)
        return sc_err_set(err, SC_ERR_USAGE,
                          "--results-dir: %zu characters, at most %d (room for the run's own "
                          "folder and files)",
                          strlen(base), SC_RESULTS_BASE_MAX);
    char link[PATH_MAX];
    unsigned owner;
    if (sc_files_foreign_link(base, link, sizeof(link), &owner))
        return sc_err_set(err, SC_ERR_USAGE,
                          "--results-dir: %s is a symbolic link owned by uid %u (not you, not "
                          "root): not followed",
                          link, owner);
    return sc_files_check_folder("--results-dir", base, err);
}

/* Space held back for the final state: a disk that fills during the run still takes it. Real
 * blocks (written, not a sparse file). A disk too full to hold them at the start is an I/O error
 * naming the folder: the run would lose what it measured. */
static sc_status_t results__reserve(const sc_results_t *res, sc_err_t *err)
{
    char path[PATH_MAX], zeros[4096] = {0};
    sc_results_path(res, ".reserve", path, sizeof(path));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    for (size_t at = 0; ok && at < SC_RESULTS_RESERVE_BYTES; at += sizeof(zeros))
        ok = write(fd, zeros, sizeof(zeros)) == (ssize_t)sizeof(zeros);
    int saved = errno;
    ok = fd >= 0 && fsync(fd) == 0 && ok;
    if (fd >= 0)
        close(fd);
    if (ok)
        return SC_OK;
    unlink(path);
    return sc_err_set(err, SC_ERR_IO, "cannot hold the run's final state in %s: %s", res->dir,
                      strerror(saved ? saved : ENOSPC));
}

/* The run's log, appended or new; never through a link at its name. */
static FILE *results__open_log(const char *path, bool append)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (append ? O_APPEND : O_TRUNC),
                  0644);
    FILE *f = fd >= 0 ? fdopen(fd, append ? "a" : "w") : NULL;
    if (f == NULL && fd >= 0)
        close(fd);
    return f;
}

/* The outermost folder of path that does not exist yet ("" when path exists): what making path
 * creates, and a discarded run removes again (bad input leaves nothing on disk). */
static void results__first_missing(const char *path, char *out, size_t len)
{
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s", path);
    out[0] = '\0';
    struct stat st;
    while (p[0] != '\0' && stat(p, &st) != 0 && errno == ENOENT) {
        snprintf(out, len, "%s", p);
        char *slash = strrchr(p, '/');
        if (slash == NULL || slash == p)
            break;
        *slash = '\0';
    }
}

/* base/STAMP-NAME, or -2 .. -999 after it when taken; made exclusively (mkdir never reuses an
 * existing folder or follows a link). */
static sc_status_t results__make_run_dir(sc_results_t *res, const char *base, const char *name,
                                         sc_err_t *err)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &utc);
    for (int attempt = 1; attempt < 1000; attempt++) {
        if (attempt == 1)
            snprintf(res->dir, sizeof(res->dir), "%s/%s-%s", base, stamp, name);
        else
            snprintf(res->dir, sizeof(res->dir), "%s/%s-%s-%d", base, stamp, name, attempt);
        if (mkdir(res->dir, 0755) == 0)
            return SC_OK;
        if (errno != EEXIST)
            break;
    }
    int saved = errno;
    res->dir[0] = '\0';
    if (saved == EEXIST)
        return sc_err_set(err, SC_ERR_IO,
                          "cannot create a results directory in %s: all 999 names for %s-%s are "
                          "taken",
                          base, stamp, name);
    return sc_err_set(err, SC_ERR_IO, "cannot create a results directory in %s: %s", base,
                      strerror(saved));
}

/* The launcher's note (launch/mpirun.sh sets SCALECHECK_LAUNCH_NOTE to a file in a folder of
 * its own), one `key=value` line each: the run directory and this program, so that a run whose
 * ranks are killed outright still gets a final state from the launcher (`report --ended`); and
 * the exit code rank 0 left with (sc_results_note_exit), so that the launcher tells mpirun's
 * own failure from the command's verdict. Best effort: a rank 0 on another host than the
 * launcher cannot reach the file (its folder is not there), and says nothing. */
static FILE *results__open_note(int mode)
{
    const char *note = getenv("SCALECHECK_LAUNCH_NOTE");
    if (note == NULL || note[0] != '/')
        return NULL;
    int fd = open(note, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | mode, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL && fd >= 0)
        close(fd);
    return f;
}

static void results__note_launcher(const sc_results_t *res)
{
    char dir[PATH_MAX], exe[PATH_MAX];
    if (realpath(res->dir, dir) == NULL)
        return;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    FILE *f = results__open_note(O_TRUNC);
    if (f != NULL) {
        fprintf(f, "dir=%s\nexe=%s\n", dir, exe);
        fclose(f);
    }
}

void sc_results_note_exit(int code)
{
    FILE *f = results__open_note(O_APPEND);
    if (f != NULL) {
        fprintf(f, "exit=%d\n", code);
        fclose(f);
    }
}

sc_status_t sc_results_open(sc_results_t *res, const char *base, const char *name, sc_err_t *err)
{
    memset(res, 0, sizeof(*res));
    snprintf(res->base, sizeof(res->base), "%s", base);
    results__first_missing(base, res->made_top, sizeof(res->made_top));
    sc_status_t status = sc_files_make_folders("--results-dir", base, err);
    if (status == SC_OK)
        status = results__make_run_dir(res, base, name, err);
    char path[PATH_MAX];
    if (status == SC_OK && (res->log = results__open_log(
                                sc_results_path(res, "log", path, sizeof(path)), false)) == NULL)
        status = sc_err_set(err, SC_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    if (status == SC_OK)
        status = results__reserve(res, err);
    if (status != SC_OK)
        sc_results_discard(res); /* nothing measured yet: nothing left on disk */
    else
        results__note_launcher(res);
    return status;
}

sc_status_t sc_results_reopen(sc_results_t *res, const char *dir, sc_err_t *err)
{
    memset(res, 0, sizeof(*res));
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return sc_err_set(err, SC_ERR_USAGE, "--resume: %s is not a run directory", dir);
    snprintf(res->dir, sizeof(res->dir), "%s", dir);
    res->reused = true;
    char path[PATH_MAX];
    res->log = results__open_log(sc_results_path(res, "log", path, sizeof(path)), true);
    if (res->log == NULL)
        return sc_err_set(err, SC_ERR_IO, "cannot append to %s: %s", path, strerror(errno));
    results__note_launcher(res);
    return results__reserve(res, err);
}

void sc_results_release_reserve(const sc_results_t *res)
{
    if (res->dir[0] != '\0') {
        char path[PATH_MAX];
        unlink(sc_results_path(res, ".reserve", path, sizeof(path)));
    }
}

static int results__remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 ? 0 : -1;
}

void sc_results_discard(sc_results_t *res)
{
    sc_results_close(res);
    if (res->dir[0] != '\0' && !res->reused)
        nftw(res->dir, results__remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    /* the folders this run made for base, innermost first, where they are empty (another run
     * may have put its own directory there since) */
    char p[PATH_MAX];
    snprintf(p, sizeof(p), "%s", res->base);
    size_t top = strlen(res->made_top);
    while (top > 0 && !res->reused && strlen(p) >= top && rmdir(p) == 0) {
        char *slash = strrchr(p, '/');
        if (slash == NULL)
            break;
        *slash = '\0';
    }
    res->dir[0] = '\0';
}

void sc_results_close(sc_results_t *res)
{
    sc_results_release_reserve(res);
    if (res->log != NULL)
        fclose(res->log);
    res->log = NULL;
}

void sc_results_printf(sc_results_t *res, const char *fmt, ...)
{
    /* formatted once for both streams: a sweep's table is thousands of lines of figures */
    char line[512];
    va_list ap, copy;
    va_start(ap, fmt);
    va_copy(copy, ap);
    int len = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (len >= 0 && (size_t)len < sizeof(line)) {
        if (res != NULL && res->log != NULL)
            fwrite(line, 1, (size_t)len, res->log);
        fwrite(line, 1, (size_t)len, stdout);
    } else { /* longer than a line: each stream formats it */
        va_list again;
        va_copy(again, copy);
        if (res != NULL && res->log != NULL)
            vfprintf(res->log, fmt, again);
        va_end(again);
        vfprintf(stdout, fmt, copy);
    }
    va_end(copy);
}

/* Flushed only when nobody holds the stream: the main thread may be stuck writing to it (a
 * pipe the launcher no longer reads), and this runs on the watchdog just before the end. */
static void results__flush_if_free(FILE *f)
{
    if (f != NULL && ftrylockfile(f) == 0) {
        fflush_unlocked(f);
        funlockfile(f);
    }
}

void sc_results_flush(void *arg)
{
    sc_results_t *res = arg;
    results__flush_if_free(stdout);
    if (res != NULL)
        results__flush_if_free(res->log);
}

const char *sc_results_path(const sc_results_t *res, const char *file, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", res->dir, file);
    return buf;
}

char *sc_results_gather_bytes(const sc_rte_t *rte, const void *mine, size_t len, int **lens_out,
                              int **offsets_out)
{
    int n = (int)len;
    bool root = rte->rank == 0;
    int *lens = root ? calloc((size_t)rte->size, sizeof(int)) : NULL;
    int *offsets = root ? calloc((size_t)rte->size, sizeof(int)) : NULL;
    MPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, 0, rte->world);
    size_t total = 0;
    for (int r = 0; root && r < rte->size; r++) {
        offsets[r] = (int)total;
        total += (size_t)lens[r];
    }
    char *all = root ? malloc(total + 1) : NULL;
    MPI_Gatherv(mine, n, MPI_BYTE, all, lens, offsets, MPI_BYTE, 0, rte->world);
    if (root) {
        *lens_out = lens;
        *offsets_out = offsets;
    }
    return all;
}
