/* sc_json_check.c - records read from JSON and checked field by field (sc_json_check.h). */
#include "json/sc_json_check.h"
#include "util/sc_files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- where a value is: a scan of the text that skips what is not on the way ---- */
/* Past a string (c->p at its quote); its bytes between the quotes into key when given. */
static bool json_check__string(sc_scan_t *c, char *key, size_t len)
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

/* Inside a container (c->p past its bracket), to the member or element keys[0]; then the value
 * keys[1..] names. */
static int json_check__find(sc_scan_t *c, bool object, const char *const *keys, int nkeys,
                            int depth)
{
    for (long index = 0;; index++) {
        sc_scan_ws(c);
        if (c->p >= c->end || *c->p == (object ? '}' : ']'))
            return 0;
        bool match;
        if (object) {
            char key[128];
            if (*c->p != '"' || !json_check__string(c, key, sizeof(key)))
                return 0;
            sc_scan_ws(c);
            if (c->p >= c->end || *c->p++ != ':')
                return 0;
            match = strcmp(key, keys[0]) == 0;
        } else
            match = index == strtol(keys[0], NULL, 10);
        sc_scan_ws(c);
        if (match) {
            if (nkeys == 1)
                return c->line;
            if (c->p >= c->end || (*c->p != '{' && *c->p != '['))
                return 0;
            bool inner = *c->p++ == '{';
            return json_check__find(c, inner, keys + 1, nkeys - 1, depth + 1);
        }
        if (!sc_scan_skip(c, depth + 1))
            return 0;
        sc_scan_ws(c);
        if (c->p < c->end && *c->p == ',')
            c->p++;
    }
}

int sc_json_line(const char *text, size_t len, const char *const *keys, int nkeys)
{
    if (text == NULL)
        return 0;
    sc_scan_t c = {text, text + len, 1};
    sc_scan_ws(&c);
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

/* ---- the document's bytes, mapped; its streamed arrays read an element at a time ---- */
#define SC__RELEASE_STEP ((size_t)4 << 20)

/* The file's bytes mapped read-only (an empty file: ""); NULL with errno on failure. */
static const char *json_check__map(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *m = MAP_FAILED;
    *len = 0;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        *len = (size_t)st.st_size;
    } else if (fstat(fd, &st) == 0)
        m = (void *)"";
    int saved = errno;
    close(fd);
    errno = saved;
    if (m == MAP_FAILED)
        return NULL;
    if (*len > 0)
        madvise(m, *len, MADV_SEQUENTIAL);
    return m;
}

/* Gives the kernel back the pages read before p: a streamed read keeps only what it parses
 * resident, not the whole file. */
static void json_check__release(sc_json_src_t *src, const char *p)
{
    size_t upto = (size_t)(p - src->text);
    if (src->len == 0 || upto < src->released + SC__RELEASE_STEP)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t from = src->released / page * page;
    upto = upto / page * page;
    if (upto > from)
        madvise((char *)src->text + from, upto - from, MADV_DONTNEED);
    src->released = upto;
}

/* Refuses src for a syntax error at p (jansson's words): path:line:column. */
static void json_check__syntax(sc_json_src_t *src, const char *p, const char *why)
{
    int line = 1, column = 1;
    for (const char *q = src->text; q < p; q++) {
        line += *q == '\n';
        column = *q == '\n' ? 1 : column + 1;
    }
    if (src->status == SC_OK)
        src->status =
            sc_err_set(src->err, SC_ERR_INPUT, "%s:%d:%d: %s", src->path, line, column, why);
}

/* The JSON value at c->p, c->p moved past it; NULL (src refused) when it is not one. */
static json_t *json_check__value(sc_json_src_t *src, sc_scan_t *c)
{
    json_error_t e;
    json_t *v =
        json_loadb(c->p, (size_t)(c->end - c->p), JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &e);
    if (v == NULL) {
        json_check__syntax(src, c->p + (e.position > 0 ? e.position : 0), e.text);
        return NULL;
    }
    c->p += e.position; /* jansson's position: past the value, even on success */
    return v;
}

/* The streamed arrays forgotten (a load starts, or falls back to a whole parse). */
static void json_check__lists_free(sc_json_src_t *src)
{
    for (int k = 0; k < src->nlists; k++)
        free(src->lists[k].sizes);
    memset(src->lists, 0, sizeof(src->lists));
    src->nlists = 0;
}

/* An element's length noted; past 4 GiB or without memory the noting stops (the rest are
 * scanned again when read). */
