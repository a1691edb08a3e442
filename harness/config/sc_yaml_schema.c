/* sc_yaml_schema.c - applies a field table (sc_yaml.h) to a parsed document. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/sc_yaml.h"
#include "util/sc_names.h"
#include "util/sc_size.h"

/* The key (last path component) under `section` ("" for the top) closest to `key`. */
static const char *yaml_schema__suggest(const sc_field_t *fields, const char *section,
                                        const char *key)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    size_t slen = strlen(section);
    for (const sc_field_t *f = fields; f->path != NULL; f++) {
        const char *name = f->path;
        if (slen > 0) {
            if (strncmp(name, section, slen) != 0 || name[slen] != '.')
                continue;
            name += slen + 1;
        } else if (strchr(name, '.') != NULL) {
            continue;
        }
        size_t d = sc_names_distance(key, name);
        if (d < best_d && sc_names_close(key, d)) {
            best_d = d;
            best = name;
        }
    }
    return best;
}

static const sc_field_t *yaml_schema__find(const sc_field_t *fields, const char *section,
                                           const char *key)
{
    char path[256];
    snprintf(path, sizeof(path), "%s%s%s", section, *section ? "." : "", key);
    for (const sc_field_t *f = fields; f->path != NULL; f++)
        if (strcmp(f->path, path) == 0)
            return f;
    return NULL;
}

static sc_status_t yaml_schema__bad(const sc_yaml_doc_t *doc, const sc_yaml_node_t *n,
                                    const char *path, sc_err_t *err, const char *fmt,
                                    const char *arg)
{
    char what[256];
    snprintf(what, sizeof(what), fmt, arg);
    return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: %s: %s", doc->path, n->line, n->column, path,
                      what);
}

static int yaml_schema__enum_index(const char *choices, const char *value)
{
    int index = 0;
    size_t vlen = strlen(value);
    for (const char *p = choices; *p; index++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == vlen && strncasecmp(p, value, len) == 0)
            return index;
        p += len + (bar ? 1 : 0);
    }
    return -1;
}

static sc_status_t yaml_schema__in_range(const sc_yaml_doc_t *doc, const sc_field_t *f,
                                         const sc_yaml_node_t *n, double v, sc_err_t *err)
{
    if (v >= f->min && v <= f->max)
        return SC_OK;
    char range[160];
    snprintf(range, sizeof(range), "%s is out of range [%g, %g]", n->value, f->min, f->max);
    return yaml_schema__bad(doc, n, f->path, err, "%s", range);
}

static sc_status_t yaml_schema__number(const sc_yaml_doc_t *doc, const sc_field_t *f,
                                       const sc_yaml_node_t *n, double *v, sc_err_t *err)
{
    if (n->quoted || !sc_yaml_parse_number(n->value, v))
        return yaml_schema__bad(doc, n, f->path, err, "expected a number, got '%s'", n->value);
    if (f->type == SC_FIELD_INT && *v != floor(*v))
        return yaml_schema__bad(doc, n, f->path, err, "expected a whole number, got '%s'",
                                n->value);
    return yaml_schema__in_range(doc, f, n, *v, err);
}

static sc_status_t yaml_schema__bytes(const sc_yaml_doc_t *doc, const sc_field_t *f,
                                      const sc_yaml_node_t *n, double *v, sc_err_t *err)
{
    uint64_t bytes = 0;
    sc_err_t why;
    if (sc_size_parse(n->value, "size", &bytes, &why) != SC_OK)
        return yaml_schema__bad(doc, n, f->path, err, "%s", why.msg + strlen("size: "));
    *v = (double)bytes;
    return yaml_schema__in_range(doc, f, n, *v, err);
}

/* Stores scalar node n into target per field f. */
static sc_status_t yaml_schema__store(const sc_yaml_doc_t *doc, const sc_field_t *f,
                                      const sc_yaml_node_t *n, void *target, sc_err_t *err)
{
    char *slot = (char *)target + f->offset;
    if (n->kind != SC_YAML_SCALAR)
        return yaml_schema__bad(doc, n, f->path, err, "expected a single value, got a %s",
                                n->kind == SC_YAML_MAP ? "map" : "list");
    double v = 0;
    int index;
    sc_status_t status;
    switch (f->type) {
    case SC_FIELD_INT:
    case SC_FIELD_NUMBER:
        status = yaml_schema__number(doc, f, n, &v, err);
        if (status == SC_OK && f->type == SC_FIELD_INT) {
            long long i = (long long)v;
            memcpy(slot, &i, sizeof(i));
        } else if (status == SC_OK) {
            memcpy(slot, &v, sizeof(v));
        }
        return status;
    case SC_FIELD_BYTES:
        status = yaml_schema__bytes(doc, f, n, &v, err);
        if (status == SC_OK)
            memcpy(slot, &v, sizeof(v));
        return status;
    case SC_FIELD_BOOL:
        index = n->quoted ? -1 : yaml_schema__enum_index("false|true|no|yes|off|on", n->value);
        if (index < 0)
            return yaml_schema__bad(doc, n, f->path, err, "expected true or false, got '%s'",
                                    n->value);
        *(bool *)slot = index % 2 == 1;
        return SC_OK;
    case SC_FIELD_ENUM:
        index = yaml_schema__enum_index(f->choices, n->value);
        if (index < 0) {
            char msg[256];
            int len = (int)strlen(f->choices);
            if (len > 0 && f->choices[len - 1] == '|') /* lists made from X-macros end in '|' */
                len--;
            snprintf(msg, sizeof(msg), "'%s' is not one of %.*s", n->value, len, f->choices);
            return yaml_schema__bad(doc, n, f->path, err, "%s", msg);
        }
        *(int *)slot = index;
        return SC_OK;
    case SC_FIELD_NAME:
        if (!sc_name_ok(n->value))
            return yaml_schema__bad(doc, n, f->path, err, "%s", "not a name: " SC_NAME_RULE);
        /* fall through */
    case SC_FIELD_STRING:
        if (strlen(n->value) >= f->size)
            return yaml_schema__bad(doc, n, f->path, err, "longer than %s characters",
                                    f->size > 64 ? "255" : "63");
        snprintf(slot, f->size, "%s", n->value);
        return SC_OK;
    default:
        return yaml_schema__bad(doc, n, f->path, err, "%s", "internal: bad field type");
    }
}

