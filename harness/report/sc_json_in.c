/* sc_json_in.c - result.json back into records: the header, the points, the case rows, the
 * pairs, the checks and the findings, each through its field table. What only a person reads
 * (rank_info, telemetry, the grid) stays in the file. */
#include "report/sc_json_in.h"
#include "util/sc_numtext.h"
#include "util/sc_files.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/sc_json_build.h"
#include "json/sc_json_check.h"
#include "sc_config.h"
#include "record/sc_shown.h"
#include "report/sc_json_soak.h"

/* The commands whose runs write a result.json. */
static const char *const json_in__result_commands[] = {"coll",      "run",    "pairs", "soak",
                                                       "preflight", "health", "judge", "calibrate",
                                                       "compute",   "node",   NULL};

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

/* A suspect a localisation named, read back; false (refused) when it is not one. */
static bool json_in__suspect(sc_json_src_t *src, const json_t *v, sc_suspect_t *s)
{
    const char *kind = json_string_value(json_object_get(v, "kind"));
    const char *where = json_string_value(json_object_get(v, "where"));
    const char *evidence = json_string_value(json_object_get(v, "evidence"));
    if (kind == NULL || where == NULL || evidence == NULL ||
        (strcmp(kind, "node") && strcmp(kind, "link") && strcmp(kind, "switch"))) {
        const char *keys[] = {"localization", "suspects"};
        return sc_json_refuse(src, keys, 2, "localization.suspects",
                              "a suspect is {kind: node|link|switch, where, evidence}");
    }
    snprintf(s->kind, sizeof(s->kind), "%s", kind);
    snprintf(s->where, sizeof(s->where), "%s", where);
    snprintf(s->evidence, sizeof(s->evidence), "%s", evidence);
    return true;
}

/* A pairs run's participants, strategy and localisation (the suspects decide its verdict:
 * sc_result_verdict), so that a report made again says what the run said. */