static void json_check__note_size(sc_json_src_t *src, int slot, size_t size)
{
    sc_json_streamed_t *list = &src->lists[slot];
    if (list->cap == SIZE_MAX)
        return;
    if (size >= UINT32_MAX) {
        list->cap = SIZE_MAX;
        return;
    }
    if (list->nsizes == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 4096;
        uint32_t *sizes = realloc(list->sizes, cap * sizeof(*sizes));
        if (sizes == NULL) {
            list->cap = SIZE_MAX;
            return;
        }
        list->sizes = sizes;
        list->cap = cap;
    }
    list->sizes[list->nsizes++] = (uint32_t)size;
}

/* Past a streamed array (c->p at its '['), element by element, noting where it is and how long
 * each element is. */
static bool json_check__skip_streamed(sc_json_src_t *src, sc_scan_t *c, const char *key)
{
    int slot = 0;
    while (slot < src->nlists && strcmp(src->lists[slot].key, key) != 0)
        slot++;
    if (slot == SC_JSON_STREAMED_MAX)
        return false;
    if (slot < src->nlists) /* the key again: its last array is the one read */
        free(src->lists[slot].sizes);
    memset(&src->lists[slot], 0, sizeof(src->lists[slot]));
    src->lists[slot].key = key;
    src->lists[slot].at = (size_t)(c->p - src->text);
    src->nlists += slot == src->nlists;
    for (c->p++;;) {
        sc_scan_ws(c);
        if (c->p < c->end && *c->p == ']')
            return c->p++ != NULL;
        const char *from = c->p;
        if (!sc_scan_skip(c, 1))
            return false;
        json_check__note_size(src, slot, (size_t)(c->p - from));
        json_check__release(src, c->p);
        sc_scan_ws(c);
        if (c->p < c->end && *c->p == ',')
            c->p++;
    }
}

/* One member of the top-level object into head (a streamed array as an empty one). */
static bool json_check__member(sc_json_src_t *src, sc_scan_t *c, json_t *head)
{
    json_t *name = json_check__value(src, c);
    const char *key = json_string_value(name);
    sc_scan_ws(c);
    bool ok = key != NULL && c->p < c->end && *c->p++ == ':';
    if (ok) {
        sc_scan_ws(c);
        const char *const *k = src->streamed;
        while (*k != NULL && strcmp(*k, key) != 0)
            k++;
        json_t *v = *k != NULL && c->p < c->end && *c->p == '['
                        ? (json_check__skip_streamed(src, c, *k) ? json_array() : NULL)
                        : json_check__value(src, c);
        ok = v != NULL && json_object_set_new(head, key, v) == 0;
    }
    json_decref(name);
    return ok;
}

/* The top-level object, its streamed arrays left empty; NULL when the bytes are not one such
 * object (the caller parses them whole for jansson's own error). */
static json_t *json_check__head(sc_json_src_t *src)
{
    sc_scan_t c = {src->text, src->text + src->len, 1};
    sc_scan_ws(&c);
    if (c.p >= c.end || *c.p++ != '{')
        return NULL;
    json_t *head = json_object();
    for (bool first = true;; first = false) {
        sc_scan_ws(&c);
        if (c.p < c.end && *c.p == '}') {
            c.p++;
            sc_scan_ws(&c);
            if (c.p == c.end)
                return head;
            break;
        }
        if (!first && (c.p >= c.end || *c.p++ != ','))
            break;
        sc_scan_ws(&c);
        if (!json_check__member(src, &c, head))
            break;
    }
    json_decref(head);
    src->status = SC_OK; /* the whole parse says what is wrong */
    json_check__lists_free(src);
    return NULL;
}

json_t *sc_json_load(sc_json_src_t *src)
{
    src->status = SC_OK;
    src->nlists = 0; /* a fresh src: nothing to free (sc_json_src_free frees a loaded one's) */
    memset(src->lists, 0, sizeof(src->lists));
    src->released = 0;
    if (sc_files_check_input(src->path, src->err) != SC_OK) {
        src->status = src->err->status;
        return NULL;
    }
    size_t len = 0;
    const char *text = json_check__map(src->path, &len);
    if (text == NULL) {
        src->status = sc_err_set(src->err, SC_ERR_INPUT, "%s: cannot read it: %s", src->path,
                                 strerror(errno));
        return NULL;
    }
    src->text = text;
    src->len = len;
    json_t *doc = src->streamed != NULL ? json_check__head(src) : NULL;
    if (doc != NULL)
        return doc;
    json_error_t jerr;
    doc = json_loadb(text, len, 0, &jerr);
    if (doc == NULL) {
        src->status = sc_err_set(src->err, SC_ERR_INPUT, "%s:%d:%d: %s", src->path, jerr.line,
                                 jerr.column, jerr.text);
        sc_json_src_free(src);
    }
    return doc;
}

