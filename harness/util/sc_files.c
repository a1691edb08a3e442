/* sc_files.c - output files: checked before a run, written whole or not at all. */
#include "sc_files.h"

#include "sc_config.h"
#include "util/sc_names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A symbolic link the user may have made: owned by the user or by root. One owned by anybody else
 * (planted in a shared folder) is never followed, as the kernel's protected_symlinks rule has it.
 */
static bool files__own_link(const struct stat *link)
{
    return link->st_uid == getuid() || link->st_uid == 0;
}

/* How an output at path is written (sc_files_write_text), decided once for the early check and
 * the final write: a folder is refused; a device, FIFO or terminal (/dev/stdout) written
 * directly; a regular file, or none yet, replaced whole - at target, which is the file a link
 * of the user's or root's points at (a link planted by another user is itself replaced).
 * FILES__FAILED (errno set) when that file cannot be resolved. */
typedef enum { FILES__REPLACE, FILES__FOLDER, FILES__DIRECT, FILES__FAILED } files__way_t;

static files__way_t files__way(const char *path, struct stat *st, char target[PATH_MAX])
{
    snprintf(target, PATH_MAX, "%s", path);
    bool follow = lstat(path, st) == 0 && S_ISLNK(st->st_mode) && files__own_link(st);
    bool there = follow ? stat(path, st) == 0 : lstat(path, st) == 0;
    if (there && S_ISDIR(st->st_mode))
        return FILES__FOLDER;
    if (there && !S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode))
        return FILES__DIRECT;
    if (follow && there && realpath(path, target) == NULL)
        return FILES__FAILED;
    return FILES__REPLACE;
}

/* A FIFO's writer opened by the early check and held until the final write (sc_files_write_text)
 * uses it: closed in between, the reader would see the end of its input before the results. */
#define FILES__HELD 8
static struct {
    char path[PATH_MAX];
    int fd;
} files__held[FILES__HELD];
static int files__nheld;

static void files__hold(const char *path, int fd)
{
    if (files__nheld == FILES__HELD) {
        close(fd);
        return;
    }
    snprintf(files__held[files__nheld].path, sizeof(files__held[0].path), "%s", path);
    files__held[files__nheld++].fd = fd;
}

/* The writer held for path (taken: the caller closes it), or -1. */
static int files__take_held(const char *path)
{
    for (int i = 0; i < files__nheld; i++)
        if (files__held[i].fd >= 0 && !strcmp(files__held[i].path, path)) {
            int fd = files__held[i].fd;
            files__held[i].fd = -1;
            return fd;
        }
    return -1;
}

/* What is at path and is not a regular file (a FIFO, a device, /dev/stdout): opened as the final
 * write will open it; a FIFO with no reader refused now, not when the run is done. */
static sc_status_t files__check_direct(const char *flag, const char *path, const struct stat *st,
                                       sc_err_t *err)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return sc_err_set(err, SC_ERR_USAGE, "%s: cannot write %s: %s", flag, path,
                          errno == ENXIO ? "a FIFO with no reader" : strerror(errno));
    if (S_ISFIFO(st->st_mode))
        files__hold(path, fd);
    else
        close(fd);
    return SC_OK;
}

/* A regular file's final write, tried: its temporary made beside it and removed (the name's
 * length, the folder's permissions, a read-only file system - what the rename would meet). */
