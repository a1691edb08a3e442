/* sc_compute_verdict.c - the GPUs' products judged: speed against peers and peak, results
 * against each other and the reference. */
#include "judge/sc_compute_verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sc_workload.h"
#include "judge/sc_peers.h"
#include "util/sc_defaults.h"
#include "util/sc_gemm.h"

/* The GPU's model from its words: "GPU 3 NVIDIA H200 (0000:5d:00.0)" -> "NVIDIA H200". */
static void compute_verdict__model(const char *device, char *out, size_t len)
{
    const char *name = strchr(device, ' ');
    name = name != NULL ? strchr(name + 1, ' ') : NULL;
    name = name != NULL ? name + 1 : device;
    const char *end = strrchr(name, '(');
    size_t n = end != NULL && end > name ? (size_t)(end - name - 1) : strlen(name);
    snprintf(out, len, "%.*s", (int)n, name);
}

/* Rank i's result against the others of its model: the digest most of them share. Whether it
 * differs (a FAIL added). */
static bool compute_verdict__same(const sc_compute_row_t *rows, const char (*who)[192], int n,
                                  int i, sc_checks_t *checks)
{
    char model[128], other[128];
    compute_verdict__model(rows[i].device, model, sizeof(model));
    int peers = 0, same = 0, most = 0;
    for (int j = 0; j < n; j++) {
        compute_verdict__model(rows[j].device, other, sizeof(other));
        if (strcmp(model, other) != 0)
            continue;
        peers++;
        same += rows[j].digest == rows[i].digest;
        int agree = 0; /* how many share j's digest */
        for (int k = 0; k < n; k++)
            agree += rows[k].digest == rows[j].digest;
        most = agree > most ? agree : most;
    }
    if (peers < 2 || same == most)
        return false;
    char name[192];
    snprintf(name, sizeof(name), "same result as its peers: %.150s", who[i]);
    sc_check_t *c = sc_verdict_add(checks, name, "result_digest", (double)same, (double)most, 0,
                                   true, "peers (bit for bit)");
    if (c == NULL)
        return true;
    c->level = SC_LEVEL_FAIL;
    snprintf(c->note, sizeof(c->note), "its %s result matches %d of %d %s GPUs; %d agree",
             rows[i].dtype, same - 1, peers - 1, model, most);
    return true;
}

static void compute_verdict__reference(const sc_compute_row_t *r, const char *who,
                                       sc_checks_t *checks)
{
    char name[192];
    snprintf(name, sizeof(name), "result within rounding of the fp64 reference: %.130s", who);
    sc_check_t *c = sc_verdict_add(checks, name, "wrong_elements", (double)r->check_wrong, 0, 0,
                                   false, "fp64 reference");
    if (c == NULL)
        return;
    c->level = r->check_wrong > 0 ? SC_LEVEL_FAIL : SC_LEVEL_PASS;
    c->ratio = r->check_wrong > 0 ? 0 : 1;
    if (r->check_wrong > 0)
        snprintf(c->note, sizeof(c->note),
                 "%d of %d sampled elements of its %s %d^3 product past the bound (first: element "
                 "%lld; worst %.3g x the bound)",
                 r->check_wrong, r->check_sampled, r->dtype, r->check_size, r->check_first_wrong,
                 r->check_worst);
    else
        snprintf(c->note, sizeof(c->note), "%d sampled elements, the worst %.2g of the bound",
                 r->check_sampled, r->check_worst);
}

static void compute_verdict__peak(const sc_compute_row_t *rows, const char (*who)[192], int n,
                                  const sc_topology_t *t, sc_checks_t *checks)
{
    sc_gemm_type_t type;
    sc_err_t ignored;
    if (n == 0 || sc_gemm_type_parse(rows[0].dtype, "-d", &type, &ignored) != SC_OK)
        return;
    static const int precision[SC_GEMM_TYPE_COUNT] = {SC_PRECISION_FP32, SC_PRECISION_TF32,
                                                      SC_PRECISION_FP16, SC_PRECISION_BF16};
    double peak = sc_topology_tflops(t, precision[type]);
    if (peak <= 0)
        return;
    sc_band_t band = sc_band_model(t);
    for (int i = 0; i < n; i++) {
        char name[192];
        snprintf(name, sizeof(name), "%s product against %s's peak: %.120s", rows[i].dtype, t->name,
                 who[i]);
        sc_check_t *c = sc_verdict_band(checks, name, "tflops", rows[i].tflops,
                                        peak * SC_DEFAULT_GEMM_SHARE, &band, true, "topology");
        if (c != NULL)
            snprintf(c->note, sizeof(c->note), "%.0f %% of %.0f TFLOP/s expected",
                     100 * SC_DEFAULT_GEMM_SHARE, peak);
    }
}

void sc_compute_verdict(const sc_compute_row_t *rows, const char (*who)[192], int n,
                        const sc_topology_t *t, sc_checks_t *checks)
{
    sc_peer_t *peers = calloc((size_t)(n > 0 ? n : 1), sizeof(*peers));
    for (int i = 0; peers != NULL && i < n; i++) {
        snprintf(peers[i].who, sizeof(peers[i].who), "%s", who[i]);
        peers[i].value = rows[i].tflops;
    }
    const sc_band_t band = {SC_DEFAULT_PEER_TOLERANCE, SC_DEFAULT_PEER_FAIL_TOLERANCE, false};
    char what[64];
    snprintf(what, sizeof(what), "%s TFLOP/s", n > 0 ? rows[0].dtype : "");
    if (peers != NULL)
        sc_verdict_peers(checks, what, "tflops", peers, n, &band, "peers (median)");
    free(peers);
    if (t != NULL)
        compute_verdict__peak(rows, who, n, t, checks);
    int checked = 0, differ = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i].check_sampled == 0)
            continue;
        checked++;
        differ += compute_verdict__same(rows, who, n, i, checks);
        compute_verdict__reference(&rows[i], who[i], checks);
    }
    if (checked >= 2 && differ == 0) { /* one PASS for the agreement */
        char name[192];
        snprintf(name, sizeof(name), "same %s result bit for bit on the %d GPUs", rows[0].dtype,
                 checked);
        sc_check_t *c = sc_verdict_add(checks, name, "result_digest", checked, checked, 0, true,
                                       "peers (bit for bit)");
        if (c != NULL)
            snprintf(c->note, sizeof(c->note), "GPUs of one model compare with each other");
    }
}
