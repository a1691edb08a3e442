/* sc_yaml.h - YAML documents as small trees that remember where each node came from
 * (file:line:column), read with libyaml, and a schema engine that turns them into C structs:
 * one table of fields per file kind {path, type, offset, bounds, doc}, unknown keys refused with
 * the closest known one suggested. Workloads use it now; topologies will. */
#ifndef SC_YAML_H
#define SC_YAML_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "util/sc_status.h"

typedef enum { SC_YAML_SCALAR, SC_YAML_MAP, SC_YAML_SEQ } sc_yaml_kind_t;

typedef struct sc_yaml_node sc_yaml_node_t;
struct sc_yaml_node {
    sc_yaml_kind_t kind;
    char *value;  /* SC_YAML_SCALAR: the text */
    char *key;    /* as a member of a map: its key */
    bool quoted;  /* scalar was quoted: a string even if it looks like a number */
    int line;     /* 1-based, of the value */
    int column;   /* 1-based */
    int key_line; /* as a member of a map: where its key is */
    int key_column;
    sc_yaml_node_t **items; /* MAP: members (each with key), SEQ: elements */
    size_t count;
    size_t capacity; /* of items */
};

typedef struct {
    char path[512];
    sc_yaml_node_t *root; /* NULL for an empty document */
} sc_yaml_doc_t;

/* Reads and parses path. Errors (SC_ERR_INPUT) read "path:line:column: what". Refuses files
 * over 4 MiB, anchors/aliases, multiple documents and duplicate keys. */
sc_status_t sc_yaml_load(const char *path, sc_yaml_doc_t *doc, sc_err_t *err);
void sc_yaml_free(sc_yaml_doc_t *doc);

/* Member `key` of a map node, NULL when absent. */
const sc_yaml_node_t *sc_yaml_get(const sc_yaml_node_t *map, const char *key);

/* Field types the schema knows. */
typedef enum {
    SC_FIELD_INT,     /* integer, suffixes K M B T (thousands... 10^12) allowed: "13B" */
    SC_FIELD_NUMBER,  /* real, same suffixes, or 1e9 notation */
    SC_FIELD_BYTES,   /* a byte size as the command line takes it (util/sc_size.h): binary
                         K M G T, "1GiB"; "1GB" refused as ambiguous; stored as a double */
    SC_FIELD_BOOL,    /* true/false/yes/no */
    SC_FIELD_STRING,  /* copied into a char array of `size` bytes */
    SC_FIELD_NAME,    /* a STRING that must be a name (util/sc_names.h: it becomes a path) */
    SC_FIELD_ENUM,    /* one of `choices` ("a|b|c"); stored as the index (int) */
    SC_FIELD_SECTION, /* a map whose fields are the entries whose path starts with "name." */
    SC_FIELD_SKIP     /* a known key whose value the caller reads itself (lists, includes) */
} sc_field_type_t;

typedef struct {
    const char *path; /* "model.layers": section.key, or "name" at the top */
    sc_field_type_t type;
    size_t offset; /* into the target struct */
    size_t size;   /* STRING: buffer size */
    bool required;
    double min, max;     /* INT/NUMBER bounds (inclusive) */
    const char *choices; /* ENUM */
    const char *doc;     /* one line, for documentation and --help */
} sc_field_t;

/* Fills target from the document's root map according to fields (terminated by a NULL path).
 * Sets *present[i] when given (may be NULL) to tell which fields the file had. Errors name
 * file:line:column, the field, and for unknown keys the closest known key. */
sc_status_t sc_yaml_apply(const sc_yaml_doc_t *doc, const sc_field_t *fields, void *target,
                          bool *present, sc_err_t *err);

/* The same for any map node of the document (an element of a list, say). */
sc_status_t sc_yaml_apply_node(const sc_yaml_doc_t *doc, const sc_yaml_node_t *node,
                               const sc_field_t *fields, void *target, bool *present,
                               sc_err_t *err);

/* Parses a count/number with an optional K/M/B/T suffix (10^3..10^12). */
bool sc_yaml_parse_number(const char *text, double *out);

/* The schema as a Markdown table (key, type, what it takes, required, what it is), one row per
 * field in table order: the reference docs are generated from the tables the loader checks
 * with (scalecheck validate --schema; docs/schema-*.md, test `schema-docs`). */
void sc_yaml_schema_markdown(FILE *out, const sc_field_t *fields);

#endif