static sc_status_t files__check_replace(const char *flag, const char *path, sc_err_t *err)
{
    char copy[PATH_MAX], base[PATH_MAX], tmp[PATH_MAX + 32];
    snprintf(copy, sizeof(copy), "%s", path);
    snprintf(base, sizeof(base), "%s", path);
    const char *folder = dirname(copy);
    struct stat st;
    if (stat(folder, &st) != 0 && errno != ENAMETOOLONG)
        return sc_err_set(err, SC_ERR_USAGE, "%s: cannot write %s: folder %s does not exist", flag,
                          path, folder);
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", folder, basename(base)) >= sizeof(tmp))
        return sc_err_set(err, SC_ERR_USAGE, "%s: cannot write %s: the name is too long", flag,
                          path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return sc_err_set(err, SC_ERR_USAGE, "%s: cannot write %s: %s", flag, path,
                          errno == EACCES ? "its folder is not writable" : strerror(errno));
    close(fd);
    unlink(tmp);
    return SC_OK;
}

sc_status_t sc_files_check_output(const char *flag, const char *path, sc_err_t *err)
{
    if (path == NULL)
        return SC_OK;
    if (path[0] == '\0')
        return sc_err_set(err, SC_ERR_USAGE, "%s: an empty file name", flag);
    if (strlen(path) >= PATH_MAX)
        return sc_err_set(err, SC_ERR_USAGE,
                          "%s: cannot write a path of %zu characters (the most is %d)", flag,
                          strlen(path), PATH_MAX - 1);
    /* the decisions sc_files_write_text will make, made now */
    struct stat st;
    char target[PATH_MAX];
    switch (files__way(path, &st, target)) {
    case FILES__FOLDER:
        return sc_err_set(err, SC_ERR_USAGE, "%s: %s is a directory, not a file", flag, path);
    case FILES__DIRECT:
        return files__check_direct(flag, path, &st, err);
    case FILES__REPLACE:
        return files__check_replace(flag, target, err);
    default:
        return sc_err_set(err, SC_ERR_USAGE, "%s: cannot write %s: %s", flag, path,
                          strerror(errno));
    }
}

sc_status_t sc_files_check_input(const char *path, sc_err_t *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return sc_err_set(err, SC_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISREG(st.st_mode))
        return SC_OK;
    const char *what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return sc_err_set(err, SC_ERR_INPUT, "%s: is %s, not a regular file", path, what);
}

/* Calls visit on each prefix of path that ends a component ("a", "a/b", "a/b/c"), shortest
 * first, until it returns non-zero; that value, or 0 when every prefix was visited. */
static int files__each_prefix(const char *path, int (*visit)(const char *prefix, void *arg),
                              void *arg)
{
    char part[PATH_MAX];
    snprintf(part, sizeof(part), "%s", path);
    for (char *p = part + 1;; p++) {
        bool end = *p == '\0';
        if (!end && *p != '/')
            continue;
        *p = '\0';
        int stop = visit(part, arg);
        if (stop != 0 || end)
            return stop;
        *p = '/';
    }
}

typedef struct {
    const char *flag;
    sc_err_t *err;
} files__mkdir_t;

static int files__mkdir(const char *prefix, void *arg)
{
    const files__mkdir_t *m = arg;
    if (mkdir(prefix, 0755) == 0 || errno == EEXIST)
        return 0;
    sc_err_set(m->err, SC_ERR_IO, "%s: cannot create %s: %s", m->flag, prefix, strerror(errno));
    return 1;
}

sc_status_t sc_files_make_folders(const char *flag, const char *path, sc_err_t *err)
{
    if (path[0] == '\0') /* the options refuse empty values; nothing to walk here either */
        return sc_err_set(err, SC_ERR_USAGE, "%s: empty path", flag);
    files__mkdir_t m = {flag, err};
    return files__each_prefix(path, files__mkdir, &m) ? SC_ERR_IO : SC_OK;
}

typedef struct {
    char *link;
    size_t len;
    unsigned *owner;
} files__link_t;

static int files__foreign(const char *prefix, void *arg)
{
    const files__link_t *l = arg;
    struct stat st;
    if (lstat(prefix, &st) != 0 || !S_ISLNK(st.st_mode) || files__own_link(&st))
        return 0;
    snprintf(l->link, l->len, "%s", prefix);
    *l->owner = (unsigned)st.st_uid;
    return 1;
}

bool sc_files_foreign_link(const char *path, char *link, size_t len, unsigned *owner)
{
    files__link_t l = {link, len, owner};
    return path[0] != '\0' && files__each_prefix(path, files__foreign, &l) != 0;
}

sc_status_t sc_files_check_folder(const char *flag, const char *path, sc_err_t *err)
{
    char near[PATH_MAX];
    snprintf(near, sizeof(near), "%s", path[0] != '\0' ? path : ".");
    struct stat st;
    while (stat(near, &st) != 0) { /* up to the nearest part that exists */
        if (errno != ENOENT)
            return sc_err_set(err, SC_ERR_USAGE, "%s: %s: %s", flag, near, strerror(errno));
        char *slash = strrchr(near, '/');
        if (slash == NULL)
            snprintf(near, sizeof(near), ".");
        else if (slash == near)
            near[1] = '\0';
        else
            *slash = '\0';
    }
    if (!S_ISDIR(st.st_mode))
        return sc_err_set(err, SC_ERR_USAGE, "%s: %s is not a folder", flag, near);
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof(probe), "%s/.scalecheck-probe-XXXXXX", near);
    if (mkdtemp(probe) == NULL)
        return sc_err_set(err, SC_ERR_USAGE, "%s: cannot make a folder in %s: %s", flag, near,
                          strerror(errno));
    rmdir(probe);
    return SC_OK;
}

