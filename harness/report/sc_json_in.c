/* sc_json_in.c - result.json back into records: the header, the points, the case rows, the
 * pairs, the checks and the findings, each through its field table. What only a person reads
 * (rank_info, telemetry, the grid) stays in the file. */
#include "report/sc_json_in.h"
#include "util/sc_files.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/sc_json_build.h"
#include "report/sc_json_soak.h"

static void sc__read_field(const json_t *v, const sc_field_t *f, void *record)
{
    void *at = (char *)record + f->offset;
    switch (f->kind) {
    case SC_FIELD_INT:
        *(int *)at = (int)json_integer_value(v);
        break;
    case SC_FIELD_U64:
        *(uint64_t *)at = (uint64_t)json_number_value(v);
        break;
    case SC_FIELD_I64:
        *(long long *)at = json_is_integer(v) ? (long long)json_integer_value(v) : -1;
        break;
    case SC_FIELD_DOUBLE:
    case SC_FIELD_OPTIONAL:
        *(double *)at = json_is_number(v) ? json_number_value(v) : SC_ABSENT;
        break;
    case SC_FIELD_BOOL:
        *(bool *)at = json_is_true(v);
        break;
    case SC_FIELD_LEVEL: {
        int level = sc_level_parse(json_string_value(v));
        *(sc_level_t *)at = level < 0 ? SC_LEVEL_FAIL : (sc_level_t)level;
        break;
    }
    default:
        snprintf(at, f->size, "%s", json_is_string(v) ? json_string_value(v) : "");
    }
}

/* Every element of the array key of doc into list, a zeroed record each, through fields
 * (absent optional figures stay absent). */
void sc_json_read_record(const json_t *obj, void *record, const sc_field_t *fields)
{
    for (const sc_field_t *f = fields; f->name != NULL; f++) {
        json_t *v = json_object_get(obj, f->name);
        if (v != NULL || f->kind == SC_FIELD_OPTIONAL)
            sc__read_field(v, f, record);
    }
}

void sc_json_read_list(const json_t *doc, const char *key, void *list, size_t elem_size,
                       const sc_field_t *fields)
{
    size_t i;
    json_t *obj;
    json_array_foreach(json_object_get(doc, key), i, obj)
    {
        void *record = sc_list_push(list, elem_size);
        if (record == NULL)
            return;
        sc_json_read_record(obj, record, fields);
    }
}

static void sc__text(const json_t *doc, const char *key, char *out, size_t len)
{
    const char *s = json_string_value(json_object_get(doc, key));
    snprintf(out, len, "%s", s ? s : "");
}

static void sc__header(const json_t *doc, sc_result_t *r)
{
    sc__text(doc, "version", r->version, sizeof(r->version));
    sc__text(doc, "state", r->state, sizeof(r->state));
    sc__text(doc, "reason", r->reason, sizeof(r->reason));
    sc__text(doc, "at_fault", r->at_fault, sizeof(r->at_fault));
    r->elapsed_s = json_number_value(json_object_get(doc, "elapsed_s"));
    sc__text(doc, "start_utc", r->start_utc, sizeof(r->start_utc));
    sc__text(doc, "results_dir", r->results_dir, sizeof(r->results_dir));
    sc__text(doc, "backend", r->backend, sizeof(r->backend));
    sc__text(doc, "backend_note", r->backend_note, sizeof(r->backend_note));
    sc__text(doc, "workload", r->workload, sizeof(r->workload));
    sc__text(doc, "workload_file", r->workload_file, sizeof(r->workload_file));
    sc__text(doc, "topology", r->topology, sizeof(r->topology));
    r->ranks = (int)json_integer_value(json_object_get(doc, "ranks"));
    r->nhosts = (int)json_integer_value(json_object_get(doc, "nhosts"));
    r->bytes_scale = json_number_value(json_object_get(doc, "bytes_scale"));
    r->compute_scale = json_number_value(json_object_get(doc, "compute_scale"));
    r->steps = (int)json_integer_value(json_object_get(doc, "steps"));
    r->warmup = (int)json_integer_value(json_object_get(doc, "warmup"));
}

/* The hosts and the libraries' versions: where and with what a result was measured (a
 * baseline records them). Nested values stay in the file. */
