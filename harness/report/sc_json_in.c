/* sc_json_in.c - result.json back into records: the header, the points, the case rows, the
 * pairs, the checks and the findings, each through its field table. What only a person reads
 * (rank_info, telemetry, the grid) stays in the file. */
#include "report/sc_json_in.h"
#include "util/sc_files.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/sc_json_build.h"
#include "report/sc_json_check.h"
#include "sc_config.h"
#include "report/sc_json_soak.h"

#define SC__H(field, kind)                                                                         \
    {                                                                                              \
#field, kind, offsetof(sc_result_t, field), sizeof(((sc_result_t *)0)->field), 0           \
    }
/* The header's scalar fields (the command is read first: it says what the document is). */
static const sc_field_t json_in__header_fields[] = {
    SC__H(version, SC_FIELD_TEXT),       SC__H(state, SC_FIELD_TEXT),
    SC__H(reason, SC_FIELD_TEXT),        SC__H(at_fault, SC_FIELD_TEXT),
    SC__H(elapsed_s, SC_FIELD_DOUBLE),   SC__H(start_utc, SC_FIELD_TEXT),
    SC__H(results_dir, SC_FIELD_TEXT),   SC__H(backend, SC_FIELD_TEXT),
    SC__H(backend_note, SC_FIELD_TEXT),  SC__H(workload, SC_FIELD_TEXT),
    SC__H(workload_file, SC_FIELD_TEXT), SC__H(topology, SC_FIELD_TEXT),
    SC__H(ranks, SC_FIELD_INT),          SC__H(nhosts, SC_FIELD_INT),
    SC__H(bytes_scale, SC_FIELD_DOUBLE), SC__H(compute_scale, SC_FIELD_DOUBLE),
    SC__H(steps, SC_FIELD_INT),          SC__H(warmup, SC_FIELD_INT),
    {NULL, SC_FIELD_INT, 0, 0, 0},
};

/* The commands whose runs write a result.json. */
static const char *const json_in__result_commands[] = {
    "coll", "run", "pairs", "soak", "preflight", "health", "judge", "calibrate", "compute", NULL};

/* major.minor of a version string as one number (0.1.0 -> 1, 1.2.3 -> 1002); -1 unparsable */
static long json_in__release(const char *version)
{
    unsigned major, minor;
    return sscanf(version, "%u.%u", &major, &minor) == 2 && major < 1000000 && minor < 1000
               ? (long)major * 1000 + (long)minor
               : -1;
}

/* What only scalecheck writes: its name, a command it has, a release it can read, counts that
 * a run has. */
static bool json_in__header_sane(sc_json_src_t *src, const json_t *doc, const sc_result_t *r)
{
    const char *tool = json_string_value(json_object_get(doc, "tool"));
    const char *keys[1];
    bool known = false;
    for (const char *const *c = json_in__result_commands; *c != NULL; c++)
        known |= strcmp(*c, r->command) == 0;
    if (tool == NULL || strcmp(tool, "scalecheck") != 0)
        return sc_json_refuse(src, (keys[0] = "tool", keys), 1, "tool",
                              "not \"scalecheck\": not a scalecheck result");
    if (!known)
        return sc_json_refuse(src, (keys[0] = "command", keys), 1, "command",
                              "not a command that writes result.json");
    long release = json_in__release(r->version), ours = json_in__release(SC_VERSION);
    if (release < 0 || release > ours) {
        char why[96];
        snprintf(why, sizeof(why), "'%s': %s this scalecheck (%s) can read", r->version,
                 release < 0 ? "not a release" : "newer than", SC_VERSION);
        return sc_json_refuse(src, (keys[0] = "version", keys), 1, "version", why);
    }
    const char *why = r->ranks < 1                                        ? "ranks"
                      : r->nhosts < 1 || r->nhosts > r->ranks             ? "nhosts"
                      : r->steps < 0                                      ? "steps"
                      : r->warmup < 0                                     ? "warmup"
                      : !(r->bytes_scale >= 0 && r->bytes_scale <= 1)     ? "bytes_scale"
                      : !(r->compute_scale >= 0 && r->compute_scale <= 1) ? "compute_scale"
                                                                          : NULL;
    if (why != NULL)
        return sc_json_refuse(src, (keys[0] = why, keys), 1, why,
                              "out of range (ranks >= 1, 1 <= nhosts <= ranks, counts >= 0, "
                              "scales in [0, 1])");
    return true;
}

