/* sc_json_out.c - the one place result documents become files: JSON (indented, 15
 * significant digits) and CSV rows (RFC 4180 quoting), each written whole or not at all. */
#include "sc_json_out.h"

#include <string.h>

#include "util/sc_files.h"

static int sc__json_writer(FILE *out, void *arg)
{
    int rc = json_dumpf((json_t *)arg, out, JSON_INDENT(1) | JSON_REAL_PRECISION(15));
    fputc('\n', out);
    return rc;
}

sc_status_t sc_json_write_file(const char *path, json_t *root, sc_err_t *err)
{
    return sc_files_write_text(path, sc__json_writer, root, err);
}

static void sc__csv_value(FILE *out, json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING: /* RFC 4180: quoted, quotes doubled, when it holds a separator */
        if (strpbrk(json_string_value(v), ",\"\n") == NULL) {
            fputs(json_string_value(v), out);
            break;
        }
        fputc('"', out);
        for (const char *c = json_string_value(v); *c; c++) {
            if (*c == '"')
                fputc('"', out);
            fputc(*c, out);
        }
        fputc('"', out);
        break;
    case JSON_INTEGER:
        fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        fprintf(out, "%.6g", json_real_value(v));
        break;
    case JSON_TRUE:
        fputs("true", out);
        break;
    case JSON_FALSE:
        fputs("false", out);
        break;
    default:
        break;
    }
}

typedef struct {
    const json_t *rows;
    const char *const *fields;
} sc__csv_t;

static int sc__csv_writer(FILE *out, void *arg)
{
    const sc__csv_t *c = arg;
    const json_t *results = c->rows;
    const char *const *sc__csv_fields = c->fields;
    for (size_t f = 0; sc__csv_fields[f] != NULL; f++)
        fprintf(out, "%s%s", f ? "," : "", sc__csv_fields[f]);
    fputc('\n', out);
    size_t i;
    json_t *row;
    json_array_foreach(results, i, row)
    {
        for (size_t f = 0; sc__csv_fields[f] != NULL; f++) {
            if (f)
                fputc(',', out);
            json_t *v = json_object_get(row, sc__csv_fields[f]);
            if (v != NULL)
                sc__csv_value(out, v);
        }
        fputc('\n', out);
    }
    return ferror(out);
}

sc_status_t sc_csv_write_rows(const char *path, const json_t *rows, const char *const *fields,
                              sc_err_t *err)
{
    sc__csv_t c = {rows, fields};
    return sc_files_write_text(path, sc__csv_writer, &c, err);
}
