#include "sc_verdict.h"

#include <stdlib.h>
#include <string.h>

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
