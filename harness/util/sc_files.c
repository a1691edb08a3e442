/* sc_files.c - output files: checked before a run, written whole or not at all. */
#include "sc_files.h"

#include "sc_config.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

sc_status_t sc_files_check_output(const char *flag, const char *path, sc_err_t *err)
{
    if (path == NULL)
        return SC_OK;
    struct stat st;
    if (path[0] == '\0')
        return sc_err_set(err, SC_ERR_USAGE, "%s: an empty file name", flag);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return sc_err_set(err, SC_ERR_USAGE, "%s: %s is a directory, not a file", flag, path);
    char copy[PATH_MAX];
    snprintf(copy, sizeof(copy), "%s", path);
    const char *folder = dirname(copy);
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
        return sc_err_set(err, SC_ERR_USAGE, "%s: cannot write %s: folder %s does not exist", flag,
                          path, folder);
    if (access(folder, W_OK) != 0)
        return sc_err_set(err, SC_ERR_USAGE, "%s: cannot write %s: folder %s is not writable", flag,
                          path, folder);
    return SC_OK;
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

sc_status_t sc_files_make_folders(const char *flag, const char *path, sc_err_t *err)
{
    if (path[0] == '\0') /* the options refuse empty values; nothing to walk here either */
        return sc_err_set(err, SC_ERR_USAGE, "%s: empty path", flag);
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1;; p++) {
        bool end = *p == '\0';
        if (!end && *p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return sc_err_set(err, SC_ERR_IO, "%s: cannot create %s: %s", flag, tmp,
                              strerror(errno));
        if (end)
            return SC_OK;
        *p = '/';
    }
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

sc_status_t sc_files_write_text(const char *path, sc_files_writer_t writer, void *arg,
                                sc_err_t *err)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
    FILE *out = fopen(tmp, "w");
    if (out == NULL)
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    int failed = writer(out, arg) != 0;
    failed |= fclose(out) != 0;
    if (failed || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(saved));
    }
    return SC_OK;
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
        default:
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
    else
        snprintf(dir, sizeof(dir), "%s/.local/share/scalecheck/results",
                 home != NULL && home[0] != '\0' ? home : "/tmp");
    return dir;
}
