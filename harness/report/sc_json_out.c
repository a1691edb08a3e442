/* sc_json_out.c - the one place records become JSON values and files: records through their
 * field tables, named values, matrices, telemetry, and CSV rows (RFC 4180 quoting), each file
 * written whole or not at all. */
#include "report/sc_json_out.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "report/sc_json_build.h"
#include "util/sc_files.h"
#include "util/sc_numtext.h"

static json_t *json_out__field_json(const sc_field_t *f, const void *record)
{
    const void *at = (const char *)record + f->offset;
    switch (f->kind) {
    case SC_FIELD_INT:
        return json_integer(*(const int *)at);
    case SC_FIELD_U64:
        return json_integer((json_int_t) * (const uint64_t *)at);
    case SC_FIELD_I64:
        return json_integer((json_int_t) * (const long long *)at);
    case SC_FIELD_DOUBLE:
    case SC_FIELD_OPTIONAL:
        return json_real(*(const double *)at);
    case SC_FIELD_BOOL:
        return json_boolean(*(const bool *)at);
    default:
        return json_string(sc_field_text(f, record));
    }
}

json_t *sc_json_record(const void *record, const sc_field_t *fields)
{
    json_t *obj = json_object();
    for (const sc_field_t *f = fields; f->name != NULL; f++)
        if (sc_field_present(f, record))
            json_object_set_new(obj, f->name, json_out__field_json(f, record));
    return obj;
}

json_t *sc_json_records(const void *items, size_t n, size_t elem_size, const sc_field_t *fields)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, sc_json_record((const char *)items + i * elem_size, fields));
    return list;
}

/* ---- rows written as the document is: a list of records stands in the tree as a mark, and
 * the writer renders its records one at a time where the mark is (a million rows never become
 * a million objects at once). The mark holds the list's address, behind a process-random
 * nonce that no text a user gave can carry. ---- */
static char json_out__nonce[24];
static pthread_once_t json_out__nonce_once = PTHREAD_ONCE_INIT;

static void json_out__make_nonce(void)
{
    unsigned long long seed = 0;
    if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
        seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32) ^
               (unsigned long long)(uintptr_t)&seed;
    snprintf(json_out__nonce, sizeof(json_out__nonce), "%016llx", seed);
}

#define SC__ROWS_MARK "\\u0001sc-rows " /* as jansson escapes it */

/* A mark the writer expands where it stands: the nonce, then what it stands for. */
static json_t *json_out__mark(const char *what)
{
    pthread_once(&json_out__nonce_once, json_out__make_nonce);
    char mark[160];
    snprintf(mark, sizeof(mark), "\001sc-rows %s %s", json_out__nonce, what);
    return json_pack("[s]", mark);
}

json_t *sc_json_rows(const void *items, size_t n, size_t elem_size, const sc_field_t *fields)
{
    char what[96];
    snprintf(what, sizeof(what), "%p %zu %zu %p", items, n, elem_size, (const void *)fields);
    return json_out__mark(what);
}

json_t *sc_json_file_rows(const char *path)
{
    char what[64];
    snprintf(what, sizeof(what), "file %p", (const void *)path);
    return json_out__mark(what);
}

/* A row's text gathered before it goes to its file in one write: a fleet's rows are millions of
 * a few dozen fields, and a stdio call (and its lock) a field was a third of judge's time. */
typedef struct {
    FILE *out;
    size_t n;
    char text[4096];
} json_out__line_t;

static void json_out__put(json_out__line_t *l, const char *s, size_t len)
{
    if (l->n + len > sizeof(l->text)) {
        fwrite(l->text, 1, l->n, l->out);
        l->n = 0;
        if (len > sizeof(l->text)) {
            fwrite(s, 1, len, l->out);
            return;
        }
    }
    memcpy(l->text + l->n, s, len);
    l->n += len;
}

static void json_out__puts(json_out__line_t *l, const char *s)
{
    json_out__put(l, s, strlen(s));
}

json_t *sc_json_joined_rows(const char *path)
{
    char what[64];
    snprintf(what, sizeof(what), "joined %p", (const void *)path);
    return json_out__mark(what);
}

json_t *sc_json_source_rows(const sc_list_source_t *source)
{
    char what[64];
    snprintf(what, sizeof(what), "source %p", (const void *)source);
    return json_out__mark(what);
}

json_t *sc_json_tally_later(const sc_result_t *r)
{
    char what[64];
    snprintf(what, sizeof(what), "tally %p", (const void *)r);
    return json_out__mark(what);
}

