/* Which pairs `pairs` measures: every pair once in the round-robin (a node sits out a round when
 * n is odd), quick's first pairs, its second step (each member of a slow pair with a node of a
 * healthy one, no node twice in a round, nothing when no pair is healthy), the counts
 * --plan-only prints, and the localisation of what quick measured: a bad node (slow with a good
 * partner too) and a bad route (fine with the others); bisect's reference. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/sc_localize.h"
#include "pairs/sc_pairs_plan.h"
#include "sc_test.h"

#define N 8

static void check_rounds(const int *peers, int rounds, int n, int *seen)
{
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) {
            int p = peers[r * n + i];
            SC_EXPECT(p == -1 || (p >= 0 && p < n && p != i && peers[r * n + p] == i));
            if (p > i)
                seen[i * n + p]++;
        }
}

static void check_all(int n)
{
    int *peers = NULL, seen[N * N] = {0};
    int rounds = sc_pairs_plan_all(n, &peers);
    SC_EXPECT(rounds == (n % 2 ? n : n - 1));
    check_rounds(peers, rounds, n, seen);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            SC_EXPECT(seen[a * n + b] == 1);
    free(peers);
}

/* quick's first pairs of N measured at rate 2 GB/s, pair (bad_a, bad_b) at 0.02 */
static void measured(double *uni, int *looks, int bad_a, int bad_b)
{
    memset(uni, 0, N * N * sizeof(double));
    memset(looks, 0, N * N * sizeof(int));
    for (int i = 0; i < N; i++) {
        int p = i ^ 1;
        uni[i * N + p] = (i == bad_a || i == bad_b) && (p == bad_a || p == bad_b) ? 0.02 : 2.0;
        looks[i * N + p] = 1;
    }
}

/* The retest pairs measured: rate 0.02 where the node bad is in it, else 2 GB/s. */
static void measure_again(double *uni, int *looks, const int *peers, int rounds, int bad)
{
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < N; i++) {
            int p = peers[r * N + i];
            if (p < 0)
                continue;
            uni[i * N + p] = i == bad || p == bad ? 0.02 : 2.0;
            looks[i * N + p] = 1;
        }
}

static void check_quick(void)
{
    int *peers = NULL, seen[N * N] = {0};
    SC_EXPECT(sc_pairs_plan_quick(N, &peers) == 1);
    for (int i = 0; i < N; i++)
        SC_EXPECT(peers[i] == (i ^ 1));
    free(peers);
    SC_EXPECT(sc_pairs_plan_quick(7, &peers) == 2);
    SC_EXPECT(peers[6] == -1 && peers[7 + 6] == 0 && peers[7 + 0] == 6 && peers[7 + 1] == -1);
    free(peers);

    double uni[N * N];
    int looks[N * N];
    const char *names[N] = {"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"};
    measured(uni, looks, 2, 3); /* h3 - h4 slow: h3 is bad */
    int rounds = sc_pairs_quick_retests(N, uni, looks, 1.0, &peers);
    SC_EXPECT(rounds == 1 && peers[2] >= 0 && peers[3] >= 0 && peers[2] != 3);
    SC_EXPECT(peers[2] != 2 && peers[2] != 3 && peers[3] != 2); /* lent by healthy pairs */
    check_rounds(peers, rounds, N, seen);
    measure_again(uni, looks, peers, rounds, 2);
    sc_localization_t loc;
    sc_localize(uni, looks, N, names, 0, 0.5, NULL, &loc);
    SC_EXPECT(loc.nsuspects == 1 && !strcmp(loc.suspects[0].kind, "node") &&
              !strcmp(loc.suspects[0].where, "h3"));
    sc_localization_free(&loc);
    free(peers);

    measured(uni, looks, 0, 1); /* h1 - h2 slow, both fine with others: the route */
    rounds = sc_pairs_quick_retests(N, uni, looks, 1.0, &peers);
    measure_again(uni, looks, peers, rounds, -1);
    sc_localize(uni, looks, N, names, 0, 0.5, NULL, &loc);
    SC_EXPECT(loc.nsuspects == 1 && !strcmp(loc.suspects[0].kind, "link") &&
              !strcmp(loc.suspects[0].where, "h1 <-> h2"));
    sc_localization_free(&loc);
    free(peers);

    for (int i = 0; i < N * N; i++) /* every pair slow: nobody to lend a partner */
        uni[i] = looks[i] ? 0.02 : 0;
    SC_EXPECT(sc_pairs_quick_retests(N, uni, looks, 1.0, &peers) == 0 && peers == NULL);
}

