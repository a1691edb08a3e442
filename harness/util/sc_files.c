/* sc_files.c - output files: checked before a run, written whole or not at all. */
#include "sc_files.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
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