struct sc_list_out {
    FILE *out;
    int indent;
    size_t n;
};

/* One number or bool field's value as JSON, as jansson writes it (sc_json_record's): a real
 * with 15 digits and a ".0" when it would read back as an integer. */
static void json_out__number_write(json_out__line_t *l, const sc_field_t *f, const void *record)
{
    const void *at = (const char *)record + f->offset;
    char num[40];
    int len;
    switch (f->kind) {
    case SC_FIELD_INT:
        len = sc_numtext_int(*(const int *)at, num);
        break;
    case SC_FIELD_U64:
        len = sc_numtext_int((long long)*(const uint64_t *)at, num); /* as json_integer takes it */
        break;
    case SC_FIELD_I64:
        len = sc_numtext_int(*(const long long *)at, num);
        break;
    case SC_FIELD_BOOL:
        json_out__puts(l, *(const bool *)at ? "true" : "false");
        return;
    default:
        len = sc_numtext_g15(*(const double *)at, num);
        if (strpbrk(num, ".eE") == NULL) {
            memcpy(num + len, ".0", 3);
            len += 2;
        }
    }
    json_out__put(l, num, (size_t)len);
}

/* Whether a text is plain printable ASCII that JSON takes as it is (names, types, verdicts:
 * nearly every text a row holds): written without jansson. */
static bool json_out__plain(const char *s)
{
    for (; *s != '\0'; s++)
        if (*s < 0x20 || *s >= 0x7f || *s == '"' || *s == '\\')
            return false;
    return true;
}

/* One record as one compact JSON object on one line, written straight from its field table: the
 * values sc_json_record's object dumps to, without building an object a row. What jansson leaves
 * out is left out here too: a figure that is not finite, a text that is not UTF-8. */
static void json_out__row(FILE *out, const void *record, const sc_field_t *fields)
{
    json_out__line_t l = {.out = out};
    bool first = true;
    json_out__put(&l, "{", 1);
    for (const sc_field_t *f = fields; f->name != NULL; f++) {
        if (!sc_field_present(f, record))
            continue;
        const char *s = sc_field_text(f, record);
        bool plain = s != NULL && json_out__plain(s);
        json_t *text = s != NULL && !plain ? json_string(s) : NULL; /* NULL: not UTF-8 */
        bool real = f->kind == SC_FIELD_DOUBLE || f->kind == SC_FIELD_OPTIONAL;
        if ((s != NULL && !plain && text == NULL) ||
            (real && !isfinite(sc_field_number(f, record))))
            continue;
        json_out__puts(&l, first ? "\"" : ",\""); /* compact: a fleet's rows are gigabytes */
        first = false;
        json_out__puts(&l, f->name);
        json_out__put(&l, "\":", 2);
        char *escaped = text != NULL ? json_dumps(text, JSON_ENCODE_ANY) : NULL;
        if (plain) {
            json_out__put(&l, "\"", 1);
            json_out__puts(&l, s);
            json_out__put(&l, "\"", 1);
        } else if (escaped != NULL) {
            json_out__puts(&l, escaped);
        } else {
            json_out__number_write(&l, f, record);
        }
        free(escaped);
        json_decref(text);
    }
    json_out__put(&l, "}", 1);
    fwrite(l.text, 1, l.n, out);
}

/* ",\n" and the list's indent between two of its elements (no printf: a million times). */
static void json_out__separator(FILE *out, int indent)
{
    static const char spaces[] = ",\n                                ";
    if (indent < 0 || indent > (int)sizeof(spaces) - 3) {
        fprintf(out, ",\n%*s", indent, "");
        return;
    }
    fwrite(spaces, 1, (size_t)indent + 2, out);
}

/* The lines of the file a mark names (a JSON object each), one a line where the mark is; false
 * when it cannot be read or holds a torn line. */
static bool json_out__expand_file(FILE *out, const char *path, int indent)
{
    FILE *in = fopen(path, "re");
    if (in == NULL)
        return false;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool ok = true;
    for (size_t i = 0; ok && (len = getline(&line, &cap, in)) > 0; i++) {
        ok = line[len - 1] == '\n';
        if (i > 0)
            json_out__separator(out, indent);
        fwrite(line, 1, (size_t)len - 1, out);
    }
    ok = ok && !ferror(in);
    free(line);
    fclose(in);
    return ok;
}

void sc_json_list_put(sc_list_out_t *l, const void *record, const sc_field_t *fields)
{
    if (l->n++ > 0)
        json_out__separator(l->out, l->indent);
    json_out__row(l->out, record, fields);
}

