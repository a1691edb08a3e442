/* sc_json_check.c - records read from JSON and checked field by field (sc_json_check.h). */
#include "report/sc_json_check.h"
#include "util/sc_files.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- where a value is: a scan of the text that skips what is not on the way ---- */
typedef struct {
    const char *p, *end;
    int line;
} json_check__cur_t;

static bool json_check__space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static void json_check__ws(json_check__cur_t *c)
{
    for (; c->p < c->end && json_check__space(*c->p); c->p++)
        c->line += *c->p == '\n';
}

/* Past a string (c->p at its quote); its bytes between the quotes into key when given. */
static bool json_check__string(json_check__cur_t *c, char *key, size_t len)
{
    size_t n = 0;
    for (c->p++; c->p < c->end && *c->p != '"'; c->p++) {
        if (*c->p == '\\' && c->p + 1 < c->end)
            c->p++;
        if (key != NULL && n + 1 < len)
            key[n++] = *c->p;
    }
    if (key != NULL)
        key[n] = '\0';
    return c->p++ < c->end;
}

static bool json_check__skip(json_check__cur_t *c, int depth);

/* Inside a container (c->p past its bracket), to the member or element keys[0]; then the value
 * keys[1..] names. */
static int json_check__find(json_check__cur_t *c, bool object, const char *const *keys, int nkeys,
                            int depth)
{
    for (long index = 0;; index++) {
        json_check__ws(c);
        if (c->p >= c->end || *c->p == (object ? '}' : ']'))
            return 0;
        bool match;
        if (object) {
            char key[128];
            if (*c->p != '"' || !json_check__string(c, key, sizeof(key)))
                return 0;
            json_check__ws(c);
            if (c->p >= c->end || *c->p++ != ':')
                return 0;
            match = strcmp(key, keys[0]) == 0;
        } else
            match = index == strtol(keys[0], NULL, 10);
        json_check__ws(c);
        if (match) {
            if (nkeys == 1)
                return c->line;
            if (c->p >= c->end || (*c->p != '{' && *c->p != '['))
                return 0;
            bool inner = *c->p++ == '{';
            return json_check__find(c, inner, keys + 1, nkeys - 1, depth + 1);
        }
        if (!json_check__skip(c, depth + 1))
            return 0;
        json_check__ws(c);
        if (c->p < c->end && *c->p == ',')
            c->p++;
    }
}

static bool json_check__skip(json_check__cur_t *c, int depth)
{
    json_check__ws(c);
    if (c->p >= c->end || depth > 64)
        return false;
    if (*c->p == '"')
        return json_check__string(c, NULL, 0);
    if (*c->p != '{' &&
        *c->p != '[') { /* a scalar: at least one byte (a NUL too), to a delimiter */
        const char *from = c->p;
        while (c->p < c->end && *c->p != ',' && *c->p != '}' && *c->p != ']' &&
               !json_check__space(*c->p))
            c->p++;
        return c->p > from;
    }
    char close = *c->p++ == '{' ? '}' : ']';
    for (;;) {
        json_check__ws(c);
        if (c->p >= c->end)
            return false;
        if (*c->p == close) {
            c->p++;
            return true;
        }
        if (*c->p == ',' || *c->p == ':')
            c->p++;
        else if (!json_check__skip(c, depth + 1))
            return false;
    }
}

int sc_json_line(const char *text, size_t len, const char *const *keys, int nkeys)
{
    if (text == NULL)
        return 0;
    json_check__cur_t c = {text, text + len, 1};
    json_check__ws(&c);
    if (c.p >= c.end || nkeys == 0)
        return nkeys == 0 ? c.line : 0;
    if (*c.p != '{' && *c.p != '[')
        return 0;
    bool object = *c.p++ == '{';
    return json_check__find(&c, object, keys, nkeys, 0);
}

