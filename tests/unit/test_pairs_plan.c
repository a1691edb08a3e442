/* Which pairs `pairs` measures: every pair once in the round-robin (a node sits out a round when
 * n is odd), quick's first pairs, its second step (each member of a slow pair with a node of a
 * healthy one, no node twice in a round, nothing when no pair is healthy), the counts
 * --plan-only prints, and the localisation of what quick measured: a bad node (slow with a good
 * partner too) and a bad route (fine with the others). */
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
    sc_localize(uni, looks, N, names, 0, 0.5, &loc);
    SC_EXPECT(loc.nsuspects == 1 && !strcmp(loc.suspects[0].kind, "node") &&
              !strcmp(loc.suspects[0].where, "h3"));
    sc_localization_free(&loc);
    free(peers);

    measured(uni, looks, 0, 1); /* h1 - h2 slow, both fine with others: the route */
    rounds = sc_pairs_quick_retests(N, uni, looks, 1.0, &peers);
    measure_again(uni, looks, peers, rounds, -1);
    sc_localize(uni, looks, N, names, 0, 0.5, &loc);
    SC_EXPECT(loc.nsuspects == 1 && !strcmp(loc.suspects[0].kind, "link") &&
              !strcmp(loc.suspects[0].where, "h1 <-> h2"));
    sc_localization_free(&loc);
    free(peers);

    for (int i = 0; i < N * N; i++) /* every pair slow: nobody to lend a partner */
        uni[i] = looks[i] ? 0.02 : 0;
    SC_EXPECT(sc_pairs_quick_retests(N, uni, looks, 1.0, &peers) == 0 && peers == NULL);
}

int main(void)
{
    check_all(N);
    check_all(7);
    check_quick();
    int rounds = 0, pairs = 0;
    sc_pairs_plan_counts(SC_PAIRS_ALL, 1000, 0, &rounds, &pairs);
    SC_EXPECT(rounds == 999 && pairs == 499500);
    sc_pairs_plan_counts(SC_PAIRS_QUICK, 1000, 0, &rounds, &pairs);
    SC_EXPECT(rounds == 1 && pairs == 500);
    sc_pairs_plan_counts(SC_PAIRS_QUICK, 1000, 2, &rounds, &pairs);
    SC_EXPECT(rounds == 2 && pairs == 504);
    sc_pairs_plan_counts(SC_PAIRS_QUICK, 8, 1, &rounds, &pairs);
    SC_EXPECT(rounds == 2 && pairs == 6);
    return sc_test_done("test_pairs_plan");
}
