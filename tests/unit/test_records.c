/* The records and the one JSON module: a result document written as result.json and read back
 * gives the same points, case rows, checks and findings (absent expectations stay absent); the
 * CSV has exactly the columns the field table marks, in its order; a tally counts every level;
 * a host's telemetry survives being packed to bytes and back; a file that is not JSON is an
 * input error naming file:line:column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/sc_verdict.h"
#include "record/sc_result.h"
#include "json/sc_json_check.h"
#include "report/sc_json_in.h"
#include "sc_config.h"
#include "report/sc_json_out.h"
#include "sc_test.h"

static void fill(sc_result_t *r)
{
    sc_result_init(r, "run");
    snprintf(r->workload, sizeof(r->workload), "gpt3");
    snprintf(r->version, sizeof(r->version), "%s", SC_VERSION); /* as every run writes it */
    r->ranks = 4;
    r->nhosts = 2;
    for (int i = 0; i < 2; i++) {
        sc_point_t *p = SC_LIST_PUSH(&r->points);
        sc_point_init(p);
        p->gpus = 2 << i;
        p->nodes = i + 1;
        p->throughput = 100.0 * (i + 1);
        p->efficiency = 1.0 - 0.1 * i;
        snprintf(p->slowest_host, sizeof(p->slowest_host), "h%d", i);
        p->ncomm = 1;
        snprintf(p->comm[0].op, sizeof(p->comm[0].op), "dp.allreduce");
        p->comm[0].calls = 24;
        p->comm[0].bytes = 1.5e9;
    }
    r->points.items[1].expected_efficiency = 0.95; /* the first has none */
    sc_case_row_t *c = SC_LIST_PUSH(&r->sweep);
    *c = (sc_case_row_t){.size_bytes = 1ull << 33,
                         .time_us = 12.5,
                         .busbw_GBps = 7.25,
                         .expected_time_us = SC_ABSENT,
                         .expected_busbw_GBps = 8};
    snprintf(c->collective, sizeof(c->collective), "allreduce");
    r->judged = true;
    sc_verdict_add(&r->checks, "efficiency, \"quoted\"", "efficiency", 0.9, 0.95, 0.1, true,
                   "model");
    sc_verdict_add(&r->checks, "time", "time_us", 20, 10, 0.1, false, "model"); /* 0.5: FAIL */
    sc_verdict_add(&r->checks, "near", "GBps", 0.85, 1, 0.1, true, "claim");    /* 0.85: WARN */
    r->has_findings = true;
    sc_finding_t *f = SC_LIST_PUSH(&r->findings);
    snprintf(f->what, sizeof(f->what), "fewer NICs up than declared");
    f->declared = 4;
    f->detected = 2;
}

