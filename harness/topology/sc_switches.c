/* sc_switches.c - the topology's switch map: leaves and the hosts under them, each entry a name
 * or a Slurm-style range ("gpu[001-032]"), matched without expanding it (a map of thousands of
 * hosts stays a few lines). */
#include "topology/sc_switches.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sc_yaml.h"
#include "topology/sc_topology_schema.h"

void sc_leaves_free(sc_leaves_t *l)
{
    free(l->names);
    free(l->leaf_of);
    memset(l, 0, sizeof(*l));
}

/* One item of a range list, "lo-hi" or "v", into its bounds and width (the digits of a
 * zero-padded lo, else 0); false when it is neither. */
static bool sw__item(const char *item, size_t len, long *lo, long *hi, size_t *width)
{
    char text[32];
    if (len == 0 || len >= sizeof(text))
        return false;
    memcpy(text, item, len);
    text[len] = '\0';
    for (const char *c = text; *c; c++)
        if (!isdigit((unsigned char)*c) && *c != '-')
            return false;
    char *dash = strchr(text, '-');
    if (dash != NULL)
        *dash = '\0';
    const char *hi_text = dash ? dash + 1 : text;
    if (text[0] == '\0' || hi_text[0] == '\0' || strchr(hi_text, '-') != NULL)
        return false;
    *lo = strtol(text, NULL, 10);
    *hi = strtol(hi_text, NULL, 10);
    /* zero padding is part of the name: "001-016" matches gpu001, not gpu1 */
    *width = text[0] == '0' && strlen(text) > 1 ? strlen(text) : 0;
    /* low to high, and no wider than a fleet can be */
    return *lo <= *hi && *hi - *lo < SC_SWITCHES_RANGE_MAX;
}

/* Whether the digits (NULL: the host has none there) fall in an item of the list. */
static bool sw__in_list(const char *list, const char *end, const char *digits, bool *bad)
{
    bool hit = false;
    size_t nd = digits ? strlen(digits) : 0;
    for (const char *item = list; item < end && !*bad;) {
        const char *comma = memchr(item, ',', (size_t)(end - item));
        size_t len = (size_t)((comma ? comma : end) - item);
        long lo = 0, hi = 0, v = digits ? strtol(digits, NULL, 10) : 0;
        size_t width = 0;
        *bad = !sw__item(item, len, &lo, &hi, &width);
        bool shaped = digits && (width ? nd == width : digits[0] != '0' || nd == 1);
        hit |= !*bad && shaped && v >= lo && v <= hi;
        item += len + 1;
    }
    return hit && !*bad;
}

bool sc_switches_match(const char *entry, const char *host, bool *bad)
{
    *bad = false;
    const char *open = strchr(entry, '['), *close = open ? strchr(open, ']') : NULL;
    if (open == NULL) {
        *bad = strchr(entry, ']') != NULL || entry[0] == '\0';
        return !*bad && strcmp(entry, host) == 0;
    }
    if (close == NULL || strchr(close + 1, '[') != NULL || close == open + 1) {
        *bad = true;
        return false;
    }
    size_t prefix = (size_t)(open - entry), suffix = strlen(close + 1), hlen = strlen(host);
    bool framed = hlen > prefix + suffix && strncmp(entry, host, prefix) == 0 &&
                  strcmp(host + hlen - suffix, close + 1) == 0;
    char digits[24];
    size_t nd = framed ? hlen - prefix - suffix : 0;
    bool numeric = framed && nd < sizeof(digits);
    for (size_t i = 0; numeric && i < nd; i++)
        numeric = isdigit((unsigned char)host[prefix + i]);
    if (numeric) {
        memcpy(digits, host + prefix, nd);
        digits[nd] = '\0';
    }
    return sw__in_list(open + 1, close, numeric ? digits : NULL, bad);
}

/* The entries of one leaf: a scalar or a list of scalars. */
static sc_status_t sw__entries(const sc_yaml_doc_t *doc, sc_yaml_node_t *const *slot,
                               sc_yaml_node_t *const **entries, size_t *count, sc_err_t *err)
{
    const sc_yaml_node_t *leaf = *slot;
    if (leaf->kind == SC_YAML_SCALAR) {
        *entries = slot;
        *count = 1;
        return SC_OK;
    }
    if (leaf->kind != SC_YAML_SEQ)
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s:%d:%d: switches.%s: expected host names or a range (\"h[1-8]\")",
                          doc->path, leaf->line, leaf->column, leaf->key);
    for (size_t i = 0; i < leaf->count; i++)
        if (leaf->items[i]->kind != SC_YAML_SCALAR)
            return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: switches.%s: expected a host name",
                              doc->path, leaf->items[i]->line, leaf->items[i]->column, leaf->key);
    *entries = leaf->items;
    *count = leaf->count;
    return SC_OK;
}

