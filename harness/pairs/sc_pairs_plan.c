/* sc_pairs_plan.c - which pairs are measured, round by round: a round is one partner per
 * participant (-1: none), disjoint pairs. Every pair (the round-robin's n-1 rounds), or the
 * quick search: each node paired once, then the members of slow pairs with nodes of healthy
 * ones. Pure arithmetic: every rank computes the same rounds. */
#include "pairs/sc_pairs_plan.h"

#include <stdlib.h>

const char *sc_pairs_strategy_name(sc_pairs_strategy_t s)
{
    return s == SC_PAIRS_QUICK ? "quick" : "all";
}

/* Partner of i in round r of a round-robin over m (even) slots; the circle method. */
static int plan__partner(int i, int r, int m)
{
    if (i == m - 1)
        return r;
    if (i == r)
        return m - 1;
    return ((2 * r - i) % (m - 1) + (m - 1)) % (m - 1);
}

int sc_pairs_plan_all(int n, int **peers)
{
    int m = n % 2 ? n + 1 : n, rounds = m - 1;
    *peers = malloc((size_t)(rounds > 0 ? rounds : 1) * (size_t)n * sizeof(int));
    for (int r = 0; *peers != NULL && r < rounds; r++)
        for (int i = 0; i < n; i++) {
            int p = plan__partner(i, r, m);
            (*peers)[r * n + i] = p < n ? p : -1; /* odd n: the extra slot sits out */
        }
    return *peers != NULL ? rounds : -1;
}

int sc_pairs_plan_quick(int n, int **peers)
{
    int rounds = n % 2 && n > 1 ? 2 : 1; /* odd: the last node pairs with the first, after */
    *peers = malloc((size_t)rounds * (size_t)n * sizeof(int));
    for (int i = 0; *peers != NULL && i < n; i++) {
        (*peers)[i] = (i ^ 1) < n ? i ^ 1 : -1;
        if (rounds == 2)
            (*peers)[n + i] = i == 0 ? n - 1 : i == n - 1 ? 0 : -1;
    }
    return *peers != NULL ? rounds : -1;
}

static bool plan__slow(int n, const double *uni, int a, int b, double limit)
{
    return uni[a * n + b] < limit || uni[b * n + a] < limit;
}

int sc_pairs_quick_retests(int n, const double *uni, const int *looks, double limit, int **peers)
{
    *peers = NULL;
    int *suspect = calloc((size_t)n, sizeof(int)), *good = calloc((size_t)n, sizeof(int));
    int nsuspects = 0, ngood = 0;
    for (int a = 0; suspect && good && a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (looks[a * n + b] > 0 && plan__slow(n, uni, a, b, limit))
                suspect[a] = suspect[b] = 1;
    for (int a = 0; suspect && good && a < n; a++)
        for (int b = 0; b < n; b++) /* in a healthy pair, and in no slow one */
            if (a != b && looks[a * n + b] > 0 && !suspect[a] && !plan__slow(n, uni, a, b, limit))
                good[a] = 1;
    int *who = malloc((size_t)n * sizeof(int)), *with = malloc((size_t)n * sizeof(int));
    for (int a = 0; who && with && suspect && good && a < n; a++) {
        if (suspect[a])
            who[nsuspects++] = a;
        else if (good[a])
            with[ngood++] = a;
    }
    int rounds = ngood > 0 && who && with ? (nsuspects + ngood - 1) / ngood : 0;
    if (rounds > 0 && (*peers = malloc((size_t)rounds * (size_t)n * sizeof(int))) != NULL) {
        for (int i = 0; i < rounds * n; i++)
            (*peers)[i] = -1;
        for (int k = 0; k < nsuspects; k++) { /* round k / ngood lends good node k % ngood */
            int r = k / ngood, s = who[k], g = with[k % ngood];
            (*peers)[r * n + s] = g;
            (*peers)[r * n + g] = s;
        }
    }
    rounds = *peers != NULL ? rounds : 0;
    free(suspect);
    free(good);
    free(who);
    free(with);
    return rounds;
}

void sc_pairs_plan_counts(sc_pairs_strategy_t s, int n, int k, int *rounds, int *pairs)
{
    if (s == SC_PAIRS_ALL || n < 3) {
        *rounds = n % 2 ? n : n - 1;
        *pairs = n * (n - 1) / 2;
        return;
    }
    /* k bad nodes in k different first pairs (the worst case): 2k suspects to pair again with
     * the n - 2k nodes of healthy pairs */
    int first_rounds = n % 2 ? 2 : 1, first_pairs = n / 2 + n % 2;
    int suspects = 2 * k, lenders = n - 2 * k - (n % 2);
    *rounds = first_rounds + (k > 0 && lenders > 0 ? (suspects + lenders - 1) / lenders : 0);
    *pairs = first_pairs + (k > 0 && lenders > 0 ? suspects : 0);
}
