/* The soak's judgement and journal: a steady run passes; a GPU past its limit fails from the
 * cycle it first broke it; an XID or an uncorrected error fails, corrected ones warn; a 7 %
 * slide of busbw over the run fails the drift check and a 3 % one passes; too few cycles have
 * no drift check; durations parse; the journal reads back what was written, a half-written last
 * line dropped and cut from the file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/sc_soak_verdict.h"
#include "report/sc_json_soak.h"
#include "sc_test.h"
#include "util/sc_size.h"

static sc_soak_limits_t limits(void)
{
    return (sc_soak_limits_t){.max_gpu_temp_c = 85,
                              .max_cpu_temp_c = 95,
                              .max_throttle_fraction = 0.1,
                              .max_drift = 0.05};
}

/* n healthy cycles on one host, busbw sliding by slide over the run, GPU temp 70 C. */
static void cycles_of(sc_soak_cycles_t *cycles, int n, double slide)
{
    memset(cycles, 0, sizeof(*cycles));
    for (int i = 0; i < n; i++) {
        sc_soak_cycle_t *c = SC_LIST_PUSH(cycles);
        sc_soak_cycle_init(c);
        c->cycle = i + 1;
        c->start_s = 300.0 * i;
        c->wall_s = 300;
        c->nsizes = 1;
        c->size_bytes[0] = 1u << 24;
        c->busbw_GBps[0] = 100.0 * (1.0 - slide * i / (n - 1));
        c->step_ms = 50;
        c->hosts = calloc(1, sizeof(sc_soak_host_t));
        c->nhosts = 1;
        sc_soak_host_t *h = &c->hosts[0];
        snprintf(h->host, sizeof(h->host), "h1");
        h->gpus_available = true;
        h->max_gpu_temp_c = 70, h->max_cpu_temp_c = 50, h->max_power_w = 400;
        h->throttle_fraction = 0;
        h->ecc_uncorrected_new = h->ecc_corrected_new = h->xids = 0;
        h->pcie_replays_new = h->nvlink_errors_new = h->edac_corrected_new = 0;
        h->edac_uncorrected_new = h->ib_errors_new = 0;
        h->retired_pages = h->remapped_rows = 0;
        h->retired_pages_start = h->remapped_rows_start = 0;
        h->start_errors_gpu = h->remap_gpu = h->slow_clock_gpu = -1;
        h->remap_bad = 0;
        h->power_over_w = -300;
        h->hottest_gpu = 2;
        h->hottest_reasons = 0;
        h->clock_ratio = 0.99, h->slow_clock_gpu = 5, h->slow_clock_mhz = 1960;
        h->max_sm_mhz = 1980;
        h->memory_gb = 640;
        h->last_xid = -1;
    }
}

static const sc_check_t *check(const sc_checks_t *checks, const char *name)
{
    for (size_t i = 0; i < checks->n; i++)
        if (!strcmp(checks->items[i].name, name))
            return &checks->items[i];
    return NULL;
}

static void judged(sc_soak_cycles_t *cycles, sc_checks_t *checks)
{
    sc_soak_limits_t l = limits();
    memset(checks, 0, sizeof(*checks));
    for (size_t i = 0; i < cycles->n; i++)
        sc_soak_judge_cycle(&cycles->items[i], &l);
    char not_checked[512];
    sc_soak_judge(cycles, &l, checks, not_checked, sizeof(not_checked));
}

