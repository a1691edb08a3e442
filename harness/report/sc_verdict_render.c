/* sc_verdict_render.c - the checks for people (a compact table, coloured on a terminal) and
 * for CI (junit.xml); the findings as lines. */
#include "sc_verdict_render.h"

#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sc_files.h"

/* "# verdict: PASS (n pass, n warn, n fail)", over the checks listed and those not */
static void verdict_render__tally_line(const sc_checks_t *checks, sc_tally_t unlisted,
                                       const char *kept, char *line, size_t len)
{
    sc_tally_t t = sc_tally_sum(sc_checks_tally(checks), unlisted);
    char more[192] = "";
    if (unlisted.checks > 0)
        snprintf(more, sizeof(more), "# %d more checks (%d not PASS) are not listed here: %s\n",
                 unlisted.checks, unlisted.checks - unlisted.pass, kept);
    snprintf(line, len, "%s# verdict: %s (%d pass, %d warn, %d fail)%s\n", more,
             sc_tally_verdict(t), t.pass, t.warn, t.fail,
             t.inconclusive ? "\n# " SC_INCONCLUSIVE_TEXT
                              " - run it again on a quiet, whole machine"
                            : "");
}

static bool verdict_render__set(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0';
}

/* Whether the verdict is coloured. no-color.org: NO_COLOR set and not empty turns it off.
 * Under an MPI launcher a rank's stdout is Open MPI's pty even when mpirun's own output goes to
 * a file, so a rank cannot tell from isatty: it colours only when the launcher (launch/
 * mpirun.sh, scripts/acceptance.sh), whose stdout is the terminal, says so with CLICOLOR_FORCE.
 * A process started alone trusts isatty. */
static bool verdict_render__colour(FILE *out)
{
    if (verdict_render__set("NO_COLOR"))
        return false;
    if (verdict_render__set("CLICOLOR_FORCE"))
        return strcmp(getenv("CLICOLOR_FORCE"), "0") != 0;
    bool launched = verdict_render__set("OMPI_COMM_WORLD_SIZE") ||
                    verdict_render__set("PMIX_RANK") || verdict_render__set("PMI_SIZE");
    return !launched && isatty(fileno(out));
}

static void verdict_render__print(FILE *out, FILE *log, const sc_checks_t *checks,
                                  sc_tally_t unlisted, const char *kept)
{
    bool tty = verdict_render__colour(out);
    static const char *const colours[] = {"\033[32m", "\033[33m", "\033[31m"};
    FILE *dest[2] = {out, log};
    int width = 53; /* the name column: as wide as the longest name, within reason */
    for (size_t i = 0; i < checks->n; i++)
        width = (int)fmin(fmax(width, (double)strlen(checks->items[i].name)), 100);
    for (int d = 0; d < 2; d++) {
        if (dest[d] == NULL)
            continue;
        fprintf(dest[d], "#\n# verdict: %-*s %12s %12s %7s  %s\n", width - 9, "check", "measured",
                "expected", "ratio", "");
        bool colour = tty && d == 0;
        for (size_t i = 0; i < checks->n; i++) {
            const sc_check_t *c = &checks->items[i];
            fprintf(dest[d], "  %-*s %12.4g %12.4g %7.3f  %s%s%s\n", width, c->name, c->measured,
                    c->expected, c->ratio, colour ? colours[c->level] : "", sc_level_name(c->level),
                    colour ? "\033[0m" : "");
            if (c->level != SC_LEVEL_PASS && c->note[0] != '\0')
                fprintf(dest[d], "    (%s)\n", c->note);
        }
        char line[544];
        verdict_render__tally_line(checks, unlisted, kept, line, sizeof(line));
        fputs(line, dest[d]);
    }
}

void sc_verdict_print(FILE *out, FILE *log, const sc_checks_t *checks)
{
    verdict_render__print(out, log, checks, (sc_tally_t){0}, "");
}

void sc_verdict_print_result(FILE *out, FILE *log, const sc_result_t *r)
{
    /* a run's result.json holds them; runs compared have none (those not PASS listed first) */
    verdict_render__print(out, log, &r->checks, r->unlisted,
                          r->results_dir[0] != '\0' ? "result.json holds every check"
                                                    : "those not PASS are listed first");
}

void sc_verdict_print_line(sc_results_t *res, const sc_checks_t *checks)
{
    char line[544];
    verdict_render__tally_line(checks, (sc_tally_t){0}, "", line, sizeof(line));
    sc_results_printf(res, "%s", line);
}