static bool json_in__pairs(sc_json_src_t *src, const json_t *doc, sc_result_t *r)
{
    const json_t *names = json_object_get(doc, "names"),
                 *loc = json_object_get(doc, "localization");
    const char *strategy = json_string_value(json_object_get(doc, "strategy"));
    snprintf(r->strategy, sizeof(r->strategy), "%s", strategy ? strategy : "");
    size_t n = json_array_size(names);
    r->pair_names = n ? calloc(n, sizeof(*r->pair_names)) : NULL;
    for (size_t i = 0; r->pair_names != NULL && i < n; i++)
        snprintf(r->pair_names[i], sizeof(r->pair_names[i]), "%s",
                 json_string_value(json_array_get(names, i))
                     ? json_string_value(json_array_get(names, i))
                     : "");
    r->npairs_nodes = r->pair_names != NULL ? (int)n : 0;
    if (!json_is_object(loc))
        return true;
    sc_localization_t *l = &r->localization;
    r->has_localization = true;
    l->reference_GBps = json_number_value(json_object_get(loc, "reference_GBps"));
    const char *note = json_string_value(json_object_get(loc, "reference_note"));
    snprintf(l->reference_note, sizeof(l->reference_note), "%s", note ? note : "");
    const json_t *suspects = json_object_get(loc, "suspects");
    size_t k = json_array_size(suspects);
    l->suspects = k ? calloc(k, sizeof(*l->suspects)) : NULL;
    for (size_t i = 0; l->suspects != NULL && i < k; i++, l->nsuspects++)
        if (!json_in__suspect(src, json_array_get(suspects, i), &l->suspects[i]))
            return false;
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

bool sc_json_journal_read(sc_json_src_t *src, const char *dir, const char *name,
                          sc_case_rows_t *rows)
{
    if (strchr(name, '/') != NULL || name[0] == '.' || name[0] == '\0') {
        const char *keys[] = {"journal"};
        return sc_json_refuse(src, keys, 1, "journal", "not a file name beside result.json");
    }
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return true; /* rows lost with the journal: the document says what it can */
    sc_json_src_t lines = {.path = path, .err = src->err};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool ok = true;
    for (lines.line = 1; ok && (len = getline(&line, &cap, f)) > 0; lines.line++) {
        if (line[len - 1] != '\n')
            break; /* torn: the run ended while writing it */
        json_error_t jerr;
        json_t *obj = json_loadb(line, (size_t)len, 0, &jerr);
        sc_case_row_t *row = obj != NULL ? SC_LIST_PUSH(rows) : NULL;
        ok = row != NULL && sc_json_read_record(&lines, obj, row, sc_case_row_fields, NULL, -1);
        if (obj != NULL && row == NULL)
            lines.status = sc_err_set(src->err, SC_ERR_NOMEM, "%s: no memory for its rows", path);
        if (obj == NULL)
            sc_json_refuse(&lines, NULL, 0, "a row", jerr.text);
        json_decref(obj);
    }
    free(line);
    fclose(f);
    src->status = lines.status;
    return ok;
}

/* ---- a result read for what a person is shown (record/sc_shown.h): its rows and checks
 * streamed past, those kept parsed, the others counted ---- */
typedef struct {
    sc_shown_t shown;
    sc_result_t *r;
    sc_json_src_t *src;
} json_in__listed_t;

static bool json_in__nomem(json_in__listed_t *l)
{
    l->src->status = sc_err_set(l->src->err, SC_ERR_NOMEM, "%s: no memory", l->src->path);
    return false;
}

static bool json_in__want_row(void *ctx, long index, const char *text, size_t len)
{
    (void)index, (void)text, (void)len;
    json_in__listed_t *l = ctx;
    if (sc_shown_wants_row(&l->shown))
        return true;
    sc_shown_pass_row(&l->shown);
    return false;
}

static bool json_in__take_row(void *ctx, void *record)
{
    json_in__listed_t *l = ctx;
    return sc_shown_row(&l->shown, l->r, record, false) || json_in__nomem(l);
}

/* A check passed by is counted from its verdict (and disturbance) alone; a verdict that is not
 * a level is read whole, and refused there. */
static bool json_in__want_check(void *ctx, long index, const char *text, size_t len)
{
    (void)index;
    json_in__listed_t *l = ctx;
    char verdict[16], disturbance[8];
    int level = text != NULL && sc_json_peek_text(text, len, "verdict", verdict, sizeof(verdict))
                    ? sc_level_parse(verdict)
                    : -1;
    if (level < 0 || sc_shown_wants_check(&l->shown, (sc_level_t)level))
        return true;
    sc_check_t c = {.level = (sc_level_t)level};
    c.disturbance = level != SC_LEVEL_PASS &&
                    sc_json_peek_text(text, len, "disturbance", disturbance, sizeof(disturbance)) &&
                    strcmp(disturbance, "true") == 0;
    sc_shown_pass_check(&l->shown, &c);
    return false;
}

static bool json_in__take_check(void *ctx, void *record)
{
    json_in__listed_t *l = ctx;
    return sc_shown_check(&l->shown, l->r, record) || json_in__nomem(l);
}

/* ---- a result whose case rows go to a reader as they are read (a baseline of ten runs of a
 * million rows): the few fields a figure needs taken from each row's text where they are plain,
 * the row parsed and checked whole where they are not ---- */
typedef struct {
    const sc_json_cases_t *to;
    bool sweep;
    sc_json_src_t *src;
} json_in__cases_t;

/* A row's figure fields, read from its text: false when one is absent or not plainly valid
 * (the row is then parsed whole, and refused there if it is wrong). */
static bool json_in__case_fields(const char *text, size_t len, sc_case_row_t *row)
{
    static const char *const keys[] = {"collective", "dtype",    "op",
                                       "size_bytes", "in_place", "time_us"};
    char v[6][SC_JSON_PEEK_MAX];
    if (text == NULL || sc_json_peek_texts(text, len, keys, 6, v) != 6)
        return false;
    memset(row, 0, sizeof(*row));
    char *texts[] = {row->collective, row->dtype, row->op};
    const size_t sizes[] = {sizeof(row->collective), sizeof(row->dtype), sizeof(row->op)};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(v[k]);
        if (n < 2 || n - 2 >= sizes[k] || v[k][0] != '"' || v[k][n - 1] != '"' ||
            strpbrk(v[k] + 1, "\\") != NULL)
            return false;
        memcpy(texts[k], v[k] + 1, n - 2);
        texts[k][n - 2] = '\0';
    }
    char *end;
    errno = 0;
    row->size_bytes = strtoull(v[3], &end, 10);
    if (v[3][0] < '0' || v[3][0] > '9' || *end != '\0' || errno != 0)
        return false;
    row->in_place = strcmp(v[4], "true") == 0;
    row->time_us = sc_numtext_parse(v[5], &end);
    return (row->in_place || strcmp(v[4], "false") == 0) && *end == '\0' &&
           isfinite(row->time_us) && row->time_us >= 0 &&
           row->time_us <= sc_json_unit_max("time_us");
}

static bool json_in__want_case(void *ctx, long index, const char *text, size_t len)
{
    (void)index;
    json_in__cases_t *c = ctx;
    sc_case_row_t row;
    if (!json_in__case_fields(text, len, &row))
        return true;
    if (!c->to->row(c->to->ctx, c->sweep, &row) && c->src->status == SC_OK)
        c->src->status = SC_ERR_NOMEM; /* the reader said why in its own err */
    return false;
}

static bool json_in__take_case(void *ctx, void *record)
{
    json_in__cases_t *c = ctx;
    if (c->to->row(c->to->ctx, c->sweep, record))
        return true;
    c->src->status = SC_ERR_NOMEM;
    return false;
}