static void check_verdicts(void)
{
    sc_soak_cycles_t cycles;
    sc_checks_t checks;
    cycles_of(&cycles, 9, 0.03); /* steady enough */
    judged(&cycles, &checks);
    SC_EXPECT(sc_checks_tally(&checks).fail == 0 && sc_checks_tally(&checks).warn == 0);
    const sc_check_t *drift = check(&checks, "drift: all-reduce busbw at 16777216 B");
    SC_EXPECT(drift != NULL && drift->level == SC_LEVEL_PASS && drift->ratio > 0.96);
    sc_list_free(&checks);
    sc_soak_cycles_free(&cycles);

    cycles_of(&cycles, 9, 0.07); /* each cycle passes, the run slides 7 % */
    judged(&cycles, &checks);
    drift = check(&checks, "drift: all-reduce busbw at 16777216 B");
    SC_EXPECT(drift != NULL && drift->level == SC_LEVEL_FAIL && drift->ratio < 0.95);
    SC_EXPECT(check(&checks, "cycles within the limits")->level == SC_LEVEL_PASS);
    sc_list_free(&checks);
    sc_soak_cycles_free(&cycles);

    cycles_of(&cycles, 5, 0.5); /* too few cycles for a trend */
    judged(&cycles, &checks);
    SC_EXPECT(check(&checks, "drift: all-reduce busbw at 16777216 B") == NULL);
    sc_list_free(&checks);
    sc_soak_cycles_free(&cycles);

    cycles_of(&cycles, 6, 0);
    cycles.items[3].hosts[0].max_gpu_temp_c = 88; /* hot from cycle 4: GPU 3, thermal slowdown */
    cycles.items[3].hosts[0].hottest_gpu = 3;
    snprintf(cycles.items[3].hosts[0].hottest_bus, 32, "0000:5d:00.0");
    cycles.items[3].hosts[0].hottest_reasons = 0x60;
    cycles.items[4].hosts[0].xids = 1; /* an XID in cycle 5 */
    cycles.items[4].hosts[0].last_xid = 79;
    cycles.items[2].hosts[0].pcie_replays_new = 12; /* corrected: a warning */
    cycles.items[5].hosts[0].retired_pages = 2;     /* two pages retired during the soak */
    judged(&cycles, &checks);
    const sc_check_t *hot = check(&checks, "h1: hottest GPU (GPU 3, 0000:5d:00.0; throttled: sw "
                                           "thermal slowdown, hw thermal slowdown)");
    SC_EXPECT(hot != NULL && hot->level == SC_LEVEL_FAIL && hot->measured == 88 &&
              strstr(hot->note, "cycle 4") != NULL);
    SC_EXPECT(check(&checks, "h1: XID errors")->level == SC_LEVEL_FAIL);
    SC_EXPECT(check(&checks, "h1: PCIe replays")->level == SC_LEVEL_WARN);
    SC_EXPECT(check(&checks, "h1: retired_pages during the soak")->level == SC_LEVEL_FAIL);
    SC_EXPECT(check(&checks, "h1: uncorrected ECC errors")->level == SC_LEVEL_PASS);
    SC_EXPECT(cycles.items[3].level == SC_LEVEL_FAIL && cycles.items[2].level == SC_LEVEL_PASS &&
              strstr(cycles.items[3].breaches, "h1: hottest GPU at 88 C, above 85 C (GPU 3, "
                                               "0000:5d:00.0; throttled: sw thermal") != NULL);
    /* the GPUs under load: healthy clocks and no error pass */
    SC_EXPECT(check(&checks, "h1: SM clock against its peers (GPU 5)")->level == SC_LEVEL_PASS);
    SC_EXPECT(check(&checks, "h1: GPU memory errors per GB-hour")->level == SC_LEVEL_PASS);
    SC_EXPECT(check(&checks, "h1: retired pages and remapped rows before the soak")->level ==
              SC_LEVEL_PASS);
    const sc_check_t *failed = check(&checks, "cycles within the limits");
    SC_EXPECT(failed->level == SC_LEVEL_FAIL && failed->measured == 2);
    sc_list_free(&checks);
    sc_soak_cycles_free(&cycles);
}

/* A soak too short for the drift: a 6.5x busbw swing over 4 cycles FAILs (unless --max-drift 1
 * lets any figure move), the drift and a limit no sensor reported are said as not checked. */
