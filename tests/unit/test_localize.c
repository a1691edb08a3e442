/* Fault localisation on synthetic matrices: a healthy fabric has no suspect; a slow node is
 * named as a node problem; a single slow pair between healthy nodes as a link problem; two
 * nodes cannot tell node from link and name the link. */
#include <string.h>

#include "judge/sc_localize.h"
#include "sc_test.h"

#define N 4
static const char *const names[N] = {"h1", "h2", "h3", "h4"};

static void fill(double *bw, double v)
{
    for (int i = 0; i < N * N; i++)
        bw[i] = v;
}

static int count_kind(const sc_localization_t *loc, const char *kind, const char *where)
{
    int n = 0;
    for (int i = 0; i < loc->nsuspects; i++)
        n += !strcmp(loc->suspects[i].kind, kind) &&
             (!where || !strcmp(loc->suspects[i].where, where));
    return n;
}

int main(void)
{
    double bw[N * N];
    fill(bw, 1.0);
    bw[1] = 0.9; /* noise */
    sc_localization_t loc;
    sc_localize(bw, NULL, N, names, 0, 0.5, NULL, &loc);
    SC_EXPECT(loc.nsuspects == 0);
    SC_EXPECT_NEAR(loc.reference_GBps, 1.0, 1e-12);
    sc_localization_free(&loc);

    fill(bw, 1.0); /* h3's every pair at 2 % */
    for (int j = 0; j < N; j++)
        bw[2 * N + j] = bw[j * N + 2] = 0.02;
    sc_localize(bw, NULL, N, names, 0, 0.5, NULL, &loc);
    SC_EXPECT(count_kind(&loc, "node", "h3") == 1);
    SC_EXPECT(count_kind(&loc, "link", NULL) == 0);
    SC_EXPECT(loc.nslow == 3);
    sc_localization_free(&loc);

    fill(bw, 1.0); /* one direction of one pair */
    bw[0 * N + 3] = 0.1;
    sc_localize(bw, NULL, N, names, 0, 0.5, NULL, &loc);
    SC_EXPECT(count_kind(&loc, "link", "h1 <-> h4") == 1);
    SC_EXPECT(count_kind(&loc, "node", NULL) == 0);
    sc_localization_free(&loc);

    fill(bw, 0.5); /* a whole fabric at half the topology's expectation: every pair slow */
    sc_localize(bw, NULL, N, names, 1.2, 0.25, NULL, &loc);
    SC_EXPECT(loc.nslow == 6);
    SC_EXPECT(count_kind(&loc, "node", NULL) == 4);
    sc_localization_free(&loc);

    /* no expectation, and h3 and h4 both bad: the median is bad too, nothing is slow against
     * it - and the note says why */
    fill(bw, 0.03);
    bw[0 * N + 1] = bw[1 * N + 0] = 1.0;
    sc_localize(bw, NULL, N, names, 0, 0.5, NULL, &loc);
    SC_EXPECT(loc.nsuspects == 0);
    SC_EXPECT(strstr(loc.reference_note, "--topology") != NULL);
    sc_localization_free(&loc);
    fill(bw, 1.0); /* healthy: no note */
    bw[2] = 1.4;
    sc_localize(bw, NULL, N, names, 0, 0.5, NULL, &loc);
    SC_EXPECT(loc.reference_note[0] == '\0');
    sc_localization_free(&loc);
    /* healthy with one lucky pair at 3x (pairs side by side on shared hosts): the median is
     * held to the strong pairs (90th percentile), not to the lucky one - no note */
    fill(bw, 1.0);
    bw[0 * N + 1] = 3.0;
    sc_localize(bw, NULL, N, names, 0, 0.5, NULL, &loc);
    SC_EXPECT(loc.reference_note[0] == '\0' && loc.best_GBps == 3.0 && loc.strong_GBps == 1.0);
    sc_localization_free(&loc);

    double two[4] = {0, 0.1, 0.1, 0}; /* two nodes: a link, never a node */
    sc_localize(two, NULL, 2, names, 1.0, 0.25, NULL, &loc);
    SC_EXPECT(count_kind(&loc, "link", "h1 <-> h2") == 1 && count_kind(&loc, "node", NULL) == 0);
    sc_localization_free(&loc);
    return sc_test_done("test_localize");
}
