#include "sc_results.h"

#include "util/sc_files.h"

#include <errno.h>
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
    return sc_files_check_folder("--results-dir", base, err);
}

/* Space held back for the final state: a disk that fills during the run still takes it. Real
 * blocks (written, not a sparse file); none when the disk is already too full to hold them. */
static void sc__reserve(const sc_results_t *res)
{
    char path[PATH_MAX], zeros[4096] = {0};
    FILE *f = fopen(sc_results_path(res, ".reserve", path, sizeof(path)), "w");
    if (f == NULL)
        return;
    bool ok = true;
    for (size_t at = 0; ok && at < SC_RESULTS_RESERVE_BYTES; at += sizeof(zeros))
        ok = fwrite(zeros, 1, sizeof(zeros), f) == sizeof(zeros);
    ok &= fclose(f) == 0;
    if (!ok)
        unlink(path);
}

/* The outermost folder of path that does not exist yet ("" when path exists): what making path
 * creates, and a discarded run removes again (bad input leaves nothing on disk). */
static void sc__first_missing(const char *path, char *out, size_t len)
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

sc_status_t sc_results_open(sc_results_t *res, const char *base, const char *name, sc_err_t *err)
{
    memset(res, 0, sizeof(*res));
    snprintf(res->base, sizeof(res->base), "%s", base);
    sc__first_missing(base, res->made_top, sizeof(res->made_top));
    sc_status_t status = sc_files_make_folders("--results-dir", base, err);
    if (status != SC_OK)
        return status;
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
            break;
        if (errno != EEXIST)
            return sc_err_set(err, SC_ERR_IO, "cannot create results directory %s: %s", res->dir,
                              strerror(errno));
    }
    char path[PATH_MAX];
    res->log = fopen(sc_results_path(res, "log", path, sizeof(path)), "w");
    if (res->log == NULL)
        return sc_err_set(err, SC_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    sc__reserve(res);
    return SC_OK;
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
    res->log = fopen(sc_results_path(res, "log", path, sizeof(path)), "a");
    if (res->log == NULL)
        return sc_err_set(err, SC_ERR_IO, "cannot append to %s: %s", path, strerror(errno));
    sc__reserve(res);
    return SC_OK;
}

void sc_results_release_reserve(const sc_results_t *res)
{
    if (res->dir[0] != '\0') {
        char path[PATH_MAX];
        unlink(sc_results_path(res, ".reserve", path, sizeof(path)));
    }
}

static int sc__remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
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
        nftw(res->dir, sc__remove_entry, 16, FTW_DEPTH | FTW_PHYS);
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
    va_list ap;
    va_start(ap, fmt);
    if (res != NULL && res->log != NULL) {
        va_list copy;
        va_copy(copy, ap);
        vfprintf(res->log, fmt, copy);
        va_end(copy);
    }
    vfprintf(stdout, fmt, ap);
    va_end(ap);
}

/* Flushed only when nobody holds the stream: the main thread may be stuck writing to it (a
 * pipe the launcher no longer reads), and this runs on the watchdog just before the end. */
static void sc__flush_if_free(FILE *f)
{
    if (f != NULL && ftrylockfile(f) == 0) {
        fflush_unlocked(f);
        funlockfile(f);
    }
}

void sc_results_flush(void *arg)
{
    sc_results_t *res = arg;
    sc__flush_if_free(stdout);
    if (res != NULL)
        sc__flush_if_free(res->log);
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