static void check_short_soak(void)
{
    sc_soak_cycles_t cycles;
    sc_checks_t checks = {0};
    cycles_of(&cycles, 4, 0);
    cycles.items[2].busbw_GBps[0] = 100.0 / 6.5;
    for (size_t i = 0; i < cycles.n; i++)
        cycles.items[i].hosts[0].max_cpu_temp_c = -1; /* a VM: no thermal zone */
    sc_soak_limits_t l = limits();
    char not_checked[512];
    sc_soak_judge(&cycles, &l, &checks, not_checked, sizeof(not_checked));
    const sc_check_t *swing = check(&checks, "swing: all-reduce busbw at 16777216 B");
    SC_EXPECT(swing != NULL && swing->level == SC_LEVEL_FAIL && swing->measured < 16 &&
              strstr(swing->note, "cycle (3)") != NULL);
    SC_EXPECT(strstr(not_checked, "drift (4 cycles: it needs 6") != NULL);
    SC_EXPECT(strstr(not_checked, "h1: hottest CPU sensor (no sensor reported it)") != NULL);
    SC_EXPECT(check(&checks, "h1: hottest CPU sensor") == NULL);
    sc_list_free(&checks);
    l.max_drift = 1; /* not judged */
    sc_soak_judge(&cycles, &l, &checks, not_checked, sizeof(not_checked));
    swing = check(&checks, "swing: all-reduce busbw at 16777216 B");
    SC_EXPECT(swing != NULL && swing->level == SC_LEVEL_PASS);
    sc_list_free(&checks);
    sc_soak_cycles_free(&cycles);
}

/* Each GPU of a host under the same load: a clock stuck low, a remap pending, memory repaired
 * before the soak and corrected errors, each judged and the GPU named. */
static void check_gpus(void)
{
    sc_soak_cycles_t cycles;
    sc_checks_t checks = {0};
    cycles_of(&cycles, 3, 0);
    cycles.items[0].hosts[0].retired_pages_start = 2; /* GPU 6: two pages before the soak */
    cycles.items[0].hosts[0].start_errors_gpu = 6;
    cycles.items[1].hosts[0].clock_ratio = 0.6; /* GPU 4 at 60 % of its peers' clock */
    cycles.items[1].hosts[0].slow_clock_gpu = 4;
    cycles.items[1].hosts[0].slow_clock_mhz = 1188;
    cycles.items[2].hosts[0].remap_bad = 1; /* GPU 1's remap pending */
    cycles.items[2].hosts[0].remap_gpu = 1;
    cycles.items[2].hosts[0].ecc_corrected_new = 64; /* 64 errors on 640 GB over 0.25 h */
    sc_soak_limits_t l = limits();
    for (size_t i = 0; i < cycles.n; i++)
        sc_soak_judge_cycle(&cycles.items[i], &l);
    char not_checked[512];
    sc_soak_judge(&cycles, &l, &checks, not_checked, sizeof(not_checked));
    const sc_check_t *before =
        check(&checks, "h1: retired pages and remapped rows before the soak");
    SC_EXPECT(before != NULL && before->level == SC_LEVEL_WARN && before->measured == 2 &&
              strstr(before->note, "(GPU 6 first)") != NULL);
    const sc_check_t *clock = check(&checks, "h1: SM clock against its peers (GPU 4)");
    SC_EXPECT(clock != NULL && clock->level == SC_LEVEL_FAIL && strstr(clock->note, "1188 MHz"));
    const sc_check_t *remap =
        check(&checks, "h1: GPUs with a row remap pending or failed (GPU 1 first)");
    SC_EXPECT(remap != NULL && remap->level == SC_LEVEL_FAIL);
    SC_EXPECT(cycles.items[2].level == SC_LEVEL_FAIL && cycles.items[1].level == SC_LEVEL_PASS);
    const sc_check_t *rate = check(&checks, "h1: GPU memory errors per GB-hour");
    SC_EXPECT(rate != NULL && rate->level == SC_LEVEL_WARN);
    if (rate != NULL)
        SC_EXPECT_NEAR(rate->measured, 64.0 / (640 * 0.25), 1e-9);
    sc_list_free(&checks);
    sc_soak_cycles_free(&cycles);
}

