#include "sc_yaml.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "util/sc_files.h"

#define SC__YAML_MAX_BYTES (4u << 20)
#define SC__YAML_MAX_DEPTH 64
#define SC__YAML_MAX_NODES 100000

typedef struct {
    const char *path;
    yaml_parser_t parser;
    sc_yaml_node_t *stack[SC__YAML_MAX_DEPTH];
    int depth;
    size_t nodes;
    char *pending_key; /* key read in the current map, awaiting its value */
    int key_line, key_column;
    sc_yaml_node_t *root;
} yaml__builder_t;

static void yaml__node_free(sc_yaml_node_t *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->count; i++)
        yaml__node_free(n->items[i]);
    free(n->items);
    free(n->value);
    free(n->key);
    free(n);
}

void sc_yaml_free(sc_yaml_doc_t *doc)
{
    yaml__node_free(doc->root);
    doc->root = NULL;
}

static sc_status_t yaml__at(const char *path, int line, int column, sc_err_t *err, const char *what)
{
    return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: %s", path, line, column, what);
}

static sc_status_t yaml__append(yaml__builder_t *b, sc_yaml_node_t *parent, sc_yaml_node_t *child,
                                sc_err_t *err)
{
    if (parent->kind == SC_YAML_MAP) {
        child->key = b->pending_key;
        child->key_line = b->key_line;
        child->key_column = b->key_column;
        b->pending_key = NULL;
    }
    if (parent->count == parent->capacity) { /* doubling: linear in the members */
        size_t capacity = parent->capacity ? 2 * parent->capacity : 4;
        sc_yaml_node_t **grown = realloc(parent->items, capacity * sizeof(*grown));
        if (grown == NULL)
            return sc_err_set(err, SC_ERR_NOMEM, "%s: out of memory", b->path);
        parent->items = grown;
        parent->capacity = capacity;
    }
    parent->items[parent->count++] = child;
    return SC_OK;
}

/* Members by key, then by where their key is: duplicates end up side by side, first first. */
static int yaml__by_key(const void *a, const void *b)
{
    const sc_yaml_node_t *x = *(sc_yaml_node_t *const *)a, *y = *(sc_yaml_node_t *const *)b;
    int order = strcmp(x->key, y->key);
    if (order == 0)
        order = x->key_line != y->key_line
                    ? (x->key_line > y->key_line) - (x->key_line < y->key_line)
                    : (x->key_column > y->key_column) - (x->key_column < y->key_column);
    return order;
}

static bool yaml__before(const sc_yaml_node_t *x, const sc_yaml_node_t *y)
{
    return x->key_line < y->key_line ||
           (x->key_line == y->key_line && x->key_column < y->key_column);
}

/* A closed map's duplicate keys, found by sorting (a 50 000-key map in milliseconds, where a
 * check at every member took seconds): the one that comes first in the file is reported. */
static sc_status_t yaml__check_keys(const yaml__builder_t *b, const sc_yaml_node_t *map,
                                    sc_err_t *err)
{
    if (map->kind != SC_YAML_MAP || map->count < 2)
        return SC_OK;
    sc_yaml_node_t **sorted = malloc(map->count * sizeof(*sorted));
    if (sorted == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "%s: out of memory", b->path);
    memcpy(sorted, map->items, map->count * sizeof(*sorted));
    qsort(sorted, map->count, sizeof(*sorted), yaml__by_key);
    const sc_yaml_node_t *dup = NULL, *first = NULL;
    for (size_t i = 1, group = 0; i < map->count; i++) {
        if (strcmp(sorted[i]->key, sorted[group]->key) != 0) {
            group = i;
            continue;
        }
        if (dup == NULL || yaml__before(sorted[i], dup)) {
            dup = sorted[i];
            first = sorted[group];
        }
    }
    free(sorted);
    if (dup == NULL)
        return SC_OK;
    char msg[300];
    snprintf(msg, sizeof(msg), "duplicate key '%s' (first at line %d)", dup->key, first->line);
    return yaml__at(b->path, dup->key_line, dup->key_column, err, msg);
}

/* A new node from event ev, attached to the open collection (or made the root). */
static sc_status_t yaml__add_node(yaml__builder_t *b, const yaml_event_t *ev, sc_yaml_kind_t kind,
                                  sc_yaml_node_t **out, sc_err_t *err)
{
    int line = (int)ev->start_mark.line + 1, column = (int)ev->start_mark.column + 1;
    if (++b->nodes > SC__YAML_MAX_NODES)
        return yaml__at(b->path, line, column, err, "too many nodes (limit 100000)");
    sc_yaml_node_t *parent = b->depth > 0 ? b->stack[b->depth - 1] : NULL;
    /* In a map, a scalar with no pending key is the key itself. */
    if (parent != NULL && parent->kind == SC_YAML_MAP && b->pending_key == NULL) {
        if (kind != SC_YAML_SCALAR)
            return yaml__at(b->path, line, column, err, "a key must be a plain scalar");
        b->pending_key = strdup((const char *)ev->data.scalar.value);
        b->key_line = line;
        b->key_column = column;
        *out = NULL;
        return b->pending_key ? SC_OK : sc_err_set(err, SC_ERR_NOMEM, "out of memory");
    }
    sc_yaml_node_t *n = calloc(1, sizeof(*n));
    if (n == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "%s: out of memory", b->path);
    n->kind = kind;
    n->line = line;
    n->column = column;
    if (kind == SC_YAML_SCALAR) {
        n->value = strdup((const char *)ev->data.scalar.value);
        n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    }
    sc_status_t status = parent ? yaml__append(b, parent, n, err) : SC_OK;
    if (status != SC_OK) {
        yaml__node_free(n);
        return status;
    }
    if (parent == NULL)
        b->root = n;
    *out = n;
    return SC_OK;
}