/* The bisect search run as the driver runs it (the same pure steps), on groups slow when they
 * hold a bad node: the bad nodes end as the only suspects' sources, and the counts match what
 * --plan-only says. */
static void bisect_walk(int n, const bool *bad, sc_pairs_count_t *walked, signed char *state)
{
    sc_span_t groups[600], next[600], leaves[600];
    bool slow[600];
    int ngroups = sc_pairs_bisect_start(n, groups), nleaves = 0, nall = 0;
    *walked = (sc_pairs_count_t){0};
    for (int g = 0; g < ngroups; g++)
        if (groups[g].count <= SC_BISECT_LEAF)
            leaves[nleaves++] = groups[g];
        else
            groups[nall++] = groups[g];
    for (ngroups = nall; ngroups > 0;) {
        walked->rounds++;
        walked->groups += ngroups;
        for (int g = 0; g < ngroups; g++) {
            slow[g] = false;
            for (int i = groups[g].first; i < groups[g].first + groups[g].count; i++)
                slow[g] |= bad[i];
            for (int i = groups[g].first; !slow[g] && i < groups[g].first + groups[g].count; i++)
                state[i] = SC_PAIRS_GOOD;
        }
        ngroups = sc_pairs_bisect_next(groups, slow, ngroups, next, leaves, &nleaves);
        memcpy(groups, next, (size_t)ngroups * sizeof(sc_span_t));
    }
    int *peers = NULL, rounds = sc_pairs_plan_leaves(n, leaves, nleaves, &peers);
    if (n <= 64) {
        int seen[64 * 64] = {0};
        check_rounds(peers, rounds, n, seen);
    }
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) {
            int p = peers[r * n + i];
            if (p > i) {
                walked->pairs++;
                if (state[i] != SC_PAIRS_SUSPECT)
                    state[i] = bad[i] || bad[p] ? SC_PAIRS_SUSPECT : SC_PAIRS_GOOD;
                if (state[p] != SC_PAIRS_SUSPECT)
                    state[p] = bad[i] || bad[p] ? SC_PAIRS_SUSPECT : SC_PAIRS_GOOD;
            }
        }
    walked->rounds += nleaves > 0 ? rounds : 0;
    free(peers);
    int again = sc_pairs_retests(n, state, &peers), suspects = 0;
    for (int i = 0; i < n; i++)
        suspects += state[i] == SC_PAIRS_SUSPECT;
    walked->rounds += again;
    walked->pairs += again > 0 ? suspects : 0;
    free(peers);
}

static void check_bisect(int n, int k)
{
    bool bad[1200] = {false};
    signed char state[1200] = {0};
    sc_span_t first[600];
    int ngroups = sc_pairs_bisect_start(n, first), covered = 0;
    for (int g = 0; g < ngroups; g++) {
        SC_EXPECT(first[g].first == covered && first[g].count >= 2);
        covered += first[g].count;
        if (g < k)
            bad[first[g].first] = true;
    }
    SC_EXPECT(covered == n && ngroups == (n < 16 ? n / 2 : n / 4 < 16 ? n / 4 : 16));
    sc_pairs_count_t walked, planned;
    bisect_walk(n, bad, &walked, state);
    sc_pairs_plan_counts(SC_PAIRS_bisect, n, k, 0, &planned);
    SC_EXPECT(walked.rounds == planned.rounds && walked.pairs == planned.pairs &&
              walked.groups == planned.groups);
    for (int i = 0; i < n; i++) /* every bad node is looked at again */
        SC_EXPECT(!bad[i] || state[i] == SC_PAIRS_SUSPECT);
}

/* Switch's rounds: disjoint pairs; every pair under a leaf is inside one, every leaf meets
 * every other leaf once across. */
