/* sc_cmd_end.c - the final state of a measuring command's result document (sc_cmd_end.h). */
#include "cli/sc_cmd_end.h"

#include <stdio.h>

#include "report/sc_json_out.h"

void sc_cmd_end_hook(void *arg, const char *dir, const sc_watchdog_end_t *end)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/.reserve", dir);
    remove(path); /* the space held back for this write */
    snprintf(path, sizeof(path), "%s/result.json", dir);
    sc_err_t err;
    if (sc_json_mark_end(path, arg, end->state, end->reason, end->at_fault, &err) != SC_OK)
        fprintf(stderr, "scalecheck: the final state was not written: %s\n", err.msg);
}

static sc_status_t sc__write(sc_session_t *ses, const sc_result_t *doc, const char *json_path,
                             sc_err_t *err)
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

sc_status_t sc_cmd_save_doc(sc_session_t *ses, sc_result_t *doc, const char *state,
                            const char *json_path, sc_err_t *err)
{
    if (ses->rte == NULL || ses->rte->rank != 0 || ses->res.dir[0] == '\0')
        return SC_OK;
    snprintf(doc->state, sizeof(doc->state), "%s", state);
    return sc__write(ses, doc, json_path, err);
}

void sc_cmd_save_failed(sc_session_t *ses, sc_result_t *doc, const sc_err_t *why,
                        const char *json_path)
{
    if (ses->rte == NULL || ses->rte->rank != 0 || ses->res.dir[0] == '\0')
        return;
    snprintf(doc->reason, sizeof(doc->reason), "%s", why->msg);
    sc_session_culprits(ses, doc->at_fault, sizeof(doc->at_fault));
    sc_err_t ignored;
    if (sc_cmd_save_doc(ses, doc, "failed", json_path, &ignored) == SC_OK)
        return;
    sc_results_release_reserve(&ses->res); /* a full disk: the space held back for this */
    if (sc_cmd_save_doc(ses, doc, "failed", NULL, &ignored) != SC_OK)
        fprintf(stderr, "scalecheck: the final state was not written: %s\n", ignored.msg);
}
