/* Calibration: a ladder made from two known regimes (a latency-bound eager protocol up to
 * 4 KiB, then a bandwidth-bound one) is fitted back to them; the fit, written into a topology
 * and loaded again, makes the model reproduce the ladder; a band check is two-sided against the
 * model and keeps its WARN and FAIL tolerances apart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate/sc_calibrate.h"
#include "judge/sc_verdict.h"
#include "model/sc_model.h"
#include "sc_config.h"
#include "sc_test.h"
#include "topology/sc_topology.h"

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    SC_EXPECT(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* A topology extends files beside it or shipped ones only; the calibrated copy, which lives
 * elsewhere, carries its non-shipped bases along (<copy>.bases/) and names shipped ones by path. */
static void check_bases(const sc_calibration_t *cal)
{
    char root[] = "/tmp/sc-bases-XXXXXX", user[600], other[600], shipped[512], text[1200];
    SC_EXPECT(mkdtemp(root) != NULL);
    snprintf(user, sizeof(user), "%s/user", root);
    snprintf(other, sizeof(other), "%s/other", root);
    SC_EXPECT(mkdir(user, 0755) == 0 && mkdir(other, 0755) == 0);
    char sub[700];
    snprintf(sub, sizeof(sub), "%s/sub", user);
    SC_EXPECT(mkdir(sub, 0755) == 0);
    snprintf(shipped, sizeof(shipped), "%s/topologies", SC_SOURCE_DIR);
    snprintf(text, sizeof(text),
             "name: b\nextends: %s/localhost.yaml\nintra:\n  fabric: shm\n"
             "  gpu_bandwidth_GBps: 7\n",
             shipped);
    put(sub, "base.yaml", text);
    put(user, "mine.yaml", "name: m\nextends: sub/base.yaml\n");
    put(other, "evil.yaml", "name: e\nextends: ../user/sub/base.yaml\n");
    char mine[700], out[700], evil[700], copied[800];
    snprintf(mine, sizeof(mine), "%s/mine.yaml", user);
    snprintf(out, sizeof(out), "%s/cal.yaml", other);
    snprintf(evil, sizeof(evil), "%s/evil.yaml", other);
    snprintf(copied, sizeof(copied), "%s/cal.yaml.bases/1-base.yaml", other);
    sc_err_t err;
    sc_topology_t t;
    SC_EXPECT(sc_topology_load(evil, &t, &err) == SC_ERR_INPUT);
    SC_EXPECT(strstr(err.msg, "evil.yaml:2:10: extends: '../user/sub/base.yaml' is neither beside "
                              "this file nor a shipped topology") != NULL);
    SC_EXPECT(sc_calibrate_write(mine, out, cal, "test", &err) == SC_OK);
    SC_EXPECT(access(copied, R_OK) == 0);
    SC_EXPECT(sc_topology_load(out, &t, &err) == SC_OK);
    SC_EXPECT(t.gpu_bandwidth_GBps == 7 && strcmp(t.name, "m") == 0);
    SC_EXPECT(strcmp(t.calibrated_by, "test") == 0);
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    SC_EXPECT(system(cmd) == 0);
}

static double truth_us(double size, int n)
{
    double alpha = size <= 4096 ? 0.3 : 4.0, B = size <= 4096 ? 2.0 : 1.5;
    return sc_coll_ring_steps(&sc_coll_allreduce, n) * alpha +
           sc_coll_allreduce.busbw_factor(n) * size / (B * 1e3);
}

static void ladder(sc_case_rows_t *rows, int n)
{
    for (double s = 4; s <= 16 << 20; s *= 2) {
        sc_case_row_t *r = SC_LIST_PUSH(rows);
        memset(r, 0, sizeof(*r));
        strcpy(r->collective, "allreduce");
        r->size_bytes = (uint64_t)s;
        /* +-2 % of noise, alternating */
        r->time_us = truth_us(s, n) * (rows->n % 2 ? 1.02 : 0.98);
    }
}

