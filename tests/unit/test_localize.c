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

static int count_kind(json_t *loc, const char *kind, const char *where)
{
    int n = 0;
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(loc, "suspects"), i, s)
    {
        if (!strcmp(json_string_value(json_object_get(s, "kind")), kind) &&
            (!where || !strcmp(json_string_value(json_object_get(s, "where")), where)))
            n++;
    }
    return n;
}

int main(void)
{
    double bw[N * N];
    fill(bw, 1.0);
    bw[1] = 0.9; /* noise */
    json_t *loc = sc_localize(bw, N, names, 0, 0.5);
    SC_EXPECT(json_array_size(json_object_get(loc, "suspects")) == 0);
    SC_EXPECT_NEAR(json_real_value(json_object_get(loc, "reference_GBps")), 1.0, 1e-12);
    json_decref(loc);

    fill(bw, 1.0); /* h3's every pair at 2 % */
    for (int j = 0; j < N; j++)
        bw[2 * N + j] = bw[j * N + 2] = 0.02;
    loc = sc_localize(bw, N, names, 0, 0.5);
    SC_EXPECT(count_kind(loc, "node", "h3") == 1);
    SC_EXPECT(count_kind(loc, "link", NULL) == 0);
    SC_EXPECT(json_array_size(json_object_get(loc, "slow_pairs")) == 3);
    json_decref(loc);

    fill(bw, 1.0); /* one direction of one pair */
    bw[0 * N + 3] = 0.1;
    loc = sc_localize(bw, N, names, 0, 0.5);
    SC_EXPECT(count_kind(loc, "link", "h1 <-> h4") == 1);
    SC_EXPECT(count_kind(loc, "node", NULL) == 0);
    json_decref(loc);

    fill(bw, 0.5); /* a whole fabric at half the topology's expectation: every pair slow */
    loc = sc_localize(bw, N, names, 1.2, 0.25);
    SC_EXPECT(json_array_size(json_object_get(loc, "slow_pairs")) == 6);
    SC_EXPECT(count_kind(loc, "node", NULL) == 4);
    json_decref(loc);

    /* no expectation, and h3 and h4 both bad: the median is bad too, nothing is slow against
     * it - and the note says why */
    fill(bw, 0.03);
    bw[0 * N + 1] = bw[1 * N + 0] = 1.0;
    loc = sc_localize(bw, N, names, 0, 0.5);
    SC_EXPECT(json_array_size(json_object_get(loc, "suspects")) == 0);
    SC_EXPECT(json_is_string(json_object_get(loc, "reference_note")));
    SC_EXPECT(strstr(json_string_value(json_object_get(loc, "reference_note")), "--topology"));
    json_decref(loc);
    fill(bw, 1.0); /* healthy: no note */
    bw[2] = 1.4;
    loc = sc_localize(bw, N, names, 0, 0.5);
    SC_EXPECT(json_is_null(json_object_get(loc, "reference_note")));
    json_decref(loc);

    double two[4] = {0, 0.1, 0.1, 0}; /* two nodes: a link, never a node */
    loc = sc_localize(two, 2, names, 1.0, 0.25);
    SC_EXPECT(count_kind(loc, "link", "h1 <-> h2") == 1 && count_kind(loc, "node", NULL) == 0);
    json_decref(loc);
    return sc_test_done("test_localize");
}