static sc_status_t yaml__open(yaml__builder_t *b, const yaml_event_t *ev, sc_yaml_kind_t kind,
                              sc_err_t *err)
{
    sc_yaml_node_t *n = NULL;
    if (b->depth >= SC__YAML_MAX_DEPTH)
        return yaml__at(b->path, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1, err,
                        "nested too deeply (limit 64)");
    sc_status_t status = yaml__add_node(b, ev, kind, &n, err);
    if (status == SC_OK)
        b->stack[b->depth++] = n;
    return status;
}

static sc_status_t yaml__event(yaml__builder_t *b, const yaml_event_t *ev, int *documents,
                               sc_err_t *err)
{
    int line = (int)ev->start_mark.line + 1, column = (int)ev->start_mark.column + 1;
    sc_yaml_node_t *ignored = NULL;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++*documents > 1)
            return yaml__at(b->path, line, column, err, "more than one YAML document");
        return SC_OK;
    case YAML_ALIAS_EVENT:
        return yaml__at(b->path, line, column, err, "aliases (*name) are not supported");
    case YAML_SCALAR_EVENT:
        if (ev->data.scalar.anchor != NULL)
            return yaml__at(b->path, line, column, err, "anchors (&name) are not supported");
        return yaml__add_node(b, ev, SC_YAML_SCALAR, &ignored, err);
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
        if ((ev->type == YAML_MAPPING_START_EVENT ? (void *)ev->data.mapping_start.anchor
                                                  : (void *)ev->data.sequence_start.anchor))
            return yaml__at(b->path, line, column, err, "anchors (&name) are not supported");
        return yaml__open(b, ev, ev->type == YAML_MAPPING_START_EVENT ? SC_YAML_MAP : SC_YAML_SEQ,
                          err);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        b->depth--;
        return yaml__check_keys(b, b->stack[b->depth], err);
    default:
        return SC_OK;
    }
}

static sc_status_t yaml__read_file(const char *path, unsigned char **data, size_t *len,
                                   sc_err_t *err)
{
    if (sc_files_check_input(path, err) != SC_OK)
        return err->status;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    *data = malloc(SC__YAML_MAX_BYTES + 1);
    *len = *data ? fread(*data, 1, SC__YAML_MAX_BYTES + 1, f) : 0;
    fclose(f);
    if (*data == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "%s: out of memory", path);
    if (*len > SC__YAML_MAX_BYTES)
        return sc_err_set(err, SC_ERR_INPUT, "%s: larger than 4 MiB", path);
    if (memchr(*data, '\0', *len) != NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s:1:1: not a text file (contains NUL bytes)", path);
    return SC_OK;
}

sc_status_t sc_yaml_load(const char *path, sc_yaml_doc_t *doc, sc_err_t *err)
{
    memset(doc, 0, sizeof(*doc));
    snprintf(doc->path, sizeof(doc->path), "%s", path);
    unsigned char *data = NULL;
    size_t len = 0;
    sc_status_t status = yaml__read_file(path, &data, &len, err);
    yaml__builder_t b = {.path = doc->path};
    if (status == SC_OK && !yaml_parser_initialize(&b.parser))
        status = sc_err_set(err, SC_ERR_NOMEM, "%s: cannot start the YAML parser", path);
    if (status != SC_OK) {
        free(data);
        return status;
    }
    yaml_parser_set_input_string(&b.parser, data, len);
    int documents = 0;
    for (bool done = false; !done && status == SC_OK;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&b.parser, &ev)) {
            char msg[400];
            snprintf(msg, sizeof(msg), "%s%s%s", b.parser.problem ? b.parser.problem : "syntax",
                     b.parser.context ? " " : "", b.parser.context ? b.parser.context : "");
            status = yaml__at(path, (int)b.parser.problem_mark.line + 1,
                              (int)b.parser.problem_mark.column + 1, err, msg);
            break;
        }
        status = yaml__event(&b, &ev, &documents, err);
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&b.parser);
    free(data);
    free(b.pending_key);
    if (status != SC_OK) {
        yaml__node_free(b.root);
        return status;
    }
    doc->root = b.root;
    return SC_OK;
}

const sc_yaml_node_t *sc_yaml_get(const sc_yaml_node_t *map, const char *key)
{
    if (map == NULL || map->kind != SC_YAML_MAP)
        return NULL;
    for (size_t i = 0; i < map->count; i++)
        if (strcmp(map->items[i]->key, key) == 0)
            return map->items[i];
    return NULL;
}

bool sc_yaml_parse_number(const char *text, double *out)
{
    static const struct {
        char suffix;
        double scale;
    } suffixes[] = {{'K', 1e3}, {'M', 1e6}, {'B', 1e9}, {'G', 1e9}, {'T', 1e12}};
    if (text == NULL || *text == '\0')
        return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return false;
    double scale = 1.0;
    if (*end != '\0') {
        bool known = false;
        for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]) && !known; i++)
            if ((end[0] == suffixes[i].suffix || end[0] == suffixes[i].suffix + 32) &&
                end[1] == '\0') {
                scale = suffixes[i].scale;
                known = true;
            }
        if (!known)
            return false;
    }
    *out = v * scale;
    return isfinite(*out);
}