int main(void)
{
    sc_case_rows_t rows = {0};
    ladder(&rows, 2);
    sc_regimes_t fit;
    double worst;
    sc_calibrate_fit(rows.items, rows.n, 2, sc_coll_ring_steps(&sc_coll_allreduce, 2), &fit,
                     &worst);
    SC_EXPECT(fit.n >= 2 && fit.n <= SC_TOPOLOGY_MAX_REGIMES);
    SC_EXPECT(worst < 0.05);
    SC_EXPECT(fit.r[fit.n - 1].upto == 0);
    /* the regime of a large size is the bandwidth-bound one */
    SC_EXPECT_NEAR(fit.r[fit.n - 1].GBps, 1.5, 0.1);

    /* written into a topology and loaded back, the model reproduces the ladder */
    char declared[] = "/tmp/sc-cal-declared-XXXXXX", out[64];
    int fd = mkstemp(declared);
    SC_EXPECT(fd >= 0);
    const char *text = "name: t\nnode:\n  gpus: 2\nintra:\n  fabric: shm\n  gpu_bandwidth_GBps: 5\n"
                       "calibrated:\n  by: an older calibration, replaced\n";
    SC_EXPECT(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    snprintf(out, sizeof(out), "%s.out.yaml", declared);
    sc_calibration_t cal;
    memset(&cal, 0, sizeof(cal));
    cal.intra.fit = fit;
    cal.intra.ranks = 2;
    cal.intra.rows = rows;
    cal.overlap = 0.5;
    cal.probe_us = 0.4;
    sc_err_t err;
    SC_EXPECT(sc_calibrate_write(declared, out, &cal, "test", &err) == SC_OK);
    sc_topology_t t;
    SC_EXPECT(sc_topology_load(out, &t, &err) == SC_OK);
    SC_EXPECT(t.cal_intra.n == fit.n && t.overlap == 0.5 && t.cal_probe_us == 0.4);
    SC_EXPECT(strcmp(t.calibrated_by, "test") == 0);
    for (size_t i = 0; i < rows.n; i += 5) {
        sc_prediction_t p;
        sc_model_collective(&t, &sc_coll_allreduce, (double)rows.items[i].size_bytes, 2, 1, &p);
        double truth = truth_us((double)rows.items[i].size_bytes, 2);
        SC_EXPECT(fabs(p.time_us - truth) / truth < 0.06);
    }

    /* bands: PASS within the tolerance, WARN to the fail tolerance, FAIL beyond; against the
     * model, far better than expected is a WARN with a note */
    sc_checks_t checks = {0};
    sc_band_t band = {0.2, 0.5, true};
    SC_EXPECT(sc_verdict_band(&checks, "a", "time_us", 110, 100, &band, false, "model")->level ==
              SC_LEVEL_PASS);
    SC_EXPECT(sc_verdict_band(&checks, "b", "time_us", 150, 100, &band, false, "model")->level ==
              SC_LEVEL_WARN);
    SC_EXPECT(sc_verdict_band(&checks, "c", "time_us", 250, 100, &band, false, "model")->level ==
              SC_LEVEL_FAIL);
    sc_check_t *fast = sc_verdict_band(&checks, "d", "time_us", 50, 100, &band, false, "model");
    SC_EXPECT(fast->level == SC_LEVEL_WARN && strstr(fast->note, "under-declares") != NULL);
    band.two_sided = false;
    SC_EXPECT(sc_verdict_band(&checks, "e", "time_us", 50, 100, &band, false, "claim")->level ==
              SC_LEVEL_PASS);
    /* the probe: slower than calibrated is a WARN, never a FAIL */
    sc_verdict_probe(&t, "before", 40.0, 3, &checks);
    SC_EXPECT(checks.items[checks.n - 1].looks == 3 && sc_verdict_probe_off(&t, 40.0));
    SC_EXPECT(checks.items[checks.n - 1].level == SC_LEVEL_WARN);
    /* within the spread the calibration saw between its looks (0.4 .. 0.8 us), it agrees */
    t.cal_probe_spread = 1.0;
    sc_verdict_probe(&t, "before", 0.75, 1, &checks);
    SC_EXPECT(!sc_verdict_probe_off(&t, 0.75) && !sc_verdict_probe_off(&t, 0.1));
    SC_EXPECT(checks.items[checks.n - 1].level == SC_LEVEL_PASS);
    sc_verdict_probe(&t, "before", 0.9, 1, &checks);
    SC_EXPECT(sc_verdict_probe_off(&t, 0.9));
    SC_EXPECT(checks.items[checks.n - 1].level == SC_LEVEL_WARN);
    check_bases(&cal);
    sc_list_free(&checks);
    sc_list_free(&rows);
    unlink(declared);
    unlink(out);
    return sc_test_done("test_calibrate");
}