/* Writes to what is at path as it is (a device, a FIFO, a terminal): no temporary file, no rename.
 * A FIFO without a reader is refused at once rather than waited on. */
static sc_status_t files__write_direct(const char *path, sc_files_writer_t writer, void *arg,
                                       sc_err_t *err)
{
    int fd = files__take_held(path); /* the early check's writer: the reader kept waiting */
    if (fd < 0)
        fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path,
                          errno == ENXIO ? "a FIFO with no reader" : strerror(errno));
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *out = fdopen(fd, "w");
    if (out == NULL) {
        close(fd);
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    errno = 0;
    int failed = writer(out, arg) != 0;
    failed |= fflush(out) != 0;
    int saved = errno;
    failed |= fclose(out) != 0;
    return failed ? sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path,
                               strerror(saved   ? saved
                                        : errno ? errno
                                                : EIO))
                  : SC_OK;
}

/* Writes a regular file whole: a temporary created exclusively beside it (mkstemp: a name nobody
 * can plant first, O_EXCL never follows a link), renamed over it. */
static sc_status_t files__write_replace(const char *path, sc_files_writer_t writer, void *arg,
                                        sc_err_t *err)
{
    char dir[PATH_MAX], base[PATH_MAX], tmp[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s", path);
    snprintf(base, sizeof(base), "%s", path);
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dirname(dir), basename(base)) >=
        sizeof(tmp))
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: the name is too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    fchmod(fd, 0644); /* mkstemp's 0600 would hide the results from the group */
    FILE *out = fdopen(fd, "w");
    int failed = out == NULL;
    errno = 0;
    failed = failed || writer(out, arg) != 0;
    int saved = errno;
    failed |= out != NULL ? fclose(out) != 0 : close(fd) != 0;
    if (!failed && rename(tmp, path) == 0)
        return SC_OK;
    saved = saved ? saved : errno ? errno : EIO;
    unlink(tmp);
    return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(saved));
}

sc_status_t sc_files_write_text(const char *path, sc_files_writer_t writer, void *arg,
                                sc_err_t *err)
{
    struct stat st;
    char target[PATH_MAX];
    switch (files__way(path, &st, target)) {
    case FILES__FOLDER:
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: it is a directory", path);
    case FILES__DIRECT:
        return files__write_direct(path, writer, arg, err);
    case FILES__REPLACE:
        return files__write_replace(target, writer, arg, err);
    default:
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
}

bool sc_files_append(FILE *out, const char *path)
{
    int in = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (in < 0 || fstat(in, &st) != 0 || fflush(out) != 0) {
        if (in >= 0)
            close(in);
        return false;
    }
    /* in the kernel, page to page: a fleet's checks are hundreds of megabytes, and a copy
     * through user space read them once more and wrote them twice */
    off_t left = st.st_size;
    int to = fileno(out);
    while (left > 0) {
        ssize_t n = copy_file_range(in, NULL, to, NULL, (size_t)left, 0);
        if (n <= 0)
            break;
        left -= n;
    }
    char block[1 << 16];
    while (left > 0) { /* no copy_file_range here (another file system, an old kernel) */
        ssize_t n = read(in, block, left < (off_t)sizeof(block) ? (size_t)left : sizeof(block));
        if (n <= 0 || fwrite(block, 1, (size_t)n, out) != (size_t)n)
            break;
        left -= n;
    }
    close(in);
    return left == 0 && fflush(out) == 0;
}

static int files__copy_writer(FILE *out, void *arg)
{
    return sc_files_append(out, arg) ? 0 : -1;
}

sc_status_t sc_files_copy(const char *from, const char *to, sc_err_t *err)
{
    return sc_files_write_text(to, files__copy_writer, (void *)from, err);
}

void sc_files_xml_text(FILE *out, const char *text)
{
    for (; text && *text; text++) {
        switch (*text) {
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '&':
            fputs("&amp;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            if ((unsigned char)*text >= 0x20 || *text == '\t' || *text == '\n')
                fputc(*text, out);
        }
    }
}

const char *sc_files_sysfs_root(void)
{
    const char *root = getenv("SCALECHECK_SYSFS_ROOT");
    return root != NULL && root[0] != '\0' ? root : "/sys";
}

bool sc_files_shipped(const char *name, const char *dirs, char *out, size_t len)
{
    snprintf(out, len, "%s", name);
    if (access(name, F_OK) == 0 || strchr(name, '/') != NULL || name[0] == '\0')
        return false;
    char copy[4096];
    snprintf(copy, sizeof(copy), "%s", dirs);
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save))
        for (int ext = 0; ext < 2; ext++) {
            char path[PATH_MAX];
            snprintf(path, sizeof(path), "%s/%s%s", dir, name, ext ? ".yaml" : "");
            if (access(path, R_OK) == 0) {
                snprintf(out, len, "%s", path);
                return true;
            }
        }
    return false;
}

