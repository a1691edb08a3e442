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

/* "# verdict: PASS (n pass, n warn, n fail)" */
static void sc__tally_line(const sc_checks_t *checks, char *line, size_t len)
{
    sc_tally_t t = sc_checks_tally(checks);
    snprintf(line, len, "# verdict: %s (%d pass, %d warn, %d fail)\n", sc_level_name(t.level),
             t.pass, t.warn, t.fail);
}

void sc_verdict_print(FILE *out, FILE *log, const sc_checks_t *checks)
{
    bool tty = isatty(fileno(out)) && getenv("NO_COLOR") == NULL; /* no-color.org */
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
        char line[128];
        sc__tally_line(checks, line, sizeof(line));
        fputs(line, dest[d]);
    }
}

void sc_verdict_print_line(sc_results_t *res, const sc_checks_t *checks)
{
    char line[128];
    sc__tally_line(checks, line, sizeof(line));
    sc_results_printf(res, "%s", line);
}

typedef struct {
    const char *suite;
    const sc_checks_t *checks;
} sc__junit_t;

static void sc__junit_case(FILE *out, const char *suite, const sc_check_t *c)
{
    char detail[256];
    snprintf(detail, sizeof(detail), "%s: measured %.6g, expected %.6g, ratio %.3f (%s)", c->metric,
             c->measured, c->expected, c->ratio, c->source);
    fprintf(out, "  <testcase classname=\"scalecheck.");
    sc_files_xml_text(out, suite);
    fprintf(out, "\" name=\"");
    sc_files_xml_text(out, c->name);
    fprintf(out, "\">");
    if (c->level == SC_LEVEL_FAIL) {
        fprintf(out, "<failure message=\"");
        sc_files_xml_text(out, detail);
        fprintf(out, "\"/>");
    } else {
        fprintf(out, "<system-out>%s: ", sc_level_name(c->level));
        sc_files_xml_text(out, detail);
        fprintf(out, "</system-out>");
    }
    fprintf(out, "</testcase>\n");
}

static int sc__junit_writer(FILE *out, void *arg)
{
    const sc__junit_t *j = arg;
    sc_tally_t t = sc_checks_tally(j->checks);
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"");
    sc_files_xml_text(out, j->suite);
    fprintf(out, "\" tests=\"%zu\" failures=\"%d\" errors=\"0\" skipped=\"0\">\n", j->checks->n,
            t.fail);
    for (size_t i = 0; i < j->checks->n; i++)
        sc__junit_case(out, j->suite, &j->checks->items[i]);
    fprintf(out, "</testsuite>\n</testsuites>\n");
    return ferror(out);
}

sc_status_t sc_verdict_write_junit(const char *path, const char *suite, const sc_checks_t *checks,
                                   sc_err_t *err)
{
    sc__junit_t j = {suite, checks};
    return sc_files_write_text(path, sc__junit_writer, &j, err);
}

void sc_print_findings(sc_results_t *res, const sc_findings_t *findings)
{
    sc_results_t none = {.log = NULL};
    if (res == NULL)
        res = &none;
    sc_results_printf(res, "#\n# declared vs detected: %zu finding%s\n", findings->n,
                      findings->n == 1 ? "" : "s");
    for (size_t i = 0; i < findings->n; i++) {
        const sc_finding_t *f = &findings->items[i];
        sc_results_printf(res, "  %-8s %-42s declared %-8g detected %-8g on %s\n", f->severity,
                          f->what, f->declared, f->detected, f->host);
    }
}
