/* What a report shows of a result too large to read (record/sc_shown.h): below the limit every
 * row and check, in order; past it every check that did not pass (up to the limit) and an even
 * spread of the rest, in stream order, with the tally over all of them; and a reader that passes
 * elements by unparsed counts the same. */
#include <string.h>

#include "record/sc_shown.h"
#include "sc_test.h"

static sc_check_t check_at(size_t i, size_t every_fail)
{
    sc_check_t c = {.level = every_fail && i % every_fail == 7 ? SC_LEVEL_FAIL : SC_LEVEL_PASS};
    snprintf(c.name, sizeof(c.name), "check %zu", i);
    c.measured = (double)i;
    return c;
}

/* n checks and rows offered (one in every_fail a FAIL); what is kept checked. */
static void stream(size_t n, size_t limit, size_t every_fail, bool pass_by)
{
    sc_result_t r;
    sc_result_init(&r, "judge");
    sc_shown_t s;
    sc_shown_init(&s, limit);
    size_t fails = 0;
    for (size_t i = 0; i < n; i++) {
        sc_check_t c = check_at(i, every_fail);
        fails += c.level == SC_LEVEL_FAIL;
        sc_case_row_t row = {.size_bytes = i};
        if (pass_by && !sc_shown_wants_check(&s, c.level))
            sc_shown_pass_check(&s, &c);
        else
            SC_EXPECT(sc_shown_check(&s, &r, &c));
        if (pass_by && !sc_shown_wants_row(&s))
            sc_shown_pass_row(&s);
        else
            SC_EXPECT(sc_shown_row(&s, &r, &row, c.level != SC_LEVEL_PASS));
    }
    sc_shown_finish(&s, &r);
    sc_tally_t all = sc_result_tally(&r);
    SC_EXPECT(all.checks == (int)n && all.fail == (int)fails && all.pass == (int)(n - fails));
    SC_EXPECT(r.checks.n + (size_t)r.unlisted.checks == n && r.cases.n + r.cases_unlisted == n);
    size_t kept_fails = 0, kept_pass = 0;
    for (size_t i = 0; i < r.checks.n; i++) {
        kept_fails += r.checks.items[i].level == SC_LEVEL_FAIL;
        kept_pass += r.checks.items[i].level == SC_LEVEL_PASS;
        if (i > 0) /* in stream order */
            SC_EXPECT(r.checks.items[i].measured > r.checks.items[i - 1].measured);
    }
    for (size_t i = 1; i < r.cases.n; i++)
        SC_EXPECT(r.cases.items[i].size_bytes > r.cases.items[i - 1].size_bytes);
    if (limit == 0 || n <= limit) { /* everything */
        SC_EXPECT(r.checks.n == n && r.cases.n == n && r.unlisted.checks == 0);
    } else {
        SC_EXPECT(kept_fails == (fails < limit ? fails : limit));
        SC_EXPECT(kept_pass >= limit / 2 && kept_pass <= limit);
        /* an even spread: the last PASS kept is near the end of the stream */
        SC_EXPECT(r.checks.items[r.checks.n - 1].measured > (double)n * 0.9);
    }
    sc_result_free(&r);
}

int main(void)
{
    stream(500, 1000, 10, false);     /* under the limit: all, in order */
    stream(5000, 0, 10, false);       /* no limit */
    stream(100000, 1000, 100, false); /* a spread, every FAIL (1000 of them) */
    stream(100000, 1000, 10, false);  /* FAILs past the limit: the first 1000 */
    stream(100000, 1000, 0, false);   /* all PASS */
    stream(100000, 1000, 100, true);  /* a reader passing elements by: the same */
    return sc_test_done("shown");
}