int sc_files_shipped_names(const char *dirs, char (*stems)[SC_FILES_STEM_MAX], int max)
{
    int n = 0;
    char copy[4096];
    snprintf(copy, sizeof(copy), "%s", dirs);
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
        DIR *d = opendir(dir);
        for (struct dirent *e = d ? readdir(d) : NULL; e != NULL && n < max; e = readdir(d)) {
            size_t len = strlen(e->d_name);
            if (len <= 5 || len - 5 >= SC_FILES_STEM_MAX || strcmp(e->d_name + len - 5, ".yaml"))
                continue;
            snprintf(stems[n], SC_FILES_STEM_MAX, "%.*s", (int)(len - 5), e->d_name);
            bool seen = false; /* the same file in the source tree and the prefix */
            for (int i = 0; i < n && !seen; i++)
                seen = strcmp(stems[i], stems[n]) == 0;
            n += !seen;
        }
        if (d != NULL)
            closedir(d);
    }
    return n;
}

sc_status_t sc_files_shipped_hint(const char *name, const char *dirs, const char *kind,
                                  sc_status_t status, sc_err_t *err)
{
    if (status == SC_OK || strchr(name, '/') != NULL || access(name, F_OK) == 0)
        return status;
    char stems[256][SC_FILES_STEM_MAX];
    const char *names[256];
    int n = sc_files_shipped_names(dirs, stems, 256);
    for (int i = 0; i < n; i++)
        names[i] = stems[i];
    const char *best = sc_names_nearest(names, n, name);
    if (best == NULL)
        return status;
    return sc_err_set(err, SC_ERR_INPUT,
                      "%s: cannot open (no such file, nor a shipped %s; did you mean '%s'?)", name,
                      kind, best);
}

/* The folder the program is in ("" when /proc does not say). */
static void files__exe_dir(char *dir, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(dir, len, "%s", exe);
}

const char *sc_files_data_dirs(const char *kind, char *buf, size_t len)
{
    char exe[PATH_MAX];
    files__exe_dir(exe, sizeof(exe));
    snprintf(buf, len, "%s/%s:%s/../share/scalecheck/%s:%s/share/scalecheck/%s", SC_SOURCE_DIR,
             kind, exe, kind, SC_INSTALL_PREFIX, kind);
    return buf;
}

const char *sc_files_results_default(void)
{
    static char dir[PATH_MAX];
    const char *env = getenv("SCALECHECK_RESULTS");
    if (env != NULL && env[0] != '\0')
        return env;
    char exe[PATH_MAX];
    files__exe_dir(exe, sizeof(exe));
    if (exe[0] == '\0' || strcmp(exe, SC_BUILD_DIR) == 0)
        return "results"; /* the build tree's binary: the current folder's results/ */
    const char *data = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (data != NULL && data[0] != '\0')
        snprintf(dir, sizeof(dir), "%s/scalecheck/results", data);
    else if (home != NULL && home[0] != '\0')
        snprintf(dir, sizeof(dir), "%s/.local/share/scalecheck/results", home);
    else
        return ""; /* not a shared /tmp folder: the results check asks for --results-dir */
    return dir;
}
