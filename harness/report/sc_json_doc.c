/* sc_json_doc.c - the result document (coll, run, pairs) and summary.json, rendered from the
 * result record: the header, what was measured, what was judged, the telemetry. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report/sc_json_build.h"
#include "report/sc_json_soak.h"
#include "report/sc_json_out.h"

static json_t *json_doc__strings(char (*list)[SC_HOST_MAX], int n)
{
    json_t *a = json_array();
    for (int i = 0; list != NULL && i < n; i++)
        json_array_append_new(a, json_string(list[i]));
    return a;
}

static void json_doc__set_text(json_t *doc, const char *key, const char *text)
{
    if (text[0] != '\0')
        json_object_set_new(doc, key, json_string(text));
}

/* fields' values set into doc, in the table's order */
static void json_doc__fields(json_t *doc, const sc_result_t *r, const sc_field_t *fields)
{
    json_t *values = sc_json_record(r, fields);
    json_object_update(doc, values);
    json_decref(values);
}

/* What every command's document starts with: the header's field table, then its lists. */
static json_t *json_doc__header(const sc_result_t *r)
{
    json_t *doc = json_pack("{s:s}", "tool", "scalecheck");
    json_doc__fields(doc, r, sc_result_header_fields);
    if (r->argv != NULL) {
        json_t *args = json_array();
        for (char **a = r->argv; *a; a++)
            json_array_append_new(args, json_string(*a));
        json_object_set_new(doc, "argv", args);
    }
    if (r->hosts != NULL)
        json_object_set_new(doc, "hosts", json_doc__strings(r->hosts, r->nhosts));
    if (r->rank_hosts != NULL)
        json_object_set_new(doc, "rank_hosts", json_doc__strings(r->rank_hosts, r->ranks));
    if (r->libraries.n > 0)
        json_object_set_new(doc, "libraries", sc_json_kvs(&r->libraries));
    if (r->options.n > 0)
        json_object_set_new(doc, "options", sc_json_kvs(&r->options));
    if (r->rank_info != NULL) {
        json_t *info = json_array();
        for (int i = 0; i < r->ranks; i++)
            json_array_append_new(info, sc_json_kvs(&r->rank_info[i]));
        json_object_set_new(doc, "rank_info", info);
    }
    return doc;
}

static json_t *json_doc__grid_json(const sc_point_t *p)
{
    json_t *rows = json_array();
    for (int r = 0; r < p->ngrid; r++) {
        const sc_grid_row_t *g = &p->grid[r];
        const int *groups[3] = {g->tp_group, g->pp_group, g->dp_group};
        const int sizes[3] = {p->tp, p->pp, p->dp};
        json_t *lists[3];
        for (int k = 0; k < 3; k++) {
            lists[k] = json_array();
            for (int i = 0; i < sizes[k]; i++)
                json_array_append_new(lists[k], json_integer(groups[k][i]));
        }
        json_t *row =
            json_pack("{s:i, s:i, s:i, s:i, s:o, s:o, s:o}", "rank", g->rank, "d", g->d, "p", g->p,
                      "t", g->t, "tp_group", lists[0], "pp_group", lists[1], "dp_group", lists[2]);
        if (g->compute_tflops == g->compute_tflops) /* NaN: no products ran */
            json_object_set_new(row, "compute_tflops", json_real(g->compute_tflops));
        if (g->device[0] != '\0')
            json_object_set_new(row, "device", json_string(g->device));
        json_array_append_new(rows, row);
    }
    return rows;
}

static json_t *json_doc__points_json(const sc_points_t *points)
{
    json_t *list = json_array();
    for (size_t i = 0; i < points->n; i++) {
        const sc_point_t *p = &points->items[i];
        json_t *obj = sc_json_record(p, sc_point_fields), *comm = json_object();
        for (int k = 0; k < p->ncomm; k++)
            json_object_set_new(comm, p->comm[k].op,
                                json_pack("{s:f, s:f, s:f}", "calls", p->comm[k].calls, "bytes",
                                          p->comm[k].bytes, "sent_bytes", p->comm[k].sent_bytes));
        json_object_set_new(obj, "comm", comm);
        if (p->grid != NULL)
            json_object_set_new(obj, "grid", json_doc__grid_json(p));
        json_array_append_new(list, obj);
    }
    return list;
}

static json_t *json_doc__rows(const sc_case_rows_t *rows)
{
    return sc_json_rows(rows->items, rows->n, sizeof(*rows->items), sc_case_row_fields);
}

static void json_doc__run_part(const sc_result_t *r, json_t *doc)
{
    json_doc__fields(doc, r, sc_result_run_fields);
    json_object_set_new(doc, "points", json_doc__points_json(&r->points));
    if (r->sweep.n > 0)
        json_object_set_new(doc, "sweep", json_doc__rows(&r->sweep));
}