static void check_durations(void)
{
    double s = 0;
    SC_EXPECT(sc_duration_parse("72h", &s) && s == 72 * 3600);
    SC_EXPECT(sc_duration_parse("90", &s) && s == 90);
    SC_EXPECT(sc_duration_parse("30m", &s) && s == 1800 && sc_duration_parse("3d", &s));
    SC_EXPECT(!sc_duration_parse("x", &s) && !sc_duration_parse("-5m", &s) &&
              !sc_duration_parse("5 h", &s) && !sc_duration_parse("0", &s) &&
              !sc_duration_parse("1y", &s));
}

static void check_journal(void)
{
    char dir[] = "/tmp/test_soak.XXXXXX", path[64];
    if (mkdtemp(dir) == NULL)
        return;
    snprintf(path, sizeof(path), "%s/journal.jsonl", dir);
    char *argv[] = {"--duration", "72h", NULL};
    sc_soak_start_t s = {.ranks = 16, .nhosts = 2, .argc = 2, .argv = argv, .duration_s = 259200};
    snprintf(s.hosts, sizeof(s.hosts), "a,b");
    snprintf(s.version, sizeof(s.version), "0.1.0");
    sc_err_t err;
    SC_EXPECT(sc_soak_journal_create(path, &s, &err) == SC_OK);
    SC_EXPECT(sc_soak_journal_create(path, &s, &err) == SC_ERR_IO); /* never over an old one */
    sc_soak_cycles_t written;
    cycles_of(&written, 2, 0.1);
    written.items[1].pair_min_GBps = 11.5;
    snprintf(written.items[1].breaches, sizeof(written.items[1].breaches), "h1: hot");
    for (size_t i = 0; i < written.n; i++)
        SC_EXPECT(sc_soak_journal_cycle(path, &written.items[i], &err) == SC_OK);
    SC_EXPECT(sc_soak_journal_mark(path, "end", "interrupted", "SIGTERM", 2, &err) == SC_OK);
    FILE *f = fopen(path, "a"); /* a write the kill cut short */
    fputs("{\"type\":\"cycle\",\"cycle\":3,\"sta", f);
    fclose(f);
    sc_soak_start_t back;
    sc_soak_cycles_t read = {0};
    bool complete = true;
    SC_EXPECT(sc_soak_journal_read(path, &back, &read, &complete, &err) == SC_OK);
    SC_EXPECT(!complete && back.ranks == 16 && !strcmp(back.hosts, "a,b") && back.argc == 2 &&
              !strcmp(back.argv[1], "72h") && back.duration_s == 259200 && back.launches == 1);
    SC_EXPECT(read.n == 2 && read.items[1].cycle == 2 && read.items[1].nsizes == 1 &&
              fabs(read.items[1].busbw_GBps[0] - 90.0) < 1e-9 &&
              read.items[1].pair_min_GBps == 11.5 && isnan(read.items[0].pair_min_GBps) &&
              read.items[1].nhosts == 1 && read.items[1].hosts[0].max_gpu_temp_c == 70 &&
              read.items[1].hosts[0].last_xid == -1 && !strcmp(read.items[1].breaches, "h1: hot"));
    f = fopen(path, "r"); /* the half line is gone from the file too */
    fseek(f, -1, SEEK_END);
    SC_EXPECT(fgetc(f) == '\n');
    fclose(f);
    sc_soak_start_free(&back);
    sc_soak_cycles_free(&read);
    sc_soak_cycles_free(&written);
    f = fopen(path, "w");
    fputs("{\"type\":\"cycle\"}\n", f);
    fclose(f);
    SC_EXPECT(sc_soak_journal_read(path, &back, &read, &complete, &err) == SC_ERR_INPUT &&
              strstr(err.msg, "journal.jsonl:1: not a soak journal") != NULL);
    sc_soak_start_free(&back);
    sc_soak_cycles_free(&read);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    check_verdicts();
    check_short_soak();
    check_gpus();
    check_durations();
    check_journal();
    return sc_test_done("test_soak");
}