static void check_switch(void)
{
    int leaf_of[10] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2}, *peers = NULL, n = 10, seen[100] = {0};
    int rounds = sc_pairs_plan_switch(n, leaf_of, 3, &peers);
    SC_EXPECT(rounds == 2 + 3); /* an odd leaf: two rounds under; three leaves: three across */
    check_rounds(peers, rounds, n, seen);
    int met[9] = {0}, under = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (seen[a * n + b]) {
                SC_EXPECT(seen[a * n + b] == 1);
                under += leaf_of[a] == leaf_of[b];
                met[leaf_of[a] * 3 + leaf_of[b]]++;
            }
    SC_EXPECT(under == 2 + 1 + 1 + 1 + 1); /* 4: two pairs; 3 and 3: a pair and the odd one */
    SC_EXPECT(met[0 * 3 + 1] == 3 && met[0 * 3 + 2] == 3 && met[1 * 3 + 2] == 3);
    free(peers);
    sc_pairs_count_t c;
    sc_pairs_plan_counts(SC_PAIRS_switch, 64, 2, 32, &c);
    SC_EXPECT(c.rounds == 2 && c.pairs == 64); /* 16 + 16 under, 32 across */
    /* the counts in closed form are those of the plan made, leaves full and the last one
     * short, odd and even */
    const int shapes[][2] = {{64, 32}, {70, 32}, {75, 8}, {99, 7}, {40, 3}, {130, 32}, {33, 4}};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        int nn = shapes[i][0], leaf = shapes[i][1], nleaves = (nn + leaf - 1) / leaf;
        int *of = malloc((size_t)nn * sizeof(int)), *made = NULL;
        for (int j = 0; of != NULL && j < nn; j++)
            of[j] = j / leaf;
        int r = of ? sc_pairs_plan_switch(nn, of, nleaves, &made) : -1;
        long long pairs = 0;
        for (long long j = 0; made != NULL && j < (long long)r * nn; j++)
            pairs += made[j] > j % nn;
        sc_pairs_plan_counts(SC_PAIRS_switch, nn, 0, leaf, &c);
        if (c.rounds != r || c.pairs != pairs)
            fprintf(stderr,
                    "switch %d nodes, leaves of %d: counted %d rounds %lld pairs, made %d %lld\n",
                    nn, leaf, c.rounds, c.pairs, r, pairs);
        SC_EXPECT(c.rounds == r && c.pairs == pairs);
        free(made);
        free(of);
    }
}

/* bisect's reference: two slow groups of four (the vcluster's two bad nodes, as measured) leave
 * it at the slower healthy group, where the mean of the middle two sat at 0.078 - above the
 * slow line of 0.8 x 0.078, and one bad group passed */
static void check_bisect_reference(void)
{
    const double two_slow[] = {0.0158, 0.206, 0.0144, 0.141};
    SC_EXPECT(sc_pairs_bisect_reference(two_slow, 4) == 0.141);
    SC_EXPECT(two_slow[0] == 0.0158 && two_slow[3] == 0.141); /* the figures are not sorted */
    const double odd[] = {3.0, 1.0, 2.0}, one[] = {5.0};
    SC_EXPECT(sc_pairs_bisect_reference(odd, 3) == 2.0 && sc_pairs_bisect_reference(one, 1) == 5.0);
    const double half_slow[] = {0.01, 0.01, 0.01, 0.01, 1.0, 1.1, 0.9, 1.2}; /* 4 of 8 slow */
    SC_EXPECT(sc_pairs_bisect_reference(half_slow, 8) == 0.9); /* the slowest healthy one */
}

int main(void)
{
    check_all(N);
    check_all(7);
    check_quick();
    sc_pairs_count_t c;
    sc_pairs_plan_counts(SC_PAIRS_all, 1000, 0, 0, &c);
    SC_EXPECT(c.rounds == 999 && c.pairs == 499500);
    sc_pairs_plan_counts(SC_PAIRS_quick, 1000, 0, 0, &c);
    SC_EXPECT(c.rounds == 1 && c.pairs == 500);
    sc_pairs_plan_counts(SC_PAIRS_quick, 1000, 2, 0, &c);
    SC_EXPECT(c.rounds == 2 && c.pairs == 504);
    sc_pairs_plan_counts(SC_PAIRS_quick, 8, 1, 0, &c);
    SC_EXPECT(c.rounds == 2 && c.pairs == 6);
    for (int n = 2; n <= 40; n++)
        for (int k = 0; k <= 2; k++)
            check_bisect(n, k);
    check_bisect(1000, 1);
    check_bisect(1024, 2);
    /* 16 groups of 64: 64 -> 32 -> 16 -> 8 -> 4 -> 2 + 2, then 2 suspects again */
    sc_pairs_plan_counts(SC_PAIRS_bisect, 1024, 1, 0, &c);
    SC_EXPECT(c.groups == 16 + 2 * 4 && c.rounds == 1 + 4 + 1 + 1 && c.pairs == 2 + 2);
    sc_pairs_plan_counts(SC_PAIRS_bisect, 1024, 0, 0, &c);
    SC_EXPECT(c.groups == 16 && c.rounds == 1 && c.pairs == 0);
    check_switch();
    check_bisect_reference();
    SC_EXPECT(sc_pairs_strategy_parse("bisect") == SC_PAIRS_bisect &&
              sc_pairs_strategy_parse("ring") == -1 &&
              !strcmp(sc_pairs_strategy_name(SC_PAIRS_switch), "switch"));
    return sc_test_done("test_pairs_plan");
}