/* Which leaf a host is under (-1: none), every entry checked on the way. */
static sc_status_t sw__leaf_of(const sc_yaml_doc_t *doc, const sc_yaml_node_t *map,
                               const char *host, int *leaf, sc_err_t *err)
{
    *leaf = -1;
    for (size_t l = 0; l < map->count; l++) {
        sc_yaml_node_t *const *entries = NULL;
        size_t count = 0;
        const sc_yaml_node_t *node = map->items[l];
        sc_status_t status = sw__entries(doc, &map->items[l], &entries, &count, err);
        for (size_t e = 0; status == SC_OK && e < count; e++) {
            bool bad = false, hit = sc_switches_match(entries[e]->value, host, &bad);
            if (bad)
                return sc_err_set(err, SC_ERR_INPUT,
                                  "%s:%d:%d: switches.%s: '%s' is not a host name or a range "
                                  "(\"h[1-8]\", \"gpu[001-016,020]\": low to high, at most "
                                  "%d hosts)",
                                  doc->path, entries[e]->line, entries[e]->column, node->key,
                                  entries[e]->value, SC_SWITCHES_RANGE_MAX);
            if (hit && *leaf >= 0 && *leaf != (int)l)
                return sc_err_set(err, SC_ERR_INPUT,
                                  "%s:%d:%d: switches.%s: host %s is under %s already", doc->path,
                                  entries[e]->line, entries[e]->column, node->key, host,
                                  map->items[*leaf]->key);
            if (hit)
                *leaf = (int)l;
        }
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

static sc_status_t sw__map(const sc_yaml_doc_t *doc, const sc_yaml_node_t **map, sc_err_t *err)
{
    *map = sc_yaml_get(doc->root, "switches");
    if (*map == NULL)
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s: declares no switches: (the leaf switches and "
                          "their hosts)",
                          doc->path);
    if ((*map)->kind != SC_YAML_MAP || (*map)->count == 0)
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s:%d:%d: switches: expected a map of leaf switches to their hosts",
                          doc->path, (*map)->line, (*map)->column);
    for (size_t l = 0; l < (*map)->count; l++)
        if (strlen((*map)->items[l]->key) >= 64)
            return sc_err_set(err, SC_ERR_INPUT,
                              "%s:%d:%d: switches: a leaf's name is over 63 "
                              "characters",
                              doc->path, (*map)->items[l]->key_line, (*map)->items[l]->key_column);
    return SC_OK;
}

sc_status_t sc_switches_leaves(const sc_topology_t *t, const char *const *hosts, int n,
                               sc_leaves_t *out, sc_err_t *err)
{
    memset(out, 0, sizeof(*out));
    if (t->switches_file[0] == '\0')
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s: declares no switches: (the leaf switches and their hosts)", t->path);
    sc_yaml_doc_t doc;
    sc_status_t status = sc_yaml_load(t->switches_file, &doc, err);
    if (status != SC_OK)
        return status;
    const sc_yaml_node_t *map = NULL;
    status = sw__map(&doc, &map, err);
    if (status == SC_OK) {
        out->n = n;
        out->nleaves = (int)map->count;
        out->names = calloc(map->count, sizeof(*out->names));
        out->leaf_of = calloc((size_t)n, sizeof(int));
        if (out->names == NULL || out->leaf_of == NULL)
            status = sc_err_set(err, SC_ERR_NOMEM, "no memory for the switch map");
    }
    for (size_t l = 0; status == SC_OK && l < map->count; l++)
        snprintf(out->names[l], sizeof(out->names[l]), "%s", map->items[l]->key);
    for (int i = 0; status == SC_OK && i < n; i++) {
        status = sw__leaf_of(&doc, map, hosts[i], &out->leaf_of[i], err);
        if (status == SC_OK && out->leaf_of[i] < 0)
            status = sc_err_set(err, SC_ERR_INPUT, "%s: switches: host %s is under no leaf",
                                doc.path, hosts[i]);
    }
    sc_yaml_free(&doc);
    if (status != SC_OK)
        sc_leaves_free(out);
    return status;
}

sc_status_t sc_switches_check(const sc_yaml_doc_t *doc, sc_err_t *err)
{
    if (sc_yaml_get(doc->root, "switches") == NULL)
        return SC_OK;
    const sc_yaml_node_t *map = NULL;
    int leaf = -1;
    sc_status_t status = sw__map(doc, &map, err);
    /* no host is named "": every entry is read and none matches */
    return status == SC_OK ? sw__leaf_of(doc, map, "", &leaf, err) : status;
}