void sc_json_src_free(sc_json_src_t *src)
{
    json_check__lists_free(src);
    if (src->text != NULL && src->len > 0)
        munmap((void *)src->text, src->len);
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

/* Whether text is one of an enumerated field's values: the reason it is not, else NULL. */
static const char *json_check__choice(const sc_field_t *f, const char *text, char *why, size_t len)
{
    if (f->choices == NULL || (f->kind == SC_FIELD_TEXT_OPT && text[0] == '\0'))
        return NULL;
    size_t used = (size_t)snprintf(why, len, "'%.40s' is not one of ", text);
    for (const char *const *c = f->choices; *c != NULL; c++) {
        if (!strcmp(*c, text))
            return NULL;
        if (used < len)
            used +=
                (size_t)snprintf(why + used, len - used, "%s%s", c == f->choices ? "" : "|", *c);
    }
    return why;
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
        return json_check__choice(f, json_string_value(v), why, len);
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

/* The elements of the streamed array at text + at, one at a time: each the visitor wants parsed
 * into record and handed to it, the others passed by. */
static bool json_check__stream_list(sc_json_src_t *src, int slot, const char *key, void *record,
                                    size_t elem_size, const sc_field_t *fields,
                                    const sc_json_visit_t *v)
{
    size_t at = src->lists[slot].at;
    const uint32_t *sizes = src->lists[slot].sizes;
    long nsizes = (long)src->lists[slot].nsizes;
    sc_scan_t c = {src->text + at + 1, src->text + src->len, 0};
    src->released = at; /* loading passed this list by and gave its pages back: it is read again */
    for (long i = 0;; i++) {
        sc_scan_ws(&c);
        if (c.p < c.end && *c.p == ']')
            return true;
        if (i > 0 && (c.p >= c.end || *c.p++ != ',')) {
            json_check__syntax(src, c.p - 1, "',' or ']' expected");
            return false;
        }
        sc_scan_ws(&c);
        sc_scan_t from = c;
        if (i < nsizes && sizes[i] <= (size_t)(c.end - c.p))
            c.p += sizes[i]; /* where loading found its end */
        else if (!sc_scan_skip(&c, 1)) {
            json_check__syntax(src, c.p, "a value expected");
            return false;
        }
        if (v->wants(v->ctx, i, from.p, (size_t)(c.p - from.p))) {
            json_t *obj = json_check__value(src, &from);
            if (obj == NULL)
                return false;
            memset(record, 0, elem_size);
            bool ok =
                sc_json_read_record(src, obj, record, fields, key, i) && v->take(v->ctx, record);
            json_decref(obj);
            if (!ok)
                return false;
        }
        json_check__release(src, c.p);
    }
}

bool sc_json_visit_list(sc_json_src_t *src, const json_t *doc, const char *key, void *record,
                        size_t elem_size, const sc_field_t *fields, const sc_json_visit_t *v)
{
    const json_t *array = json_object_get(doc, key);
    for (int k = 0; k < src->nlists && json_array_size(array) == 0; k++)
        if (strcmp(src->lists[k].key, key) == 0)
            return json_check__stream_list(src, k, key, record, elem_size, fields, v);
    if (array != NULL && !json_is_array(array)) {
        const char *keys[] = {key};
        return sc_json_refuse(src, keys, 1, key, "not a list");
    }
    size_t i;
    json_t *obj;
    json_array_foreach(array, i, obj)
    {
        if (!v->wants(v->ctx, (long)i, NULL, 0))
            continue;
        memset(record, 0, elem_size);
        if (!sc_json_read_record(src, obj, record, fields, key, (long)i) ||
            !v->take(v->ctx, record))
            return false;
    }
    return true;
}

typedef struct {
    sc_json_src_t *src;
    void *list;
    size_t elem_size;
    const char *key;
} json_check__push_t;

static bool json_check__want_all(void *ctx, long index, const char *text, size_t len)
{
    (void)ctx, (void)index, (void)text, (void)len;
    return true;
}

static bool json_check__push(void *ctx, void *record)
{
    json_check__push_t *p = ctx;
    void *slot = sc_list_push(p->list, p->elem_size);
    if (slot == NULL) {
        p->src->status =
            sc_err_set(p->src->err, SC_ERR_NOMEM, "%s: no memory for %s", p->src->path, p->key);
        return false;
    }
    memcpy(slot, record, p->elem_size);
    return true;
}

bool sc_json_read_list(sc_json_src_t *src, const json_t *doc, const char *key, void *list,
                       size_t elem_size, const sc_field_t *fields)
{
    void *record = malloc(elem_size);
    if (record == NULL) {
        src->status = sc_err_set(src->err, SC_ERR_NOMEM, "%s: no memory for %s", src->path, key);
        return false;
    }
    json_check__push_t push = {src, list, elem_size, key};
    sc_json_visit_t v = {json_check__want_all, json_check__push, &push};
    bool ok = sc_json_visit_list(src, doc, key, record, elem_size, fields, &v);
    free(record);
    return ok;
}