bool sc_json_refuse(sc_json_src_t *src, const char *const *keys, int nkeys, const char *where,
                    const char *why)
{
    if (src->status != SC_OK)
        return false;
    int line = src->text != NULL ? sc_json_line(src->text, src->len, keys, nkeys) : src->line;
    char at[32] = "";
    if (line > 0)
        snprintf(at, sizeof(at), ":%d", line);
    src->status = sc_err_set(src->err, SC_ERR_INPUT, "%s%s: %s: %s", src->path, at, where, why);
    return false;
}

json_t *sc_json_load(sc_json_src_t *src)
{
    src->status = SC_OK;
    if (sc_files_check_input(src->path, src->err) != SC_OK) {
        src->status = src->err->status;
        return NULL;
    }
    FILE *f = fopen(src->path, "rb"); /* a regular file (checked): its size is known */
    long size = -1;
    char *text = NULL;
    size_t len = 0;
    if (f != NULL) {
        size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
        text = size >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)size + 1) : NULL;
        len = text != NULL ? fread(text, 1, (size_t)size, f) : 0;
        fclose(f);
    }
    bool read = text != NULL && len == (size_t)size;
    if (!read) {
        free(text);
        src->status = sc_err_set(src->err, SC_ERR_INPUT, "%s: cannot read it: %s", src->path,
                                 size < 0 ? strerror(errno) : "short read or no memory");
        return NULL;
    }
    src->text = text;
    src->len = len;
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    if (doc == NULL) {
        src->status = sc_err_set(src->err, SC_ERR_INPUT, "%s:%d:%d: %s", src->path, jerr.line,
                                 jerr.column, jerr.text);
        sc_json_src_free(src);
    }
    return doc;
}

void sc_json_src_free(sc_json_src_t *src)
{
    free((char *)src->text);
    src->text = NULL;
    src->len = 0;
}

/* ---- what a field may hold ---- */
typedef struct {
    const char *suffix;
    double max; /* past it no machine measures: a planted or broken figure */
} json_check__unit_t;

/* SC_GBPS_MAX (record/sc_record.h); a time past ~116 days is no collective's or step's; 2^56
 * bytes is 64 PiB. */
static const json_check__unit_t json_check__units[] = {
    {"_GBps", SC_GBPS_MAX},          {"_us", 1e13}, {"_ms", 1e10}, {"_s", 1e7},
    {"_bytes", 72057594037927936.0}, {"_h", 1e4},   {NULL, 0},
};

double sc_json_unit_max(const char *name)
{
    size_t n = strlen(name);
    if (strstr(name, "_error") != NULL) /* a signed difference (median_error_us) */
        return HUGE_VAL;
    for (const json_check__unit_t *u = json_check__units; u->suffix != NULL; u++) {
        size_t k = strlen(u->suffix);
        if (n > k && strcmp(name + n - k, u->suffix) == 0)
            return u->max;
    }
    return HUGE_VAL;
}

bool sc_json_u64(const json_t *v, uint64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return true;
    }
    double d = json_is_real(v) ? json_real_value(v) : -1;
    if (!(d >= 0 && d < 18446744073709551616.0 && d == floor(d)))
        return false;
    *out = (uint64_t)d;
    return true;
}

