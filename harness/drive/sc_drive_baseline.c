/* sc_drive_baseline.c - the --baseline FILE that coll, run, pairs and judge take: loaded before
 * anything runs, held to after the command's own checks (sc_drive_baseline.h). */
#include "drive/sc_drive_baseline.h"

#include <stdio.h>
#include <string.h>

#include "judge/sc_baseline.h"
#include "report/sc_json_in.h"

sc_status_t sc_drive_baseline_load(const char *path, sc_baseline_t *b, sc_err_t *err)
{
    if (path == NULL) {
        memset(b, 0, sizeof(*b));
        return SC_OK;
    }
    sc_status_t status = sc_json_load_baseline(path, b, err);
    if (status == SC_OK)
        sc_baseline_sort(b);
    return status;
}

void sc_drive_baseline_hold(const sc_baseline_t *b, const char *path, sc_result_t *doc)
{
    if (path == NULL)
        return;
    doc->judged = true;
    sc_kvs_text(&doc->options, "baseline", path);
    if (sc_verdict_baseline(b, doc, &doc->checks) > 0)
        return;
    sc_finding_t *f = SC_LIST_PUSH(&doc->findings);
    doc->has_findings = true;
    if (f == NULL)
        return;
    snprintf(f->severity, sizeof(f->severity), "warning");
    snprintf(f->what, sizeof(f->what), "the baseline has no point this run measured");
}