/* The ISO 8601 time the run started, without its zone (the JUnit schema's xs:dateTime form). */
static void verdict_render__junit_timestamp(const sc_result_t *r, char *buf, size_t len)
{
    snprintf(buf, len, "%.19s", r->start_utc[0] ? r->start_utc : "1970-01-01T00:00:00");
}

/* A check as a JUnit test case, as the verdict table says (SC_VERDICT_MAP): a PASS passes, a
 * WARN passes, its warning in the suite's output (the exit code is 0: a CI must not go red), a FAIL
 * is a failure, and a FAIL of an INCONCLUSIVE run an error (exit 5: neither green nor a verdict on
 * the system). */
static void verdict_render__junit_case(FILE *out, const char *suite, const sc_check_t *c,
                                       bool inconclusive)
{
    char detail[256];
    snprintf(detail, sizeof(detail), "%s: measured %.6g, expected %.6g, ratio %.3f (%s)", c->metric,
             c->measured, c->expected, c->ratio, c->source);
    fprintf(out, "  <testcase classname=\"scalecheck.");
    sc_files_xml_text(out, suite);
    fprintf(out, "\" name=\"");
    sc_files_xml_text(out, c->name);
    fprintf(out, "\" time=\"%.6f\"",
            sc_present(c->measure_s) && c->measure_s > 0 ? c->measure_s : 0.0);
    if (c->level == SC_LEVEL_PASS) {
        fprintf(out, "/>\n");
        return;
    }
    if (c->level == SC_LEVEL_WARN) { /* its warning in the suite's output (the Ant schema has
                                      * no output inside a test case) */
        fprintf(out, "/>\n");
        return;
    }
    if (inconclusive) {
        fprintf(out, ">\n    <error type=\"INCONCLUSIVE\" message=\"");
        sc_files_xml_text(out, SC_INCONCLUSIVE_TEXT);
        fprintf(out, "\">");
    } else {
        fprintf(out, ">\n    <failure type=\"FAIL\" message=\"");
        sc_files_xml_text(out, detail);
        fprintf(out, "\">");
    }
    sc_files_xml_text(out, inconclusive ? detail : c->note);
    fprintf(out, "</%s>\n  </testcase>\n", inconclusive ? "error" : "failure");
}

/* The suspects a localisation named, each a failed test case of its own: the bad node or link
 * is what a CI page should show first. */
static void verdict_render__junit_suspects(FILE *out, const sc_result_t *r)
{
    for (int i = 0; i < r->localization.nsuspects; i++) {
        const sc_suspect_t *s = &r->localization.suspects[i];
        fprintf(out, "  <testcase classname=\"scalecheck.");
        sc_files_xml_text(out, r->command);
        fprintf(out, "\" name=\"suspect %s: ", s->kind);
        sc_files_xml_text(out, s->where);
        fprintf(out, "\" time=\"0\">\n    <failure type=\"SUSPECT\" message=\"");
        sc_files_xml_text(out, s->where);
        fprintf(out, " is the likely cause\">");
        sc_files_xml_text(out, s->evidence);
        fprintf(out, "</failure>\n  </testcase>\n");
    }
}

/* Checks past what a CI server loads (SC_DEFAULT_SHOWN) are one test case, failed when one of
 * them failed: failures="N" counts the failed checks, listed or not. */
static void verdict_render__junit_unlisted(FILE *out, const sc_result_t *r, bool inconclusive)
{
    const sc_tally_t *u = &r->unlisted;
    fprintf(out, "  <testcase classname=\"scalecheck.");
    sc_files_xml_text(out, r->command);
    fprintf(out, "\" name=\"%d more checks, not listed (result.json holds each)\" time=\"0\"",
            u->checks);
    if (u->fail == 0) {
        fprintf(out, "/>\n");
        return;
    }
    fprintf(out,
            ">\n    <%s type=\"%s\" message=\"%d of them FAILED, %d WARNed\"/>\n"
            "  </testcase>\n",
            inconclusive ? "error" : "failure", inconclusive ? "INCONCLUSIVE" : "FAIL", u->fail,
            u->warn);
}

/* A run that did not complete is one more test case, in error, with the reason. */
static void verdict_render__junit_incomplete(FILE *out, const sc_result_t *r)
{
    fprintf(out, "  <testcase classname=\"scalecheck.");
    sc_files_xml_text(out, r->command);
    fprintf(out, "\" name=\"the run completed\" time=\"0\">\n    <error type=\"");
    sc_files_xml_text(out, r->state[0] ? r->state : "running");
    fprintf(out, "\" message=\"");
    sc_files_xml_text(out, r->reason[0] ? r->reason : "the run ended without a final state");
    fprintf(out, "\">");
    sc_files_xml_text(out, r->at_fault);
    fprintf(out, "</error>\n  </testcase>\n");
}