/* The hosts and the libraries' versions: where and with what a result was measured (a
 * baseline records them). Nested values stay in the file. */
static void json_in__provenance(const json_t *doc, sc_result_t *r)
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

static bool json_in__points(sc_json_src_t *src, const json_t *doc, sc_result_t *r)
{
    size_t i;
    json_t *obj;
    if (!sc_json_read_list(src, doc, "points", &r->points, sizeof(sc_point_t), sc_point_fields))
        return false;
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
    return true;
}

/* A soak's figures, and its cycles from the journal beside result.json (none when it is gone). */
static void json_in__soak(sc_json_src_t *src, const json_t *doc, const char *dir, sc_result_t *r)
{
    const json_t *soak = json_object_get(doc, "soak");
    if (soak == NULL)
        return;
    r->soak_duration_s = json_number_value(json_object_get(soak, "duration_s"));
    r->soak_s = json_number_value(json_object_get(soak, "soak_s"));
    r->soak_launches = (int)json_integer_value(json_object_get(soak, "launches"));
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, SC_SOAK_JOURNAL);
    sc_soak_start_t start = {0};
    bool complete = false;
    struct stat st;
    if (stat(path, &st) == 0 && /* a journal that is there is read whole, or refused */
        sc_soak_journal_read(path, &start, &r->soak, &complete, src->err) != SC_OK)
        src->status = src->err->status;
    sc_soak_start_free(&start);
}

/* The record lists of a result, each through its field table; false at the first refusal. */
static bool json_in__lists(sc_json_src_t *src, const json_t *doc, sc_result_t *r)
{
    return json_in__points(src, doc, r) &&
           sc_json_read_list(src, doc, "sweep", &r->sweep, sizeof(sc_case_row_t),
                             sc_case_row_fields) &&
           sc_json_read_list(src, doc, "results", &r->cases, sizeof(sc_case_row_t),
                             sc_case_row_fields) &&
           sc_json_read_list(src, doc, "pairs", &r->pairs, sizeof(sc_pair_row_t),
                             sc_pair_row_fields) &&
           sc_json_read_list(src, doc, "groups", &r->groups, sizeof(sc_group_row_t),
                             sc_group_row_fields) &&
           sc_json_read_list(src, doc, "checks", &r->checks, sizeof(sc_check_t), sc_check_fields) &&
           sc_json_read_list(src, doc, "findings", &r->findings, sizeof(sc_finding_t),
                             sc_finding_fields) &&
           sc_json_read_list(src, doc, "preflight", &r->preflight, sizeof(sc_hostcfg_t),
                             sc_hostcfg_fields);
}

sc_status_t sc_json_load_result(const char *dir, sc_result_t *r, sc_err_t *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    sc_json_src_t src = {.path = path, .err = err};
    json_t *doc = sc_json_load(&src);
    if (doc == NULL)
        return src.status;
    const char *command = json_string_value(json_object_get(doc, "command"));
    if (!json_is_object(doc) || command == NULL) {
        json_decref(doc);
        sc_json_src_free(&src);
        return sc_err_set(err, SC_ERR_INPUT, "%s: not a scalecheck result (no command)", path);
    }
    sc_result_init(r, command);
    if (sc_json_read_record(&src, doc, r, json_in__header_fields, NULL, -1) &&
        json_in__header_sane(&src, doc, r) && json_in__lists(&src, doc, r)) {
        json_in__provenance(doc, r);
        r->judged = json_is_array(json_object_get(doc, "checks"));
        r->has_findings = json_is_array(json_object_get(doc, "findings"));
        json_in__soak(&src, doc, dir, r);
    }
    json_decref(doc);
    sc_json_src_free(&src);
    if (src.status != SC_OK)
        sc_result_free(r);
    return src.status;
}