static void json_doc__coll_part(const sc_result_t *r, json_t *doc)
{
    /* at fleet scale the rows are in a file, r->cases only those shown */
    json_object_set_new(doc, "results",
                        r->cases_source    ? sc_json_source_rows(r->cases_source)
                        : r->cases_file[0] ? sc_json_file_rows(r->cases_file)
                                           : json_doc__rows(&r->cases));
    if (sc_present(r->avg_busbw_GBps))
        json_object_set_new(doc, "summary",
                            json_pack("{s:I, s:f, s:I}", "wrong_total", (json_int_t)r->wrong_total,
                                      "avg_busbw_GBps", r->avg_busbw_GBps, "cases",
                                      (json_int_t)(r->cases.n + r->cases_unlisted)));
}

static json_t *json_doc__localization_json(const sc_localization_t *l)
{
    json_t *slow = json_array(), *suspects = json_array();
    for (int i = 0; i < l->nslow; i++)
        json_array_append_new(slow, json_pack("{s:s, s:s, s:f}", "a", l->slow_pairs[i].a, "b",
                                              l->slow_pairs[i].b, "GBps", l->slow_pairs[i].GBps));
    for (int i = 0; i < l->nsuspects; i++)
        json_array_append_new(suspects,
                              json_pack("{s:s, s:s, s:s}", "kind", l->suspects[i].kind, "where",
                                        l->suspects[i].where, "evidence", l->suspects[i].evidence));
    return json_pack("{s:f, s:f, s:f, s:o, s:o, s:o}", "reference_GBps", l->reference_GBps,
                     "best_GBps", l->best_GBps, "tolerance", l->tolerance, "slow_pairs", slow,
                     "suspects", suspects, "reference_note",
                     l->reference_note[0] ? json_string(l->reference_note) : json_null());
}

static void json_doc__pairs_part(const sc_result_t *r, json_t *doc)
{
    int n = r->npairs_nodes;
    json_t *names = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(names, json_string(r->pair_names[i]));
    json_object_set_new(doc, "names", names);
    json_object_set_new(doc, "mode", json_string(r->mode));
    json_object_set_new(doc, "per", json_string(r->per));
    json_object_set_new(doc, "method", json_string(r->method));
    json_object_set_new(doc, "strategy", json_string(r->strategy));
    json_object_set_new(doc, "rounds", json_integer(r->pair_rounds));
    json_object_set_new(doc, "pairs_measured", json_integer(r->pairs_measured));
    json_object_set_new(doc, "busy_rounds", json_integer(r->pair_busy_rounds));
    json_object_set_new(doc, "groups",
                        sc_json_records(r->groups.items, r->groups.n, sizeof(*r->groups.items),
                                        sc_group_row_fields));
    json_object_set_new(doc, "size_bytes", json_integer((json_int_t)r->pair_size_bytes));
    json_object_set_new(doc, "iters", json_integer(r->pair_iters));
    json_object_set_new(doc, "looks", json_integer(r->looks));
    if (r->uni == NULL)
        return;
    json_object_set_new(doc, "uni_GBps", sc_json_matrix(r->uni, n));
    /* later looks run each pair alone: in concurrent mode a pair slow only under the load of the
     * others passes at a later look, and this keeps what the first look saw */
    if (r->uni_first != NULL) /* not while the rounds run */
        json_object_set_new(doc, "uni_first_look_GBps", sc_json_matrix(r->uni_first, n));
    if (r->bidir != NULL)
        json_object_set_new(doc, "bidir_GBps", sc_json_matrix(r->bidir, n));
    if (r->latency != NULL)
        json_object_set_new(doc, "latency_us", sc_json_matrix(r->latency, n));
    json_object_set_new(
        doc, "pairs",
        sc_json_rows(r->pairs.items, r->pairs.n, sizeof(*r->pairs.items), sc_pair_row_fields));
    if (r->has_localization)
        json_object_set_new(doc, "localization", json_doc__localization_json(&r->localization));
}

