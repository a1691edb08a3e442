/* sc_json_out.c - the one place records become JSON values and files: records through their
 * field tables, named values, matrices, telemetry, and CSV rows (RFC 4180 quoting), each file
 * written whole or not at all. */
#include "report/sc_json_out.h"

#include <inttypes.h>
#include <string.h>

#include "report/sc_json_build.h"
#include "util/sc_files.h"

static const char *json_out__field_text(const sc_field_t *f, const void *record)
{
    const void *at = (const char *)record + f->offset;
    if (f->kind == SC_FIELD_LEVEL)
        return sc_level_name(*(const sc_level_t *)at);
    return at;
}

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
        return json_string(json_out__field_text(f, record));
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

json_t *sc_json_tally(sc_tally_t t)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:s}", "checks", t.checks, "pass", t.pass, "warn",
                     t.warn, "fail", t.fail, "verdict", sc_tally_verdict(t));
}

static int json_out__json_writer(FILE *out, void *arg)
{
    int rc = json_dumpf((json_t *)arg, out, JSON_INDENT(1) | JSON_REAL_PRECISION(15));
    fputc('\n', out);
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
static void json_out__csv_text(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\n") == NULL) { /* RFC 4180: quoted, quotes doubled, when needed */
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (const char *c = s; *c; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

static void json_out__csv_value(FILE *out, const sc_field_t *f, const void *record)
{
    const void *at = (const char *)record + f->offset;
    if (!sc_field_present(f, record))
        return;
    switch (f->kind) {
    case SC_FIELD_INT:
        fprintf(out, "%d", *(const int *)at);
        break;
    case SC_FIELD_U64:
        fprintf(out, "%" PRIu64, *(const uint64_t *)at);
        break;
    case SC_FIELD_I64:
        fprintf(out, "%lld", *(const long long *)at);
        break;
    case SC_FIELD_DOUBLE:
    case SC_FIELD_OPTIONAL:
        fprintf(out, "%.6g", *(const double *)at);
        break;
    case SC_FIELD_BOOL:
        fputs(*(const bool *)at ? "true" : "false", out);
        break;
    default:
        json_out__csv_text(out, json_out__field_text(f, record));
    }
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
        sep = "";
        for (const sc_field_t *f = c->fields; f->name != NULL; f++)
            if (f->show & SC_SHOW_CSV) {
                fputs(sep, out);
                json_out__csv_value(out, f, record);
                sep = ",";
            }
        fputc('\n', out);
    }
    return ferror(out);
}

sc_status_t sc_csv_write_records(const char *path, const void *items, size_t n, size_t elem_size,
                                 const sc_field_t *fields, sc_err_t *err)
{
    json_out__csv_t c = {items, n, elem_size, fields};
    return sc_files_write_text(path, json_out__csv_writer, &c, err);
}