/* v as field f into at; the reason it cannot be, else NULL. */
static const char *json_check__field(const json_t *v, const sc_field_t *f, void *at, char *why,
                                     size_t len)
{
    double max = sc_json_unit_max(f->name), d = json_is_number(v) ? json_number_value(v) : NAN;
    switch (f->kind) {
    case SC_FIELD_INT:
        if (!json_is_integer(v) || json_integer_value(v) < INT_MIN ||
            json_integer_value(v) > INT_MAX)
            return "not a whole number that fits an int";
        *(int *)at = (int)json_integer_value(v);
        return NULL;
    case SC_FIELD_I64:
        if (!json_is_integer(v))
            return "not a whole number";
        *(long long *)at = (long long)json_integer_value(v);
        return NULL;
    case SC_FIELD_U64:
        if (!sc_json_u64(v, at))
            return "not a whole number in [0, 2^64)";
        d = (double)*(uint64_t *)at;
        break;
    case SC_FIELD_OPTIONAL:
        if (json_is_null(v) || v == NULL) {
            *(double *)at = SC_ABSENT;
            return NULL;
        }
        /* fall through */
    case SC_FIELD_DOUBLE:
        if (!json_is_number(v))
            return "not a number";
        *(double *)at = d;
        break;
    case SC_FIELD_BOOL:
        if (!json_is_boolean(v))
            return "not true or false";
        *(bool *)at = json_is_true(v);
        return NULL;
    case SC_FIELD_LEVEL: {
        int level = sc_level_parse(json_string_value(v));
        if (level < 0)
            return "not PASS, WARN or FAIL";
        *(sc_level_t *)at = (sc_level_t)level;
        return NULL;
    }
    default:
        if (!json_is_string(v))
            return "not a string";
        snprintf(at, f->size, "%s", json_string_value(v));
        return NULL;
    }
    if (max < HUGE_VAL && !(d >= 0 && d <= max)) {
        snprintf(why, len, "%.6g is outside [0, %.6g]: no run measures that", d, max);
        return why;
    }
    return NULL;
}

bool sc_json_read_record(sc_json_src_t *src, const json_t *obj, void *record,
                         const sc_field_t *fields, const char *key, long index)
{
    if (!json_is_object(obj)) {
        char where[96];
        snprintf(where, sizeof(where), index >= 0 ? "%s[%ld]" : "%s", key ? key : "document",
                 index);
        char idx[24];
        snprintf(idx, sizeof(idx), "%ld", index);
        const char *keys[] = {key, idx};
        return sc_json_refuse(src, keys,
                              key == NULL  ? 0
                              : index >= 0 ? 2
                                           : 1,
                              where, "not an object");
    }
    for (const sc_field_t *f = fields; f->name != NULL; f++) {
        json_t *v = json_object_get(obj, f->name);
        if (v == NULL && f->kind != SC_FIELD_OPTIONAL)
            continue;
        char why[128];
        const char *bad = json_check__field(v, f, (char *)record + f->offset, why, sizeof(why));
        if (bad == NULL)
            continue;
        char where[160], idx[24];
        snprintf(idx, sizeof(idx), "%ld", index);
        if (key == NULL)
            snprintf(where, sizeof(where), "%s", f->name);
        else if (index >= 0)
            snprintf(where, sizeof(where), "%s[%ld].%s", key, index, f->name);
        else
            snprintf(where, sizeof(where), "%s.%s", key, f->name);
        const char *keys[3] = {key, idx, f->name};
        if (key == NULL)
            return sc_json_refuse(src, keys + 2, 1, where, bad);
        if (index < 0) {
            keys[1] = f->name;
            return sc_json_refuse(src, keys, 2, where, bad);
        }
        return sc_json_refuse(src, keys, 3, where, bad);
    }
    return true;
}

bool sc_json_read_list(sc_json_src_t *src, const json_t *doc, const char *key, void *list,
                       size_t elem_size, const sc_field_t *fields)
{
    const json_t *array = json_object_get(doc, key);
    if (array != NULL && !json_is_array(array)) {
        const char *keys[] = {key};
        return sc_json_refuse(src, keys, 1, key, "not a list");
    }
    size_t i;
    json_t *obj;
    json_array_foreach(array, i, obj)
    {
        void *record = sc_list_push(list, elem_size);
        if (record == NULL) {
            src->status =
                sc_err_set(src->err, SC_ERR_NOMEM, "%s: no memory for %s", src->path, key);
            return false;
        }
        if (!sc_json_read_record(src, obj, record, fields, key, (long)i))
            return false;
    }
    return true;
}