static json_t *json_doc__result_json(const sc_result_t *r)
{
    json_t *doc = json_doc__header(r);
    if (strcmp(r->command, "run") == 0)
        json_doc__run_part(r, doc);
    else if (strcmp(r->command, "coll") == 0 || strcmp(r->command, "judge") == 0)
        json_doc__coll_part(r, doc);
    else if (strcmp(r->command, "pairs") == 0)
        json_doc__pairs_part(r, doc);
    else if (strcmp(r->command, "soak") == 0) { /* the cycles are the journal's */
        json_object_set_new(doc, "soak",
                            json_pack("{s:f, s:f, s:i, s:i, s:s}", "duration_s", r->soak_duration_s,
                                      "soak_s", r->soak_s, "cycles", (int)r->soak.n, "launches",
                                      r->soak_launches, "journal", SC_SOAK_JOURNAL));
        json_object_set_new(doc, "bytes_scale", json_real(r->bytes_scale)); /* shrunk: said */
        json_object_set_new(doc, "compute_scale", json_real(r->compute_scale));
    }
    if (r->node.n > 0)
        json_object_set_new(
            doc, "node",
            sc_json_records(r->node.items, r->node.n, sizeof(*r->node.items), sc_node_row_fields));
    if (r->traffic.n > 0)
        json_object_set_new(doc, "traffic",
                            sc_json_records(r->traffic.items, r->traffic.n,
                                            sizeof(*r->traffic.items), sc_traffic_row_fields));
    if (r->has_findings)
        json_object_set_new(doc, "findings",
                            sc_json_records(r->findings.items, r->findings.n,
                                            sizeof(*r->findings.items), sc_finding_fields));
    if (r->preflight.n > 0)
        json_object_set_new(doc, "preflight",
                            sc_json_records(r->preflight.items, r->preflight.n,
                                            sizeof(*r->preflight.items), sc_hostcfg_fields));
    if (r->judged) {
        json_object_set_new(doc, "checks",
                            r->checks_file[0]
                                ? sc_json_joined_rows(r->checks_file)
                                : sc_json_rows(r->checks.items, r->checks.n,
                                               sizeof(*r->checks.items), sc_check_fields));
        json_object_set_new(doc, "verdict",
                            r->cases_source ? sc_json_tally_later(r) : sc_json_tally(r));
    }
    if (r->health != NULL)
        json_object_set_new(doc, "telemetry", sc_json_health(r->health, r->nhealth));
    return doc;
}

sc_status_t sc_json_write_result(const char *path, const sc_result_t *r, sc_err_t *err)
{
    return sc_json_write_new(path, json_doc__result_json(r), err);
}

sc_status_t sc_json_mark_end(const char *path, const char *command, const char *state,
                             const char *reason, const char *at_fault, sc_err_t *err)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!json_is_object(doc)) { /* nothing written yet: the ending is the whole document */
        json_decref(doc);
        doc = json_pack("{s:s, s:s}", "tool", "scalecheck", "command", command);
    }
    json_object_set_new(doc, "state", json_string(state));
    json_object_set_new(doc, "reason", json_string(reason));
    if (at_fault[0] != '\0')
        json_object_set_new(doc, "at_fault", json_string(at_fault));
    /* the rows the journal holds go into the final state, and the journal with them */
    char dir[PATH_MAX], journal[PATH_MAX] = "";
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    else
        snprintf(dir, sizeof(dir), ".");
    const char *name = json_string_value(json_object_get(doc, "journal"));
    sc_case_rows_t rows = {0};
    sc_json_src_t src = {.path = path, .err = err};
    if (name != NULL && json_array_size(json_object_get(doc, "results")) == 0) {
        if (!sc_json_journal_read(&src, dir, name, &rows)) {
            json_decref(doc);
            sc_list_free(&rows);
            return src.status;
        }
        snprintf(journal, sizeof(journal), "%s/%s", dir, name);
        json_object_set_new(
            doc, "results",
            sc_json_rows(rows.items, rows.n, sizeof(*rows.items), sc_case_row_fields));
        json_object_del(doc, "journal");
    }
    sc_status_t status = sc_json_write_new(path, doc, err);
    if (status == SC_OK && journal[0] != '\0')
        unlink(journal);
    sc_list_free(&rows);
    return status;
}

sc_status_t sc_json_write_summary(const char *path, const sc_result_t *r, const char *const *plots,
                                  int nplots, const char *plots_note, sc_err_t *err)
{
    json_t *summary = r->judged ? sc_json_tally(r) : json_pack("{s:s}", "verdict", "NONE");
    if (sc_result_incomplete(r)) { /* whatever was judged, the run did not finish */
        json_object_set_new(summary, "verdict", json_string("INCOMPLETE"));
        json_doc__set_text(summary, "reason", r->reason);
        json_doc__set_text(summary, "at_fault", r->at_fault);
    }
    json_t *list = json_array();
    for (int i = 0; i < nplots; i++)
        json_array_append_new(list, json_string(plots[i]));
    json_object_set_new(summary, "plots", list);
    if (plots_note != NULL && plots_note[0] != '\0')
        json_object_set_new(summary, "plots_note", json_string(plots_note));
    if (r->cases_unlisted > 0 || r->unlisted.checks > 0) /* a fleet's: what the reports list */
        json_object_set_new(summary, "listed",
                            json_pack("{s:I, s:I, s:I, s:I}", "rows", (json_int_t)r->cases.n,
                                      "of_rows", (json_int_t)(r->cases.n + r->cases_unlisted),
                                      "checks", (json_int_t)r->checks.n, "of_checks",
                                      (json_int_t)(r->checks.n + (size_t)r->unlisted.checks)));
    json_object_set_new(summary, "command", json_string(r->command));
    json_doc__set_text(summary, "workload", r->workload);
    json_doc__set_text(summary, "topology", r->topology);
    json_doc__set_text(summary, "backend", r->backend);
    json_doc__set_text(summary, "state", r->state);
    json_object_set_new(summary, "ranks", json_integer(r->ranks));
    json_object_set_new(summary, "nhosts", json_integer(r->nhosts));
    return sc_json_write_new(path, summary, err);
}
