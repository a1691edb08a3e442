/* sc_drive_end.c - the final state of a measuring command's result document (sc_drive_end.h). */
#include "drive/sc_drive_end.h"
#include "comm/sc_comm_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/sc_json_in.h"
#include "report/sc_json_out.h"
#include "report/sc_prometheus.h"
#include "report/sc_report.h"
#include "sc_config.h"
#include "util/sc_files.h"

void sc_drive_doc_header(sc_result_t *d, const sc_session_t *ses, int argc, char **argv)
{
    const sc_rte_t *rte = ses->rte;
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(d->start_utc, sizeof(d->start_utc), "%Y-%m-%dT%H:%M:%SZ", &utc);
    snprintf(d->version, sizeof(d->version), "%s", SC_VERSION);
    snprintf(d->results_dir, sizeof(d->results_dir), "%s", ses->res.dir);
    snprintf(d->backend, sizeof(d->backend), "%s", sc_comm_name(ses->world));
    snprintf(d->backend_note, sizeof(d->backend_note), "%s", ses->note);
    d->ranks = rte->size;
    d->nhosts = rte->nhosts;
    if (ses->asked != NULL)
        d->asked = *ses->asked;
    if (argv != NULL) {
        d->argv = calloc((size_t)argc + 1, sizeof(char *));
        for (int i = 0; d->argv != NULL && i < argc; i++)
            d->argv[i] = strdup(argv[i]);
    }
    d->hosts = calloc((size_t)rte->nhosts, sizeof(*d->hosts));
    d->rank_hosts = calloc((size_t)rte->size, sizeof(*d->rank_hosts));
    for (int r = 0; d->hosts != NULL && d->rank_hosts != NULL && r < rte->size; r++) {
        memcpy(d->rank_hosts[r], rte->hosts[r], SC_HOST_MAX);
        memcpy(d->hosts[rte->host_index[r]], rte->hosts[r], SC_HOST_MAX);
    }
}

sc_status_t sc_drive_check_outputs(const sc_common_opts_t *c, sc_err_t *err)
{
    sc_status_t status = sc_files_check_output("--json", sc_common_path(c->json_path), err);
    if (status == SC_OK)
        status = sc_files_check_output("--csv", sc_common_path(c->csv_path), err);
    if (status == SC_OK)
        status = sc_files_check_output("--metrics", sc_common_path(c->metrics_path), err);
    return status;
}

/* The writers every ending walks (sc_drive_outputs). */
static sc_status_t drive_end__report(const char *dir, const sc_result_t *doc,
                                     const sc_drive_ending_t *e, sc_err_t *err)
{
    (void)e;
    return sc_report_render(dir, doc, err);
}

static sc_status_t drive_end__json(const char *dir, const sc_result_t *doc,
                                   const sc_drive_ending_t *e, sc_err_t *err)
{
    const char *json_path = e->common != NULL ? sc_common_path(e->common->json_path) : NULL;
    if (json_path == NULL)
        return SC_OK;
    /* the run directory's result.json is this document: a copy, not every row written again */
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    if (dir[0] != '\0' && sc_result_final(doc) && access(path, R_OK) == 0)
        return sc_files_copy(path, json_path, err);
    return sc_json_write_result(json_path, doc, err);
}

static sc_status_t drive_end__metrics(const char *dir, const sc_result_t *doc,
                                      const sc_drive_ending_t *e, sc_err_t *err)
{
    (void)dir;
    const char *metrics_path = e->common != NULL ? sc_common_path(e->common->metrics_path) : NULL;
    return metrics_path != NULL ? sc_prometheus_write(metrics_path, doc, err) : SC_OK;
}

static sc_status_t drive_end__own(const char *dir, const sc_result_t *doc,
                                  const sc_drive_ending_t *e, sc_err_t *err)
{
    (void)dir;
    return e->also != NULL ? e->also(e->ctx, doc, err) : SC_OK;
}

static const struct {
    const char *what;
    sc_status_t (*write)(const char *dir, const sc_result_t *doc, const sc_drive_ending_t *e,
                         sc_err_t *err);
} drive_end__writers[] = {
    {"the report (report/sc_report_outputs.c: summary.json, junit.xml, ...)", drive_end__report},
    {"--json", drive_end__json},
    {"--metrics", drive_end__metrics},
    {"the command's own files", drive_end__own},
};

sc_status_t sc_drive_outputs(const char *dir, const sc_result_t *doc,
                             const sc_drive_ending_t *ending, sc_err_t *err)
{
    sc_status_t first = SC_OK;
    size_t n = sizeof(drive_end__writers) / sizeof(drive_end__writers[0]);
    for (size_t i = 0; i < n; i++) {
        sc_err_t mine;
        sc_err_clear(&mine);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        sc_status_t status = drive_end__writers[i].write(dir, doc, ending, &mine);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (i == 0 && ending->report_s != NULL)
            *ending->report_s += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
        if (status == SC_OK || first != SC_OK)
            continue;
        first = sc_err_set(err, mine.status, "%s: %s", drive_end__writers[i].what, mine.msg);
    }
    return first;
}