static sc_status_t yaml_schema__unknown(const sc_yaml_doc_t *doc, const sc_field_t *fields,
                                        const char *section, const sc_yaml_node_t *member,
                                        sc_err_t *err)
{
    const char *hint = yaml_schema__suggest(fields, section, member->key);
    char msg[300];
    snprintf(msg, sizeof(msg), "unknown key '%s%s%s'%s%s%s", section, *section ? "." : "",
             member->key, hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: %s", doc->path, member->key_line,
                      member->key_column, msg);
}

static sc_status_t yaml_schema__apply_map(const sc_yaml_doc_t *doc, const sc_yaml_node_t *map,
                                          const char *section, const sc_field_t *fields,
                                          void *target, bool *present, sc_err_t *err)
{
    for (size_t i = 0; i < map->count; i++) {
        const sc_yaml_node_t *m = map->items[i];
        const sc_field_t *f = yaml_schema__find(fields, section, m->key);
        if (f == NULL)
            return yaml_schema__unknown(doc, fields, section, m, err);
        if (present)
            present[f - fields] = true;
        sc_status_t status;
        if (f->type == SC_FIELD_SKIP) {
            status = SC_OK;
        } else if (f->type == SC_FIELD_SECTION) {
            if (m->kind != SC_YAML_MAP)
                return yaml_schema__bad(doc, m, f->path, err, "%s", "expected a map of settings");
            status = yaml_schema__apply_map(doc, m, f->path, fields, target, present, err);
        } else {
            status = yaml_schema__store(doc, f, m, target, err);
        }
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

sc_status_t sc_yaml_apply(const sc_yaml_doc_t *doc, const sc_field_t *fields, void *target,
                          bool *present, sc_err_t *err)
{
    if (doc->root == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s:1:1: empty file", doc->path);
    return sc_yaml_apply_node(doc, doc->root, fields, target, present, err);
}

sc_status_t sc_yaml_apply_node(const sc_yaml_doc_t *doc, const sc_yaml_node_t *node,
                               const sc_field_t *fields, void *target, bool *present, sc_err_t *err)
{
    if (node->kind != SC_YAML_MAP)
        return yaml_schema__bad(doc, node, node->key ? node->key : "document", err, "%s",
                                "expected a map of settings");
    size_t nfields = 0;
    while (fields[nfields].path != NULL)
        nfields++;
    bool *seen = calloc(nfields ? nfields : 1, sizeof(bool));
    if (seen == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "out of memory");
    sc_status_t status = yaml_schema__apply_map(doc, node, "", fields, target, seen, err);
    for (size_t i = 0; i < nfields && status == SC_OK; i++) {
        if (!fields[i].required || seen[i])
            continue;
        status = sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: missing required field '%s'", doc->path,
                            node->line, node->column, fields[i].path);
    }
    if (present != NULL)
        memcpy(present, seen, nfields * sizeof(bool));
    free(seen);
    return status;
}

/* What a field takes, in words: its bounds, its choices, or its kind. */
static void yaml_schema__takes(const sc_field_t *f, char *buf, size_t len)
{
    static const char *const kinds[] = {[SC_FIELD_INT] = "integer",
                                        [SC_FIELD_NUMBER] = "number",
                                        [SC_FIELD_BYTES] = "size (K M G T, binary)",
                                        [SC_FIELD_BOOL] = "true or false",
                                        [SC_FIELD_STRING] = "text",
                                        [SC_FIELD_NAME] = "a name (letters, digits, . _ -)",
                                        [SC_FIELD_ENUM] = "one of",
                                        [SC_FIELD_SECTION] = "a map",
                                        [SC_FIELD_SKIP] = "a list or map (read by its own rules)"};
    if (f->type == SC_FIELD_ENUM) {
        snprintf(buf, len, "one of `%s", f->choices);
        for (char *c = buf; *c; c++)
            if (*c == '|')
                *c = ' ';
        size_t n = strlen(buf);
        while (n > 0 && buf[n - 1] == ' ')
            buf[--n] = '\0';
        snprintf(buf + n, len - n, "`");
    } else if ((f->type == SC_FIELD_INT || f->type == SC_FIELD_NUMBER ||
                f->type == SC_FIELD_BYTES) &&
               f->max > f->min) {
        snprintf(buf, len, "%s, %.10g to %.10g", kinds[f->type], f->min, f->max);
    } else {
        snprintf(buf, len, "%s", kinds[f->type]);
    }
}

void sc_yaml_schema_markdown(FILE *out, const sc_field_t *fields)
{
    fprintf(out, "| key | takes | required | what it is |\n|---|---|---|---|\n");
    for (const sc_field_t *f = fields; f->path != NULL; f++) {
        char takes[256];
        yaml_schema__takes(f, takes, sizeof(takes));
        fprintf(out, "| `%s` | %s | %s | %s |\n", f->path, takes, f->required ? "yes" : "",
                f->doc ? f->doc : "");
    }
}
