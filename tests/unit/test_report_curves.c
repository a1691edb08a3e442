/* busbw.svg's curves (sc_report_busbw.c): a curve a collective, a point a size, each the median
 * of that size's cases - and what a planted result's names can and cannot do to the plot's
 * command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/sc_report_busbw.h"
#include "sc_test.h"

static sc_case_row_t row(const char *collective, uint64_t size, double busbw, double expected)
{
    sc_case_row_t r;
    memset(&r, 0, sizeof(r));
    snprintf(r.collective, sizeof(r.collective), "%s", collective);
    r.size_bytes = size;
    r.busbw_GBps = busbw;
    r.expected_busbw_GBps = expected;
    return r;
}

static void read_dat(const char *stage, char *out, size_t len)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/busbw.dat", stage);
    FILE *f = fopen(path, "r");
    size_t n = f != NULL ? fread(out, 1, len - 1, f) : 0;
    out[n] = '\0';
    if (f != NULL)
        fclose(f);
    unlink(path);
}

/* Medians a size, one block a collective, the model only where it has figures. */
static void medians(const char *stage)
{
    sc_case_row_t rows[] = {
        row("allreduce", 16, 6, SC_ABSENT), row("allreduce", 8, 3, 10),
        row("reduce", 8, 7, SC_ABSENT),     row("allreduce", 8, 1, 12),
        row("allreduce", 8, 2, SC_ABSENT),  row("allreduce", 16, 4, SC_ABSENT),
        row("reduce", 8, SC_ABSENT, 1), /* no bus bandwidth: not a point */
    };
    char commands[4096], dat[512];
    sc_err_t err;
    SC_EXPECT_EQ_U64(sc_report_busbw_curves(stage, rows, 7, commands, sizeof(commands), &err), 2);
    read_dat(stage, dat, sizeof(dat));
    SC_EXPECT(strcmp(dat, "8 2 11\n16 5 NaN\n\n\n8 7 NaN\n\n\n") == 0);
    if (strcmp(dat, "8 2 11\n16 5 NaN\n\n\n8 7 NaN\n\n\n") != 0)
        fprintf(stderr, "busbw.dat:\n%s", dat);
    SC_EXPECT(strstr(commands, "index 0 u 1:3") != NULL); /* allreduce has the model's */
    SC_EXPECT(strstr(commands, "index 1 u 1:3") == NULL); /* reduce has none */
    SC_EXPECT(strstr(commands, "index 1 u 1:2") != NULL);
    SC_EXPECT(strstr(commands, "t 'allreduce'") != NULL && strstr(commands, "t 'reduce'"));
    SC_EXPECT(strstr(commands, "the median of the cases") != NULL);
    SC_EXPECT(strstr(commands, "set key outside") != NULL);
}

/* One collective, a case a size: the report's usual titles, no word of medians. */
static void one_curve(const char *stage)
{
    sc_case_row_t rows[] = {row("allreduce", 8, 1, 2), row("allreduce", 16, 3, 4)};
    char commands[4096], dat[512];
    sc_err_t err;
    SC_EXPECT_EQ_U64(sc_report_busbw_curves(stage, rows, 2, commands, sizeof(commands), &err), 1);
    read_dat(stage, dat, sizeof(dat));
    SC_EXPECT(strcmp(dat, "8 1 2\n16 3 4\n\n\n") == 0);
    SC_EXPECT(strstr(commands, "t 'measured'") != NULL);
    SC_EXPECT(strstr(commands, "t 'expected (model)'") != NULL);
    SC_EXPECT(strstr(commands, "median") == NULL);
}

/* A planted result: a name that would end gnuplot's string or its command stays a title, and
 * no more than SC_REPORT_BUSBW_CURVES curves are drawn however many names it holds. */
static void planted(const char *stage)
{
    sc_case_row_t rows[SC_REPORT_BUSBW_CURVES + 2];
    rows[0] = row("a'b\nsystem('x')", 8, 1, SC_ABSENT);
    for (int i = 1; i < SC_REPORT_BUSBW_CURVES + 2; i++) {
        char name[24];
        snprintf(name, sizeof(name), "coll%02d", i);
        rows[i] = row(name, 8, i, SC_ABSENT);
    }
    char commands[4096], dat[2048];
    sc_err_t err;
    SC_EXPECT_EQ_U64(sc_report_busbw_curves(stage, rows, SC_REPORT_BUSBW_CURVES + 2, commands,
                                            sizeof(commands), &err),
                     SC_REPORT_BUSBW_CURVES);
    read_dat(stage, dat, sizeof(dat));
    SC_EXPECT(strstr(commands, "t 'a''b system(''x'')'") != NULL);
    SC_EXPECT(strstr(commands, "coll11") != NULL);
    SC_EXPECT(strstr(commands, "coll12") == NULL); /* the 13th name: left out */
    /* the plot line is one line: no name broke it */
    const char *plot = strstr(commands, "\nplot");
    SC_EXPECT(plot != NULL && strchr(plot + 1, '\n') == commands + strlen(commands) - 1);
}

int main(void)
{
    char stage[] = "/tmp/sc-curves-XXXXXX";
    if (mkdtemp(stage) == NULL)
        return 1;
    medians(stage);
    one_curve(stage);
    planted(stage);
    char commands[64];
    sc_err_t err;
    SC_EXPECT_EQ_U64(sc_report_busbw_curves(stage, NULL, 0, commands, sizeof(commands), &err), 0);
    char dat[512];
    snprintf(dat, sizeof(dat), "%s/busbw.dat", stage);
    SC_EXPECT(access(dat, F_OK) != 0); /* nothing to draw: no file */
    rmdir(stage);
    return sc_test_done("test_report_curves");
}
