#include "calibrate/sc_calibrate_bases.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "topology/sc_topology.h"
#include "util/sc_files.h"

#define SC__MAX_BASES 8 /* as deep as the loader follows extends */

char *sc_calibrate_read_text(const char *path, sc_err_t *err)
{
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        sc_err_set(err, SC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t cap = 0, len = 0;
    int ch;
    while ((ch = fgetc(in)) != EOF) {
        if (len + 1 >= cap) {
            char *bigger = realloc(text, cap = cap ? cap * 2 : 4096);
            if (bigger == NULL)
                break;
            text = bigger;
        }
        text[len++] = (char)ch;
    }
    fclose(in);
    if (ch != EOF || (text == NULL && (text = malloc(1)) == NULL)) {
        free(text);
        sc_err_set(err, SC_ERR_NOMEM, "%s: no memory to read it", path);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

/* Where a top-level `extends:` line's value starts, and its length (quotes, comment and
 * trailing blanks left out); NULL when line is not one. */
static const char *calibrate_bases__extends_value(const char *line, size_t *vlen)
{
    if (strncmp(line, "extends:", 8) != 0)
        return NULL;
    const char *v = line + 8;
    while (*v == ' ' || *v == '"' || *v == '\'')
        v++;
    size_t n = strcspn(v, "\"'#\n");
    while (n > 0 && v[n - 1] == ' ')
        n--;
    *vlen = n;
    return v;
}

size_t sc_calibrate_copy_text(const char *text, const char *extends_line, bool drop_calibrated,
                              char *out)
{
    size_t n = 0, vlen = 0;
    bool inside = false;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        bool top = line[0] != ' ' && line[0] != '\t' && line[0] != '#' && line[0] != '\n';
        if (top)
            inside = drop_calibrated && strncmp(line, "calibrated:", 11) == 0;
        bool ours = drop_calibrated &&
                    (strncmp(line, "# Measured here by `scalecheck calibrate`", 40) == 0 ||
                     strncmp(line, "# (topologies/README.md, \"Calibration on", 40) == 0);
        if (calibrate_bases__extends_value(line, &vlen) != NULL) {
            n += (size_t)sprintf(out + n, "%s", extends_line);
            extends_line = ""; /* one extends at most */
        } else if (!inside && !ours) {
            memcpy(out + n, line, len);
            n += len;
        }
        line += len;
    }
    out[n] = '\0';
    return n;
}

/* The resolved path of the base that text (of the file src_real) extends, "" for none. */
static sc_status_t calibrate_bases__base_of(const char *src_real, const char *text, char *real,
                                            sc_err_t *err)
{
    real[0] = '\0';
    size_t vlen = 0;
    const char *v = NULL;
    for (const char *line = text; v == NULL && line != NULL;) {
        v = calibrate_bases__extends_value(line, &vlen);
        line = strchr(line, '\n');
        line = line != NULL ? line + 1 : NULL;
    }
    if (v == NULL || vlen == 0)
        return SC_OK;
    char dir[PATH_MAX], base[PATH_MAX * 2];
    snprintf(dir, sizeof(dir), "%s", src_real);
    if (v[0] == '/')
        snprintf(base, sizeof(base), "%.*s", (int)vlen, v);
    else
        snprintf(base, sizeof(base), "%s/%.*s", dirname(dir), (int)vlen, v);
    if (realpath(base, real) == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s: extends %s: cannot open", src_real, base);
    return SC_OK;
}

typedef struct {
    const char *text;
} calibrate_bases__text_t;

static int calibrate_bases__put_text(FILE *out, void *arg)
{
    return fputs(((const calibrate_bases__text_t *)arg)->text, out) < 0;
}

/* The line a file in a copy's chain carries at depth: a shipped base by its path, another one
 * copied as bases_dir/<depth+1>-<name> (named from the folder of the file that extends it). */
static sc_status_t calibrate_bases__line(const char *src_real, const char *text,
                                         const char *bases_dir, const char *from_copy, int depth,
                                         char *line, size_t len, sc_err_t *err)
{
    char real[PATH_MAX];
    line[0] = '\0';
    sc_status_t status = calibrate_bases__base_of(src_real, text, real, err);
    if (status != SC_OK || real[0] == '\0')
        return status;
    if (sc_topology_shipped(real)) {
        snprintf(line, len, "extends: \"%s\"\n", real);
        return SC_OK;
    }
    if (depth >= SC__MAX_BASES)
        return sc_err_set(err, SC_ERR_INPUT, "%s: extends more than %d files deep", src_real,
                          SC__MAX_BASES);
    char *btext = sc_calibrate_read_text(real, err), *copy = NULL, bline[PATH_MAX + 32];
    if (btext == NULL)
        return err->status;
    char name[PATH_MAX], dst[PATH_MAX * 2];
    snprintf(name, sizeof(name), "%s", real);
    snprintf(dst, sizeof(dst), "%s/%d-%s", bases_dir, depth + 1, basename(name));
    status =
        calibrate_bases__line(real, btext, bases_dir, "", depth + 1, bline, sizeof(bline), err);
    if (status == SC_OK && mkdir(bases_dir, 0755) != 0 && errno != EEXIST)
        status = sc_err_set(err, SC_ERR_IO, "cannot create %s: %s", bases_dir, strerror(errno));
    if (status == SC_OK && (copy = malloc(strlen(btext) + strlen(bline) + 1)) == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "no memory to copy %s", real);
    if (status == SC_OK) {
        sc_calibrate_copy_text(btext, bline, false, copy);
        status = sc_files_write_text(dst, calibrate_bases__put_text,
                                     &(calibrate_bases__text_t){copy}, err);
    }
    if (status == SC_OK)
        snprintf(line, len, "extends: \"%s%d-%s\"\n", from_copy, depth + 1, basename(name));
    free(copy);
    free(btext);
    return status;
}

sc_status_t sc_calibrate_extends_line(const char *src_real, const char *text, const char *out_path,
                                      char *line, size_t len, sc_err_t *err)
{
    char bases_dir[PATH_MAX + 8], out[PATH_MAX], from_copy[PATH_MAX + 8];
    snprintf(bases_dir, sizeof(bases_dir), "%s.bases", out_path);
    snprintf(out, sizeof(out), "%s", out_path);
    snprintf(from_copy, sizeof(from_copy), "%s.bases/", basename(out));
    return calibrate_bases__line(src_real, text, bases_dir, from_copy, 0, line, len, err);
}