/* A mark that stands for a value, not a list's elements: its tally, once the rows are written. */
static bool json_out__expand_value(FILE *out, const char **p)
{
    void *r;
    int used = 0;
    if (sscanf(*p, "tally %p\"%n", &r, &used) != 1 || used == 0)
        return false;
    *p += used;
    json_t *tally = sc_json_tally(r);
    int rc = json_dumpf(tally, out, 0);
    json_decref(tally);
    return rc == 0;
}

static bool json_out__expand(FILE *out, const char **p, int indent)
{
    void *items, *fields;
    size_t n, elem_size;
    int used = 0;
    if (strncmp(*p, "source ", 7) == 0) {
        if (sscanf(*p + 7, "%p\"%n", &items, &used) != 1 || used == 0)
            return false;
        *p += 7 + used;
        const sc_list_source_t *source = items;
        sc_list_out_t l = {out, indent, 0};
        return source->write(&l, source->ctx);
    }
    if (strncmp(*p, "joined ", 7) == 0) { /* written for this place: taken in as it is */
        if (sscanf(*p + 7, "%p\"%n", &items, &used) != 1 || used == 0)
            return false;
        *p += 7 + used;
        return indent == SC_JSON_JOINED_INDENT && sc_files_append(out, items);
    }
    if (strncmp(*p, "file ", 5) == 0) {
        if (sscanf(*p + 5, "%p\"%n", &items, &used) != 1 || used == 0)
            return false;
        *p += 5 + used;
        return json_out__expand_file(out, items, indent);
    }
    if (sscanf(*p, "%p %zu %zu %p\"%n", &items, &n, &elem_size, &fields, &used) != 4 || used == 0)
        return false;
    *p += used;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            json_out__separator(out, indent);
        json_out__row(out, (const char *)items + i * elem_size, fields);
    }
    return true;
}

void sc_json_joined_put(FILE *out, size_t *n, const void *record, const sc_field_t *fields)
{
    if ((*n)++ > 0)
        json_out__separator(out, SC_JSON_JOINED_INDENT);
    json_out__row(out, record, fields);
}

void sc_json_write_row(FILE *out, const void *record, const sc_field_t *fields)
{
    json_out__row(out, record, fields);
    fputc('\n', out);
}

