/* sc_drive_end.c - the final state of a measuring command's result document (sc_drive_end.h). */
#include "drive/sc_drive_end.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/sc_json_in.h"
#include "report/sc_json_out.h"
#include "report/sc_prometheus.h"
#include "sc_config.h"

void sc_drive_doc_header(sc_result_t *d, const sc_session_t *ses, int argc, char **argv)
{
    const sc_rte_t *rte = ses->rte;
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(d->start_utc, sizeof(d->start_utc), "%Y-%m-%dT%H:%M:%SZ", &utc);
    snprintf(d->version, sizeof(d->version), "%s", SC_VERSION);
    snprintf(d->results_dir, sizeof(d->results_dir), "%s", ses->res.dir);
    snprintf(d->backend, sizeof(d->backend), "%s", ses->world->ops->name);
    snprintf(d->backend_note, sizeof(d->backend_note), "%s", ses->note);
    d->ranks = rte->size;
    d->nhosts = rte->nhosts;
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

/* metrics.prom in dir, and at metrics_path when given; a failure is said, not fatal. */
static void drive_end__metrics(const char *dir, const sc_result_t *doc, const char *metrics_path)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/metrics.prom", dir);
    sc_err_t err;
    if (sc_prometheus_write(path, doc, &err) != SC_OK ||
        (metrics_path != NULL && sc_prometheus_write(metrics_path, doc, &err) != SC_OK))
        fprintf(stderr, "scalecheck: the metrics were not written: %s\n", err.msg);
}

void sc_drive_end_hook(void *arg, const char *dir, const sc_watchdog_end_t *end)
{
    const sc_drive_ending_t *ending = arg;
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
    if (sc_json_load_result(dir, &doc, &err) == SC_OK) {
        drive_end__metrics(dir, &doc, ending->metrics_path);
        if (ending->json_path != NULL &&
            sc_json_write_result(ending->json_path, &doc, &err) != SC_OK)
            fprintf(stderr, "scalecheck: --json was not written: %s\n", err.msg);
        if (ending->also != NULL)
            ending->also(ending->ctx, &doc);
    }
    sc_result_free(&doc);
}

static sc_status_t drive_end__write(sc_session_t *ses, const sc_result_t *doc,
                                    const char *json_path, sc_err_t *err)
{
    char path[PATH_MAX];
    sc_session_lock(ses);
    sc_status_t status = sc_json_write_result(
        sc_results_path(&ses->res, "result.json", path, sizeof(path)), doc, err);
    sc_session_unlock(ses);
    if (status == SC_OK && json_path != NULL)
        status = sc_json_write_result(json_path, doc, err);
    return status;
}

sc_status_t sc_drive_save_doc(sc_session_t *ses, sc_result_t *doc, const char *state,
                              const char *json_path, sc_err_t *err)
{
    if (ses->rte == NULL || ses->rte->rank != 0 || ses->res.dir[0] == '\0')
        return SC_OK;
    snprintf(doc->state, sizeof(doc->state), "%s", state);
    struct tm start = {0};
    if (strptime(doc->start_utc, "%Y-%m-%dT%H:%M:%SZ", &start) != NULL)
        doc->elapsed_s = difftime(time(NULL), timegm(&start));
    return drive_end__write(ses, doc, json_path, err);
}

void sc_drive_save_failed(sc_session_t *ses, sc_result_t *doc, const sc_err_t *why,
                          const char *json_path, const char *metrics_path)
{
    /* bad usage found after the session opened: the run directory goes (nothing on disk), and
     * nothing is written where --json or --metrics point */
    if (ses->rte == NULL || ses->rte->rank != 0 || ses->res.dir[0] == '\0' ||
        why->status == SC_ERR_USAGE)
        return;
    snprintf(doc->reason, sizeof(doc->reason), "%s", why->msg);
    sc_session_culprits(ses, doc->at_fault, sizeof(doc->at_fault));
    sc_err_t ignored;
    if (sc_drive_save_doc(ses, doc, "failed", json_path, &ignored) != SC_OK) {
        sc_results_release_reserve(&ses->res); /* a full disk: the space held back for this */
        if (sc_drive_save_doc(ses, doc, "failed", NULL, &ignored) != SC_OK) {
            fprintf(stderr, "scalecheck: the final state was not written: %s\n", ignored.msg);
            return;
        }
    }
    drive_end__metrics(ses->res.dir, doc, metrics_path);
}
