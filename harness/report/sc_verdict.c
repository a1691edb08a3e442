#include "sc_verdict.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/sc_results.h"

static const char *const sc__levels[] = {"PASS", "WARN", "FAIL"};

sc_verdict_level_t sc_verdict_add(json_t *checks, const char *name, const char *metric,
                                  double measured, double expected, double tolerance,
                                  bool higher_is_better, const char *source)
{
    double ratio = 0;
    if (expected > 0 && measured > 0)
        ratio = higher_is_better ? measured / expected : expected / measured;
    /* WARN down to (1 - t)^2: one tolerance further, multiplicatively, so that a wide
     * tolerance never makes the FAIL band vanish. */
    double pass = 1.0 - tolerance, warn = pass * pass;
    sc_verdict_level_t level = ratio >= pass   ? SC_VERDICT_PASS
                               : ratio >= warn ? SC_VERDICT_WARN
                                               : SC_VERDICT_FAIL;
    json_array_append_new(checks, json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:s, s:s, s:b}", "name",
                                            name, "metric", metric, "measured", measured,
                                            "expected", expected, "ratio", ratio, "tolerance",
                                            tolerance, "verdict", sc__levels[level], "source",
                                            source, "higher_is_better", higher_is_better));
    return level;
}

json_t *sc_verdict_summary(const json_t *checks)
{
    int counts[3] = {0, 0, 0};
    size_t i;
    json_t *c;
    json_array_foreach(checks, i, c)
    {
        const char *v = json_string_value(json_object_get(c, "verdict"));
        for (int l = 0; l < 3; l++)
            counts[l] += v && strcmp(v, sc__levels[l]) == 0;
    }
    const char *overall = counts[2] ? "FAIL" : counts[1] ? "WARN" : "PASS";
    return json_pack("{s:i, s:i, s:i, s:i, s:s}", "checks", (int)json_array_size(checks), "pass",
                     counts[0], "warn", counts[1], "fail", counts[2], "verdict", overall);
}

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
    sc_results_xml_text(out, j->suite);
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
        sc_results_xml_text(out, j->suite);
        fprintf(out, "\" name=\"");
        sc_results_xml_text(out, json_string_value(json_object_get(c, "name")));
        fprintf(out, "\">");
        if (v[0] == 'F') {
            fprintf(out, "<failure message=\"");
            sc_results_xml_text(out, detail);
            fprintf(out, "\"/>");
        } else {
            fprintf(out, "<system-out>%s: ", v);
            sc_results_xml_text(out, detail);
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
    return sc_results_write_text(path, sc__junit_writer, &j, err);
}