void sc_drive_end_hook(void *arg, const char *dir, const sc_watchdog_end_t *end)
{
    const sc_drive_ending_t *ending = arg;
    if (ending->journal != NULL && *ending->journal != NULL)
        fflush(*ending->journal); /* stdio's lock: the main thread is not inside it, or done */
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    sc_err_t err;
    if (sc_json_mark_end(path, ending->command, end->state, end->reason, end->at_fault, &err) !=
        SC_OK) {
        fprintf(stderr, "scalecheck: the final state was not written: %s\n", err.msg);
        return;
    }
    sc_result_t doc;
    sc_result_init(&doc, ending->command); /* freed whatever the load did */
    sc_status_t status = sc_json_load_result(dir, &doc, &err);
    if (status == SC_OK && ending->noted != NULL) { /* what the ranks noted, kept too */
        ending->noted(ending->noted_ctx, &doc);
        status = sc_json_write_result(path, &doc, &err);
    }
    if (status == SC_OK && sc_drive_outputs(dir, &doc, ending, &err) != SC_OK)
        fprintf(stderr, "scalecheck: %s was not written\n", err.msg);
    sc_result_free(&doc);
}

sc_status_t sc_drive_save_doc(sc_session_t *ses, sc_result_t *doc, const char *state, sc_err_t *err)
{
    if (ses->rte == NULL || ses->rte->rank != 0 || ses->res.dir[0] == '\0')
        return SC_OK;
    snprintf(doc->state, sizeof(doc->state), "%s", state);
    struct tm start = {0};
    if (strptime(doc->start_utc, "%Y-%m-%dT%H:%M:%SZ", &start) != NULL)
        doc->elapsed_s = difftime(time(NULL), timegm(&start));
    /* the final state holds every row itself: the journal that held them while the run ran
     * goes once the document is written */
    char journal[sizeof(doc->journal)] = "";
    if (strcmp(state, "running") != 0) {
        snprintf(journal, sizeof(journal), "%s", doc->journal);
        doc->journal[0] = '\0';
    }
    char path[PATH_MAX];
    bool copy = journal[0] != '\0' && doc->journal_whole && doc->cases_file[0] == '\0' &&
                doc->cases_source == NULL;
    if (copy)
        sc_results_path(&ses->res, journal, doc->cases_file, sizeof(doc->cases_file));
    sc_session_lock(ses);
    sc_status_t status = sc_json_write_result(
        sc_results_path(&ses->res, "result.json", path, sizeof(path)), doc, err);
    if (copy)
        doc->cases_file[0] = '\0';
    if (status == SC_OK && journal[0] != '\0')
        unlink(sc_results_path(&ses->res, journal, path, sizeof(path)));
    else if (journal[0] != '\0')
        snprintf(doc->journal, sizeof(doc->journal), "%s", journal);
    sc_session_unlock(ses);
    return status;
}

sc_status_t sc_drive_complete(sc_session_t *ses, sc_result_t *doc, const sc_drive_ending_t *ending,
                              sc_err_t *err)
{
    sc_status_t status = sc_drive_save_doc(ses, doc, "complete", err);
    if (status == SC_OK && ses->rte != NULL && ses->rte->rank == 0)
        status = sc_drive_outputs(ses->res.dir, doc, ending, err);
    /* every command that leaves a report says where, last */
    if (status == SC_OK && ses->rte != NULL && ses->rte->rank == 0 && ses->res.dir[0] != '\0')
        sc_results_printf(&ses->res, "# report: %s/report.html\n", ses->res.dir);
    return status;
}

void sc_drive_save_failed(sc_session_t *ses, sc_result_t *doc, const sc_err_t *why,
                          const sc_drive_ending_t *ending)
{
    /* bad usage found after the session opened: the run directory goes (nothing on disk), and
     * nothing is written where --json or --metrics point */
    if (ses->rte == NULL || ses->rte->rank != 0 || ses->res.dir[0] == '\0' ||
        why->status == SC_ERR_USAGE)
        return;
    sc_session_say(ses, ses->rte, ending->command, why->status, why); /* before a peer's abort */
    snprintf(doc->reason, sizeof(doc->reason), "%s", why->msg);
    sc_session_culprits(ses, doc->at_fault, sizeof(doc->at_fault));
    if (ending->noted != NULL)
        ending->noted(ending->noted_ctx, doc);
    sc_err_t err;
    if (sc_drive_save_doc(ses, doc, "failed", &err) != SC_OK) {
        sc_results_release_reserve(&ses->res); /* a full disk: the space held back for this */
        if (sc_drive_save_doc(ses, doc, "failed", &err) != SC_OK) {
            fprintf(stderr, "scalecheck: the final state was not written: %s\n", err.msg);
            return;
        }
    }
    if (sc_drive_outputs(ses->res.dir, doc, ending, &err) != SC_OK)
        fprintf(stderr, "scalecheck: %s was not written\n", err.msg);
}
