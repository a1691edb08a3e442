/* sc_verdict_render.c - the checks for people (a compact table, coloured on a terminal) and
 * for CI (junit.xml). */
#include "sc_verdict_render.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/sc_verdict.h"
#include "util/sc_files.h"

void sc_verdict_print(FILE *out, FILE *log, const json_t *checks)
{
    bool tty = isatty(fileno(out)) && getenv("NO_COLOR") == NULL; /* no-color.org */
    static const char *const colours[] = {"\033[32m", "\033[33m", "\033[31m"};
    FILE *dest[2] = {out, log};
    for (int d = 0; d < 2; d++) {
        if (dest[d] == NULL)
            continue;
        fprintf(dest[d], "#\n# verdict: %-44s %12s %12s %7s  %s\n", "check", "measured", "expected",
                "ratio", "");
        size_t i;
        json_t *c;
        json_array_foreach(checks, i, c)
        {
            const char *v = json_string_value(json_object_get(c, "verdict"));
            int level = v[0] == 'P' ? 0 : v[0] == 'W' ? 1 : 2;
            bool colour = tty && d == 0;
            fprintf(dest[d], "  %-53s %12.4g %12.4g %7.3f  %s%s%s\n",
                    json_string_value(json_object_get(c, "name")),
                    json_real_value(json_object_get(c, "measured")),
                    json_real_value(json_object_get(c, "expected")),
                    json_real_value(json_object_get(c, "ratio")), colour ? colours[level] : "", v,
                    colour ? "\033[0m" : "");
        }
        json_t *sum = sc_verdict_summary(checks);
        fprintf(dest[d], "# verdict: %s (%lld pass, %lld warn, %lld fail)\n",
                json_string_value(json_object_get(sum, "verdict")),
                json_integer_value(json_object_get(sum, "pass")),
                json_integer_value(json_object_get(sum, "warn")),
                json_integer_value(json_object_get(sum, "fail")));
        json_decref(sum);
    }
}

typedef struct {
    const char *suite;
    const json_t *checks;
} sc__junit_t;

static int sc__junit_writer(FILE *out, void *arg)
{
    const sc__junit_t *j = arg;
    json_t *sum = sc_verdict_summary(j->checks);
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"");
    sc_files_xml_text(out, j->suite);
    fprintf(out, "\" tests=\"%zu\" failures=\"%lld\" errors=\"0\" skipped=\"0\">\n",
            json_array_size(j->checks), json_integer_value(json_object_get(sum, "fail")));
    json_decref(sum);
    size_t i;
    json_t *c;
    json_array_foreach(j->checks, i, c)
    {
        const char *v = json_string_value(json_object_get(c, "verdict"));
        char detail[256];
        snprintf(detail, sizeof(detail), "%s: measured %.6g, expected %.6g, ratio %.3f (%s)",
                 json_string_value(json_object_get(c, "metric")),
                 json_real_value(json_object_get(c, "measured")),
                 json_real_value(json_object_get(c, "expected")),
                 json_real_value(json_object_get(c, "ratio")),
                 json_string_value(json_object_get(c, "source")));
        fprintf(out, "  <testcase classname=\"scalecheck.");
        sc_files_xml_text(out, j->suite);
        fprintf(out, "\" name=\"");
        sc_files_xml_text(out, json_string_value(json_object_get(c, "name")));
        fprintf(out, "\">");
        if (v[0] == 'F') {
            fprintf(out, "<failure message=\"");
            sc_files_xml_text(out, detail);
            fprintf(out, "\"/>");
        } else {
            fprintf(out, "<system-out>%s: ", v);
            sc_files_xml_text(out, detail);
            fprintf(out, "</system-out>");
        }
        fprintf(out, "</testcase>\n");
    }
    fprintf(out, "</testsuite>\n</testsuites>\n");
    return ferror(out);
}

sc_status_t sc_verdict_write_junit(const char *path, const char *suite, const json_t *checks,
                                   sc_err_t *err)
{
    sc__junit_t j = {suite, checks};
    return sc_files_write_text(path, sc__junit_writer, &j, err);
}

void sc_run_print_findings(sc_results_t *res, const json_t *findings)
{
    sc_results_printf(res, "#\n# declared vs detected: %zu finding%s\n", json_array_size(findings),
                      json_array_size(findings) == 1 ? "" : "s");
    size_t i;
    json_t *f;
    json_array_foreach(findings, i, f)
    {
        sc_results_printf(res, "  %-8s %-42s declared %-8g detected %-8g on %s\n",
                          json_string_value(json_object_get(f, "severity")),
                          json_string_value(json_object_get(f, "what")),
                          json_real_value(json_object_get(f, "declared")),
                          json_real_value(json_object_get(f, "detected")),
                          json_string_value(json_object_get(f, "host")));
    }
}