static bool json_in__cases(sc_json_src_t *src, const json_t *doc, const char *key,
                           const sc_json_cases_t *to)
{
    json_in__cases_t c = {to, strcmp(key, "sweep") == 0, src};
    sc_case_row_t row;
    sc_json_visit_t v = {json_in__want_case, json_in__take_case, &c};
    return sc_json_visit_list(src, doc, key, &row, sizeof(row), sc_case_row_fields, &v) &&
           src->status == SC_OK;
}

/* results and checks into r, thinned to `limit` each (0: every one); with a cases reader, the
 * rows go to it and the checks are only counted. */
static bool json_in__listed(sc_json_src_t *src, const json_t *doc, sc_result_t *r, size_t limit,
                            const sc_json_cases_t *cases)
{
    json_in__listed_t l = {.r = r, .src = src};
    sc_shown_init(&l.shown, cases != NULL ? 1 : limit);
    sc_case_row_t row;
    sc_check_t check;
    sc_json_visit_t rows = {json_in__want_row, json_in__take_row, &l};
    sc_json_visit_t checks = {json_in__want_check, json_in__take_check, &l};
    bool ok =
        (cases != NULL ? json_in__cases(src, doc, "results", cases)
                       : sc_json_visit_list(src, doc, "results", &row, sizeof(row),
                                            sc_case_row_fields, &rows)) &&
        sc_json_visit_list(src, doc, "checks", &check, sizeof(check), sc_check_fields, &checks);
    sc_shown_finish(&l.shown, r);
    return ok;
}

/* The record lists of a result, each through its field table; false at the first refusal. */
static bool json_in__lists(sc_json_src_t *src, const json_t *doc, sc_result_t *r, size_t limit,
                           const sc_json_cases_t *cases)
{
    return json_in__points(src, doc, r) &&
           (cases != NULL ? json_in__cases(src, doc, "sweep", cases)
                          : sc_json_read_list(src, doc, "sweep", &r->sweep, sizeof(sc_case_row_t),
                                              sc_case_row_fields)) &&
           json_in__listed(src, doc, r, limit, cases) &&
           sc_json_read_list(src, doc, "pairs", &r->pairs, sizeof(sc_pair_row_t),
                             sc_pair_row_fields) &&
           sc_json_read_list(src, doc, "groups", &r->groups, sizeof(sc_group_row_t),
                             sc_group_row_fields) &&
           sc_json_read_list(src, doc, "traffic", &r->traffic, sizeof(sc_traffic_row_t),
                             sc_traffic_row_fields) &&
           sc_json_read_list(src, doc, "node", &r->node, sizeof(sc_node_row_t),
                             sc_node_row_fields) &&
           sc_json_read_list(src, doc, "findings", &r->findings, sizeof(sc_finding_t),
                             sc_finding_fields) &&
           sc_json_read_list(src, doc, "preflight", &r->preflight, sizeof(sc_hostcfg_t),
                             sc_hostcfg_fields);
}

sc_status_t sc_json_load_result(const char *dir, sc_result_t *r, sc_err_t *err)
{
    return sc_json_load_result_listed(dir, r, 0, err);
}

static sc_status_t json_in__load(const char *dir, sc_result_t *r, size_t limit,
                                 const sc_json_cases_t *cases, sc_err_t *err);

sc_status_t sc_json_load_result_listed(const char *dir, sc_result_t *r, size_t limit, sc_err_t *err)
{
    return json_in__load(dir, r, limit, NULL, err);
}

sc_status_t sc_json_load_result_cases(const char *dir, sc_result_t *r, const sc_json_cases_t *to,
                                      sc_err_t *err)
{
    return json_in__load(dir, r, 0, to, err);
}

static sc_status_t json_in__load(const char *dir, sc_result_t *r, size_t limit,
                                 const sc_json_cases_t *cases, sc_err_t *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    /* a run's rows, its pairs and its checks can be millions: read a row at a time */
    static const char *const streamed[] = {"results", "sweep", "pairs", "checks", NULL};
    sc_json_src_t src = {.path = path, .err = err, .streamed = streamed};
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
    if (sc_json_read_record(&src, doc, r, sc_result_header_fields, NULL, -1) &&
        sc_json_read_record(&src, doc, r, sc_result_run_fields, NULL, -1) &&
        json_in__header_sane(&src, doc, r) && json_in__lists(&src, doc, r, limit, cases) &&
        (r->journal[0] == '\0' || r->cases.n > 0 ||
         sc_json_journal_read(&src, dir, r->journal, &r->cases))) {
        json_in__provenance(doc, r);
        r->judged = json_is_array(json_object_get(doc, "checks"));
        r->has_findings = json_is_array(json_object_get(doc, "findings"));
        json_in__soak(&src, doc, dir, r);
        if (!strcmp(r->command, "pairs"))
            json_in__pairs(&src, doc, r);
    }
    json_decref(doc);
    sc_json_src_free(&src);
    if (src.status != SC_OK)
        sc_result_free(r);
    return src.status;
}