static void sc__provenance(const json_t *doc, sc_result_t *r)
{
    const json_t *hosts = json_object_get(doc, "hosts");
    size_t n = json_array_size(hosts);
    if (n > 0 && (r->hosts = calloc(n, sizeof(*r->hosts))) != NULL) {
        r->nhosts = (int)n;
        for (size_t i = 0; i < n; i++) {
            const char *h = json_string_value(json_array_get(hosts, i));
            snprintf(r->hosts[i], sizeof(r->hosts[i]), "%s", h ? h : "");
        }
    }
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(doc, "libraries"), key, v)
    {
        if (json_is_string(v))
            sc_kvs_text(&r->libraries, key, json_string_value(v));
        else if (json_is_number(v))
            sc_kvs_number(&r->libraries, key, json_number_value(v));
    }
}

static void sc__points(const json_t *doc, sc_result_t *r)
{
    size_t i;
    json_t *obj;
    sc_json_read_list(doc, "points", &r->points, sizeof(sc_point_t), sc_point_fields);
    json_array_foreach(json_object_get(doc, "points"), i, obj)
    {
        sc_point_t *p = &r->points.items[i];
        const char *op;
        json_t *c;
        json_object_foreach(json_object_get(obj, "comm"), op, c)
        {
            if (p->ncomm == SC_POINT_OPS)
                break;
            sc_op_count_t *k = &p->comm[p->ncomm++];
            snprintf(k->op, sizeof(k->op), "%s", op);
            k->calls = json_number_value(json_object_get(c, "calls"));
            k->bytes = json_number_value(json_object_get(c, "bytes"));
            k->sent_bytes = json_number_value(json_object_get(c, "sent_bytes"));
        }
    }
}

/* A soak's figures, and its cycles from the journal beside result.json (none when it is gone). */
static void sc__soak(const json_t *doc, const char *dir, sc_result_t *r)
{
    const json_t *soak = json_object_get(doc, "soak");
    if (soak == NULL)
        return;
    r->soak_duration_s = json_number_value(json_object_get(soak, "duration_s"));
    r->soak_s = json_number_value(json_object_get(soak, "soak_s"));
    r->soak_launches = (int)json_integer_value(json_object_get(soak, "launches"));
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, SC_SOAK_JOURNAL);
    sc_soak_start_t start;
    sc_err_t ignored;
    bool complete = false;
    if (sc_soak_journal_read(path, &start, &r->soak, &complete, &ignored) != SC_OK)
        sc_soak_cycles_free(&r->soak);
    sc_soak_start_free(&start);
}

sc_status_t sc_json_load_result(const char *dir, sc_result_t *r, sc_err_t *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    if (sc_files_check_input(path, err) != SC_OK)
        return err->status;
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (doc == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s:%d:%d: %s", path, jerr.line, jerr.column,
                          jerr.text);
    const char *command = json_string_value(json_object_get(doc, "command"));
    if (!json_is_object(doc) || command == NULL) {
        json_decref(doc);
        return sc_err_set(err, SC_ERR_INPUT, "%s: not a scalecheck result", path);
    }
    sc_result_init(r, command);
    sc__header(doc, r);
    sc__provenance(doc, r);
    sc__points(doc, r);
    sc_json_read_list(doc, "sweep", &r->sweep, sizeof(sc_case_row_t), sc_case_row_fields);
    sc_json_read_list(doc, "results", &r->cases, sizeof(sc_case_row_t), sc_case_row_fields);
    sc_json_read_list(doc, "pairs", &r->pairs, sizeof(sc_pair_row_t), sc_pair_row_fields);
    sc_json_read_list(doc, "groups", &r->groups, sizeof(sc_group_row_t), sc_group_row_fields);
    sc_json_read_list(doc, "checks", &r->checks, sizeof(sc_check_t), sc_check_fields);
    sc_json_read_list(doc, "findings", &r->findings, sizeof(sc_finding_t), sc_finding_fields);
    sc_json_read_list(doc, "preflight", &r->preflight, sizeof(sc_hostcfg_t), sc_hostcfg_fields);
    r->judged = json_is_array(json_object_get(doc, "checks"));
    r->has_findings = json_is_array(json_object_get(doc, "findings"));
    sc__soak(doc, dir, r);
    json_decref(doc);
    return SC_OK;
}