static void verdict_render__junit_property(FILE *out, const char *name, const char *value)
{
    fprintf(out, "    <property name=\"%s\" value=\"", name);
    sc_files_xml_text(out, value);
    fprintf(out, "\"/>\n");
}

static int verdict_render__junit_writer(FILE *out, void *arg)
{
    const sc_result_t *r = arg;
    sc_tally_t t = sc_result_tally(r), listed = sc_checks_tally(&r->checks);
    bool incomplete = sc_result_incomplete(r);
    char stamp[32];
    verdict_render__junit_timestamp(r, stamp, sizeof(stamp));
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"scalecheck.");
    sc_files_xml_text(out, r->command);
    fprintf(out, "\" timestamp=\"%s\" hostname=\"", stamp);
    sc_files_xml_text(out, r->hosts != NULL && r->nhosts > 0 ? r->hosts[0] : "localhost");
    int failed_cases = listed.fail + (r->unlisted.fail > 0);
    int suspects = r->localization.nsuspects;
    fprintf(out, "\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%.3f\">\n",
            r->checks.n + (r->unlisted.checks > 0) + (size_t)suspects + incomplete,
            (t.inconclusive ? 0 : failed_cases) + suspects,
            (incomplete ? 1 : 0) + (t.inconclusive ? failed_cases : 0),
            r->elapsed_s > 0 ? r->elapsed_s : 0.0);
    fprintf(out, "  <properties>\n");
    verdict_render__junit_property(out, "state", r->state);
    verdict_render__junit_property(out, "verdict", sc_verdict_row(sc_result_verdict(r))->name);
    verdict_render__junit_property(out, "version", r->version);
    verdict_render__junit_property(out, "backend", r->backend);
    verdict_render__junit_property(out, "topology", r->topology);
    verdict_render__junit_property(out, "results_dir", r->results_dir);
    fprintf(out, "  </properties>\n");
    for (size_t i = 0; i < r->checks.n; i++)
        verdict_render__junit_case(out, r->command, &r->checks.items[i], t.inconclusive);
    verdict_render__junit_suspects(out, r);
    if (r->unlisted.checks > 0)
        verdict_render__junit_unlisted(out, r, t.inconclusive);
    if (incomplete)
        verdict_render__junit_incomplete(out, r);
    /* the WARNs again in the suite's output, for a reader of the log alone */
    fprintf(out, "  <system-out>");
    if (r->not_checked[0] != '\0') { /* said, never a pass */
        fprintf(out, "NOT CHECKED: ");
        sc_files_xml_text(out, r->not_checked);
        fprintf(out, "\n");
    }
    for (size_t i = 0; i < r->checks.n; i++)
        if (r->checks.items[i].level == SC_LEVEL_WARN) {
            fprintf(out, "WARN ");
            sc_files_xml_text(out, r->checks.items[i].name);
            fprintf(out, ": ratio %.3f%s", r->checks.items[i].ratio,
                    r->checks.items[i].note[0] ? " - " : "");
            sc_files_xml_text(out, r->checks.items[i].note);
            fprintf(out, "\n");
        }
    fprintf(out, "</system-out>\n  <system-err/>\n</testsuite>\n");
    return ferror(out);
}

sc_status_t sc_verdict_write_junit(const char *path, const sc_result_t *r, sc_err_t *err)
{
    return sc_files_write_text(path, verdict_render__junit_writer, (void *)r, err);
}

void sc_print_findings(sc_results_t *res, const sc_findings_t *findings)
{
    sc_results_t none = {.log = NULL};
    if (res == NULL)
        res = &none;
    sc_results_printf(res, "#\n# findings (declared vs detected, hosts set up differently): %zu\n",
                      findings->n);
    for (size_t i = 0; i < findings->n; i++) {
        const sc_finding_t *f = &findings->items[i];
        if (sc_present(f->declared)) /* declared vs detected */
            sc_results_printf(res, "  %-8s %-42s declared %-8g detected %-8g on %s\n", f->severity,
                              f->what, f->declared, f->detected, f->host);
        else /* preflight: the text names the hosts */
            sc_results_printf(res, "  %-8s %s\n", f->severity, f->what);
    }
}