static void round_trip(const char *dir)
{
    sc_result_t w, r;
    fill(&w);
    char path[512];
    snprintf(path, sizeof(path), "%s/result.json", dir);
    sc_err_t err;
    SC_EXPECT(sc_json_write_result(path, &w, &err) == SC_OK);
    sc_status_t loaded = sc_json_load_result(dir, &r, &err);
    SC_EXPECT(loaded == SC_OK);
    if (loaded != SC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    SC_EXPECT(strcmp(r.command, "run") == 0 && strcmp(r.workload, "gpt3") == 0);
    SC_EXPECT(r.points.n == 2 && r.ranks == 4 && r.nhosts == 2);
    SC_EXPECT(!sc_present(r.points.items[0].expected_efficiency));
    SC_EXPECT_NEAR(r.points.items[1].expected_efficiency, 0.95, 1e-12);
    SC_EXPECT_NEAR(r.points.items[1].throughput, 200, 1e-12);
    SC_EXPECT(strcmp(r.points.items[1].slowest_host, "h1") == 0);
    SC_EXPECT(r.points.items[0].ncomm == 1 && r.points.items[0].comm[0].calls == 24);
    SC_EXPECT(r.sweep.n == 1 && r.sweep.items[0].size_bytes == 1ull << 33);
    SC_EXPECT(!sc_present(r.sweep.items[0].expected_time_us));
    SC_EXPECT_NEAR(r.sweep.items[0].expected_busbw_GBps, 8, 1e-12);
    SC_EXPECT(r.judged && r.checks.n == 3 && r.has_findings && r.findings.n == 1);
    SC_EXPECT(strcmp(r.checks.items[0].name, "efficiency, \"quoted\"") == 0);
    sc_tally_t t = sc_checks_tally(&r.checks);
    SC_EXPECT(t.pass == 1 && t.warn == 1 && t.fail == 1 && t.level == SC_LEVEL_FAIL);
    SC_EXPECT(r.checks.items[1].level == SC_LEVEL_FAIL && !r.checks.items[1].higher_is_better);
    SC_EXPECT(r.findings.items[0].detected == 2);
    sc_result_free(&r);

    /* CSV: the marked columns in table order, quoting where a value needs it */
    snprintf(path, sizeof(path), "%s/points.csv", dir);
    SC_EXPECT(sc_csv_write_records(path, w.points.items, w.points.n, sizeof(sc_point_t),
                                   sc_point_fields, &err) == SC_OK);
    char header[1024] = "", expect[1024] = "";
    for (const sc_field_t *f = sc_point_fields; f->name; f++)
        if (f->show & SC_SHOW_CSV)
            snprintf(expect + strlen(expect), sizeof(expect) - strlen(expect), "%s%s",
                     expect[0] ? "," : "", f->name);
    FILE *in = fopen(path, "r");
    SC_EXPECT(in != NULL && fgets(header, sizeof(header), in) != NULL);
    header[strcspn(header, "\n")] = '\0';
    SC_EXPECT(strcmp(header, expect) == 0 && strncmp(header, "gpus,nodes,", 11) == 0);
    char row[1024] = "";
    SC_EXPECT(in != NULL && fgets(row, sizeof(row), in) != NULL && strncmp(row, "2,1,", 4) == 0);
    if (in)
        fclose(in);
    sc_result_free(&w);

    /* not JSON: file:line:column */
    snprintf(path, sizeof(path), "%s/result.json", dir);
    FILE *bad = fopen(path, "w");
    if (bad) {
        fputs("{\n \"command\": \"run\",\n oops\n", bad);
        fclose(bad);
    }
    SC_EXPECT(sc_json_load_result(dir, &r, &err) == SC_ERR_INPUT);
    SC_EXPECT(strstr(err.msg, "result.json:3:") != NULL);
}

static void health_bytes(void)
{
    sc_health_t h = {.available = true, .interval_s = 0.5, .ngpus = 2};
    snprintf(h.host, sizeof(h.host), "node7");
    h.gpus = calloc(2, sizeof(sc_gpu_health_t));
    h.gpus[1].nsamples = 3;
    h.gpus[1].samples = calloc(3, sizeof(sc_gpu_sample_t));
    h.gpus[1].samples[2].temp_c = 83;
    h.gpus[1].max_temp_c = 83;
    size_t len = 0;
    char *block = sc_health_pack(&h, &len);
    sc_health_t back;
    SC_EXPECT(block != NULL && sc_health_unpack(block, len, &back));
    SC_EXPECT(strcmp(back.host, "node7") == 0 && back.ngpus == 2 && back.gpus[1].nsamples == 3);
    SC_EXPECT(back.gpus[1].samples[2].temp_c == 83 && back.gpus[0].nsamples == 0);
    sc_health_t cut; /* a block cut short is refused, whole or in its header */
    SC_EXPECT(!sc_health_unpack(block, len - 1, &cut));
    SC_EXPECT(!sc_health_unpack(block, sizeof(sc_health_t) - 1, &cut));
    free(block);
    sc_health_clear(&h);
    sc_health_t *one = calloc(1, sizeof(*one));
    *one = back; /* freed as an array of one, as the gather returns them */
    sc_health_free(one, 1);
}

/* INCONCLUSIVE both ways: a FAIL beside a disturbance (other processes busy and the probe off)
 * is no verdict; the same FAIL on a quiet host, or a disturbance without a FAIL, is what it is. */
static void inconclusive(void)
{
    struct {
        double cores;
        bool probe_off, fail;
        sc_level_t quiet;
        const char *verdict;
    } cases[] = {
        {1.5, true, true, SC_LEVEL_WARN, "INCONCLUSIVE"}, /* busy, probe off, a FAIL */
        {1.5, false, true, SC_LEVEL_PASS, "FAIL"},        /* busy, the probe agrees */
        {0.01, true, true, SC_LEVEL_PASS, "FAIL"},        /* a lost core: nothing else ran */
        {1.5, true, false, SC_LEVEL_WARN, "WARN"},        /* disturbed, nothing failed */
        {0.01, false, false, SC_LEVEL_PASS, "PASS"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc_checks_t checks = {0};
        sc_verdict_add(&checks, "step time", "ms", cases[i].fail ? 30 : 10, 10, 0.1, false,
                       "model");
        sc_verdict_quiet(cases[i].cores, "h1", cases[i].probe_off, &checks);
        SC_EXPECT(checks.n == 2 && checks.items[1].level == cases[i].quiet);
        SC_EXPECT(checks.items[1].disturbance && strstr(checks.items[1].name, "h1") != NULL);
        SC_EXPECT(strcmp(sc_tally_verdict(sc_checks_tally(&checks)), cases[i].verdict) == 0);
        sc_list_free(&checks);
    }
    sc_checks_t none = {0};
    sc_verdict_quiet(-1, "", true, &none); /* no figure from any host: no check */
    SC_EXPECT(none.n == 0);
}

/* The row peeks a stream reader decides by: strings with escaped quotes and backslashes passed
 * over whole, nested values skipped, the first keys found without reading the rest, a key
 * absent (or its value longer than the peek holds) said so. */
static void peeks(void)
{
    static const char row[] =
        "{\"note\": \"a \\\"quoted\\\" {x} \\\\\", \"inner\": {\"verdict\": \"FAIL\", \"l\": [1, "
        "{\"m\": \"]\"}]},\n \"verdict\": \"W\\\"ARN\", \"size_bytes\": 4096, \"in_place\": true}";
    char out[32];
    SC_EXPECT(sc_json_peek_text(row, strlen(row), "verdict", out, sizeof(out)));
    SC_EXPECT(strcmp(out, "W\"ARN") == 0); /* the top level's, not the nested one */
    SC_EXPECT(sc_json_peek_text(row, strlen(row), "size_bytes", out, sizeof(out)) &&
              strcmp(out, "4096") == 0);
    SC_EXPECT(!sc_json_peek_text(row, strlen(row), "absent", out, sizeof(out)) && out[0] == 0);
    const char *keys[] = {"in_place", "size_bytes"};
    char v[2][SC_JSON_PEEK_MAX];
    SC_EXPECT(sc_json_peek_texts(row, strlen(row), keys, 2, v) == 2);
    SC_EXPECT(strcmp(v[0], "true") == 0 && strcmp(v[1], "4096") == 0);
    /* found early: a torn tail after both keys is never read */
    static const char torn[] = "{\"in_place\": false, \"size_bytes\": 8, \"x\": [[[";
    SC_EXPECT(sc_json_peek_texts(torn, strlen(torn), keys, 2, v) == 2 && strcmp(v[1], "8") == 0);
    char long_value[200] = "{\"verdict\": \"";
    memset(long_value + strlen(long_value), 'x', 100);
    strcat(long_value, "\"}");
    SC_EXPECT(!sc_json_peek_text(long_value, strlen(long_value), "verdict", out, sizeof(out)));
}

int main(void)
{
    peeks();
    char dir[] = "/tmp/sc-records-XXXXXX";
    SC_EXPECT(mkdtemp(dir) != NULL);
    round_trip(dir);
    health_bytes();
    inconclusive();
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    SC_EXPECT(system(cmd) == 0);
    return sc_test_done("test_records");
}
