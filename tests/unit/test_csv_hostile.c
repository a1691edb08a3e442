/* Every CSV scalecheck writes (result.csv and the calibration ladders: case rows; points.csv;
 * pairs.csv; compare.csv) with hostile text in every text column: a cell a spreadsheet would
 * take for a formula (= + - @, a tab or a carriage return first) is written as text with a
 * leading quote, commas, quotes and line breaks are quoted (RFC 4180), and plain text is left
 * as it is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/sc_compare.h"
#include "record/sc_record.h"
#include "report/sc_json_out.h"
#include "sc_test.h"

static const char *const hostile[] = {"=HYPERLINK(\"http://x\",\"y\")",
                                      "+1+1",
                                      "-2+3",
                                      "@SUM(A1)",
                                      "\tcmd",
                                      "\r=1",
                                      "=cmd|' /C calc'!A0"};

/* What the cell of text must read in the file. */
static void expected_cell(const char *text, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "\"'");
    for (const char *c = text; *c && used + 3 < len; c++) {
        if (*c == '"')
            out[used++] = '"';
        out[used++] = *c;
    }
    snprintf(out + used, len - used, "\"");
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* One record of size bytes whose every CSV text column holds text, written and read back. */
static void hostile_table(const char *what, const sc_field_t *fields, size_t size, const char *text)
{
    void *record = calloc(1, size);
    int columns = 0;
    for (const sc_field_t *f = fields; f->name != NULL; f++)
        if ((f->show & SC_SHOW_CSV) && (f->kind == SC_FIELD_TEXT || f->kind == SC_FIELD_TEXT_OPT) &&
            f->choices == NULL) {
            snprintf((char *)record + f->offset, f->size, "%s", text);
            columns++;
        }
    char path[] = "/tmp/sc-csv-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    sc_err_t err;
    SC_EXPECT(sc_csv_write_records(path, record, 1, size, fields, &err) == SC_OK);
    char *csv = slurp(path);
    int found = 0;
    for (const sc_field_t *f = fields; csv != NULL && f->name != NULL; f++) {
        if (!(f->show & SC_SHOW_CSV) ||
            (f->kind != SC_FIELD_TEXT && f->kind != SC_FIELD_TEXT_OPT) || f->choices != NULL)
            continue;
        char cell[256]; /* the text as the field holds it (cut to its size), quoted */
        expected_cell((const char *)record + f->offset, cell, sizeof(cell));
        if (strstr(csv, cell) != NULL)
            found++;
        else
            fprintf(stderr, "%s: column %s does not hold %s as text\n%s", what, f->name, cell, csv);
    }
    SC_EXPECT(columns > 0 && found == columns);
    unlink(path);
    free(record);
}

int main(void)
{
    for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        hostile_table("result.csv", sc_case_row_fields, sizeof(sc_case_row_t), hostile[i]);
        hostile_table("points.csv", sc_point_fields, sizeof(sc_point_t), hostile[i]);
        hostile_table("pairs.csv", sc_pair_row_fields, sizeof(sc_pair_row_t), hostile[i]);
        hostile_table("compare.csv", sc_compare_row_fields, sizeof(sc_compare_row_t), hostile[i]);
    }
    /* plain text, and a negative figure, stay as they are */
    sc_pair_row_t row = {.a = "h1", .b = "h2", .uni_ab_GBps = -1};
    char path[] = "/tmp/sc-csv-XXXXXX";
    close(mkstemp(path));
    sc_err_t err;
    SC_EXPECT(sc_csv_write_records(path, &row, 1, sizeof(row), sc_pair_row_fields, &err) == SC_OK);
    const char *csv = slurp(path);
    SC_EXPECT(csv != NULL && strstr(csv, "\nh1,h2,-1,") != NULL);
    unlink(path);
    return sc_test_done("test_csv_hostile");
}