sc_status_t sc_json_append_row(FILE *out, const char *path, const void *record,
                               const sc_field_t *fields, sc_err_t *err)
{
    json_out__row(out, record, fields);
    if (fputc('\n', out) == EOF || fflush(out) != 0)
        return sc_err_set(err, SC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return SC_OK;
}

json_t *sc_json_kvs(const sc_kvs_t *kvs)
{
    json_t *obj = json_object();
    for (size_t i = 0; i < kvs->n; i++) {
        const sc_kv_t *kv = &kvs->items[i];
        json_t *v = kv->is_number ? json_real(kv->number) : json_string(kv->text);
        if (kv->is_number && kv->number == (double)(json_int_t)kv->number) {
            json_decref(v);
            v = json_integer((json_int_t)kv->number);
        }
        const char *slash = strchr(kv->key, '/');
        if (slash == NULL) {
            json_object_set_new(obj, kv->key, v);
            continue;
        }
        char outer[64];
        snprintf(outer, sizeof(outer), "%.*s", (int)(slash - kv->key), kv->key);
        json_t *inner = json_object_get(obj, outer);
        if (inner == NULL) {
            inner = json_object();
            json_object_set_new(obj, outer, inner);
        }
        json_object_set_new(inner, slash + 1, v);
    }
    return obj;
}

json_t *sc_json_matrix(const double *m, int n)
{
    json_t *rows = json_array();
    for (int i = 0; i < n; i++) {
        json_t *row = json_array();
        for (int j = 0; j < n; j++)
            json_array_append_new(row, json_real(m[i * n + j]));
        json_array_append_new(rows, row);
    }
    return rows;
}

static void json_out__set_count(json_t *obj, const char *key, long long v)
{
    if (v >= 0)
        json_object_set_new(obj, key, json_integer(v));
}

static json_t *json_out__sample_json(const sc_gpu_sample_t *s)
{
    json_t *obj = json_pack("{s:f, s:i}", "t_s", s->t_s, "index", (int)s->index);
    json_out__set_count(obj, "temp_c", s->temp_c);
    if (s->power_w >= 0)
        json_object_set_new(obj, "power_w", json_real(s->power_w));
    json_out__set_count(obj, "sm_mhz", s->sm_mhz);
    json_out__set_count(obj, "mem_mhz", s->mem_mhz);
    json_out__set_count(obj, "throttle_reasons", s->throttle_reasons);
    json_out__set_count(obj, "ecc_corrected", s->ecc_corrected);
    json_out__set_count(obj, "ecc_uncorrected", s->ecc_uncorrected);
    if (s->nvlinks_reported > 0) {
        json_t *links = json_array();
        for (int l = 0; l < SC_NVML_MAX_LINKS; l++)
            if (s->nvlink_active[l] >= 0)
                json_array_append_new(links, json_pack("{s:i, s:b, s:i}", "link", l, "up",
                                                       s->nvlink_active[l], "version",
                                                       s->nvlink_version[l]));
        json_object_set_new(obj, "nvlinks_up", json_integer(s->nvlinks_up));
        json_object_set_new(obj, "nvlinks", links);
    }
    return obj;
}

static json_t *json_out__gpu_health_json(const sc_gpu_health_t *g)
{
    json_t *samples = json_array();
    for (size_t i = 0; i < g->nsamples; i++)
        json_array_append_new(samples, json_out__sample_json(&g->samples[i]));
    json_t *gpu = json_pack("{s:i, s:s, s:s, s:o, s:I}", "index", (int)g->index, "name", g->name,
                            "bus_id", g->bus_id, "samples", samples, "throttled_samples",
                            (json_int_t)g->throttled_samples);
    json_out__set_count(gpu, "max_temp_c", g->max_temp_c);
    if (g->max_power_w >= 0)
        json_object_set_new(gpu, "max_power_w", json_real(g->max_power_w));
    json_out__set_count(gpu, "ecc_uncorrected_new", g->ecc_uncorrected_new);
    json_out__set_count(gpu, "ecc_corrected_new", g->ecc_corrected_new);
    json_out__set_count(gpu, "min_nvlinks_up", g->min_nvlinks_up);
    return gpu;
}

json_t *sc_json_health(const sc_health_t *hosts, int n)
{
    json_t *list = json_array();
    for (int h = 0; h < n; h++) {
        const sc_health_t *t = &hosts[h];
        json_t *out = json_pack("{s:s, s:b, s:f}", "host", t->host, "available", t->available,
                                "interval_s", t->interval_s);
        if (t->available) {
            json_t *gpus = json_array();
            for (int g = 0; g < t->ngpus; g++)
                json_array_append_new(gpus, json_out__gpu_health_json(&t->gpus[g]));
            json_object_set_new(out, "gpus", gpus);
            json_object_set_new(out, "samples_dropped", json_integer(t->samples_dropped));
        }
        if (t->reason[0] != '\0')
            json_object_set_new(out, "reason", json_string(t->reason));
        json_array_append_new(list, out);
    }
    return list;
}

json_t *sc_json_tally(const sc_result_t *r)
{
    sc_tally_t t = sc_result_tally(r);
    return json_pack("{s:i, s:i, s:i, s:i, s:s}", "checks", t.checks, "pass", t.pass, "warn",
                     t.warn, "fail", t.fail, "verdict", sc_verdict_row(sc_result_verdict(r))->name);
}

/* The document indented, each list of rows (sc_json_rows) a row a line where its mark is. */
static int json_out__json_writer(FILE *out, void *arg)
{
    char *text = json_dumps((json_t *)arg, JSON_INDENT(1) | JSON_REAL_PRECISION(15));
    if (text == NULL)
        return -1;
    char mark[64];
    snprintf(mark, sizeof(mark), "\"" SC__ROWS_MARK "%s ", json_out__nonce);
    const char *p = text, *at;
    int rc = 0;
    while (json_out__nonce[0] != '\0' && (at = strstr(p, mark)) != NULL && rc == 0) {
        const char *line = at;
        while (line > text && line[-1] != '\n')
            line--;
        if (strncmp(at + strlen(mark), "tally ", 6) == 0) { /* a value: its [ ] go */
            const char *open = at;
            while (open > p && *open != '[')
                open--;
            fwrite(p, 1, (size_t)(open - p), out);
            p = at + strlen(mark);
            rc = json_out__expand_value(out, &p) ? 0 : -1;
            p += strspn(p, " \n");
            p += *p == ']';
            continue;
        }
        fwrite(p, 1, (size_t)(at - p), out);
        p = at + strlen(mark);
        rc = json_out__expand(out, &p, (int)(at - line)) ? 0 : -1;
    }
    fputs(p, out);
    fputc('\n', out);
    free(text);
    return rc;
}

sc_status_t sc_json_write_new(const char *path, json_t *v, sc_err_t *err)
{
    sc_status_t status = sc_files_write_text(path, json_out__json_writer, v, err);
    json_decref(v);
    return status;
}

sc_status_t sc_json_write_lists(const char *path, const sc_kvs_t *head, const sc_json_list_t *lists,
                                int nlists, sc_err_t *err)
{
    json_t *doc = sc_json_kvs(head);
    for (int i = 0; i < nlists; i++)
        json_object_set_new(
            doc, lists[i].key,
            sc_json_records(lists[i].items, lists[i].n, lists[i].elem_size, lists[i].fields));
    return sc_json_write_new(path, doc, err);
}

int sc_json_print_health(FILE *out, const sc_health_t *hosts, int n)
{
    json_t *list = sc_json_health(hosts, n);
    int rc = json_out__json_writer(out, list);
    json_decref(list);
    return rc;
}

const char *sc_json_library_version(void)
{
    return jansson_version_str();
}

/* ---- CSV ---- */
/* A text cell. RFC 4180: quoted, quotes doubled, when needed. A text that a spreadsheet would
 * take for a formula (its first character = + - @, a tab or a carriage return: OWASP's CSV
 * injection rule) starts with a quote mark, so that it is shown, never evaluated - a host
 * named "=cmd|..." reaches points.csv as text. Figures are never text cells. */
static void json_out__csv_text(json_out__line_t *l, const char *s)
{
    bool formula = s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
    if (!formula && strpbrk(s, ",\"\n\r") == NULL) {
        json_out__puts(l, s);
        return;
    }
    json_out__put(l, "\"", 1);
    if (formula)
        json_out__put(l, "'", 1);
    for (const char *c = s; *c; c++)
        json_out__put(l, *c == '"' ? "\"\"" : c, *c == '"' ? 2 : 1);
    json_out__put(l, "\"", 1);
}

/* One field's value as the CSV writes it: figures as "%.6g", without printf (a fleet's rows). */
static void json_out__csv_value(json_out__line_t *l, const sc_field_t *f, const void *record)
{
    const void *at = (const char *)record + f->offset;
    if (!sc_field_present(f, record))
        return;
    char num[40];
    int len;
    switch (f->kind) {
    case SC_FIELD_INT:
        len = sc_numtext_int(*(const int *)at, num);
        break;
    case SC_FIELD_U64:
        len = *(const uint64_t *)at <= (uint64_t)LLONG_MAX
                  ? sc_numtext_int((long long)*(const uint64_t *)at, num)
                  : snprintf(num, sizeof(num), "%" PRIu64, *(const uint64_t *)at);
        break;
    case SC_FIELD_I64:
        len = sc_numtext_int(*(const long long *)at, num);
        break;
    case SC_FIELD_DOUBLE:
    case SC_FIELD_OPTIONAL:
        len = sc_numtext_g(*(const double *)at, 6, num);
        break;
    case SC_FIELD_BOOL:
        json_out__puts(l, *(const bool *)at ? "true" : "false");
        return;
    default:
        json_out__csv_text(l, sc_field_text(f, record));
        return;
    }
    json_out__put(l, num, (size_t)len);
}

typedef struct {
    const char *items;
    size_t n, elem_size;
    const sc_field_t *fields;
} json_out__csv_t;

static int json_out__csv_writer(FILE *out, void *arg)
{
    const json_out__csv_t *c = arg;
    const char *sep = "";
    for (const sc_field_t *f = c->fields; f->name != NULL; f++)
        if (f->show & SC_SHOW_CSV) {
            fprintf(out, "%s%s", sep, f->name);
            sep = ",";
        }
    fputc('\n', out);
    for (size_t i = 0; i < c->n; i++) {
        const void *record = c->items + i * c->elem_size;
        json_out__line_t l = {.out = out};
        bool first = true;
        for (const sc_field_t *f = c->fields; f->name != NULL; f++)
            if (f->show & SC_SHOW_CSV) {
                json_out__put(&l, ",", first ? 0 : 1);
                json_out__csv_value(&l, f, record);
                first = false;
            }
        json_out__put(&l, "\n", 1);
        fwrite(l.text, 1, l.n, out);
    }
    return ferror(out);
}

sc_status_t sc_csv_write_records(const char *path, const void *items, size_t n, size_t elem_size,
                                 const sc_field_t *fields, sc_err_t *err)
{
    json_out__csv_t c = {items, n, elem_size, fields};
    return sc_files_write_text(path, json_out__csv_writer, &c, err);
}
