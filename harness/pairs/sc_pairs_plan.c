/* sc_pairs_plan.c - which pairs are measured, round by round: a round is one partner per
 * participant (-1: none), disjoint pairs. Every pair (the round-robin's n-1 rounds), or the
 * quick search: each node paired once, then the members of slow pairs with nodes of healthy
 * ones, or the switch map's pairs under and across leaves; and what each strategy takes.
 * Pure arithmetic: every rank computes the same rounds. */
#include "pairs/sc_pairs_plan.h"

#include <stdlib.h>
#include <string.h>

static const char *const plan__names[] = {
#define SC__PAIRS_STRATEGY_NAME(name) #name,
    SC_PAIRS_STRATEGY_MAP(SC__PAIRS_STRATEGY_NAME)
#undef SC__PAIRS_STRATEGY_NAME
};

const char *sc_pairs_strategy_name(sc_pairs_strategy_t s)
{
    return s >= 0 && s < SC_PAIRS_STRATEGIES ? plan__names[s] : "?";
}

int sc_pairs_strategy_parse(const char *name)
{
    for (int s = 0; s < SC_PAIRS_STRATEGIES; s++)
        if (strcmp(name, plan__names[s]) == 0)
            return s;
    return -1;
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

void sc_pairs_states(int n, const double *uni, const int *looks, double limit, signed char *state)
{
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (looks[a * n + b] > 0 && plan__slow(n, uni, a, b, limit))
                state[a] = state[b] = SC_PAIRS_SUSPECT;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) /* in a healthy pair, and in no slow one */
            if (a != b && looks[a * n + b] > 0 && state[a] != SC_PAIRS_SUSPECT &&
                !plan__slow(n, uni, a, b, limit))
                state[a] = SC_PAIRS_GOOD;
}

int sc_pairs_retests(int n, const signed char *state, int **peers)
{
    *peers = NULL;
    int *who = malloc((size_t)n * sizeof(int)), *with = malloc((size_t)n * sizeof(int));
    int nsuspects = 0, ngood = 0;
    for (int a = 0; who && with && a < n; a++) {
        if (state[a] == SC_PAIRS_SUSPECT)
            who[nsuspects++] = a;
        else if (state[a] == SC_PAIRS_GOOD)
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
    free(who);
    free(with);
    return *peers != NULL ? rounds : 0;
}

int sc_pairs_quick_retests(int n, const double *uni, const int *looks, double limit, int **peers)
{
    *peers = NULL;
    signed char *state = calloc((size_t)n, 1);
    if (state == NULL)
        return 0;
    sc_pairs_states(n, uni, looks, limit, state);
    int rounds = sc_pairs_retests(n, state, peers);
    free(state);
    return rounds;
}

/* The participants by leaf, in participant order: leaf l's are order[start[l] ..
 * start[l + 1]) (a counting sort, made once: listing them by scanning every participant for
 * every leaf of every round cost n x leaves per round). */
typedef struct {
    int *order, *start;
} plan__leaves_t;

static bool plan__leaves(int n, const int *leaf_of, int nleaves, plan__leaves_t *L)
{
    L->order = malloc((size_t)n * sizeof(int));
    L->start = calloc((size_t)nleaves + 1, sizeof(int));
    if (L->order == NULL || L->start == NULL)
        return false;
    for (int i = 0; i < n; i++)
        L->start[leaf_of[i] + 1]++;
    for (int l = 0; l < nleaves; l++)
        L->start[l + 1] += L->start[l];
    int *fill = malloc((size_t)nleaves * sizeof(int));
    if (fill == NULL)
        return false;
    memcpy(fill, L->start, (size_t)nleaves * sizeof(int));
    for (int i = 0; i < n; i++)
        L->order[fill[leaf_of[i]]++] = i;
    free(fill);
    return true;
}

/* Members of leaf l: *who points at them; how many. */
static int plan__members(const plan__leaves_t *L, int l, const int **who)
{
    *who = L->order + L->start[l];
    return L->start[l + 1] - L->start[l];
}

static void plan__join(int *round, int a, int b)
{
    round[a] = b;
    round[b] = a;
}

/* Under each leaf: its members even with odd, and an odd last one with the first a round
 * later (round1 NULL: that round is not planned). */
static void plan__under_leaves(const plan__leaves_t *L, int nleaves, int *round0, int *round1)
{
    for (int l = 0; l < nleaves; l++) {
        const int *who;
        int m = plan__members(L, l, &who);
        for (int j = 0; j + 1 < m; j += 2)
            plan__join(round0, who[j], who[j + 1]);
        if (m % 2 && m >= 3 && round1 != NULL)
            plan__join(round1, who[m - 1], who[0]);
    }
}

/* Round r of the leaves' round-robin: each leaf with its partner, member j with j + r. */
static void plan__across(const plan__leaves_t *L, int nleaves, int r, int *round)
{
    int slots = nleaves % 2 ? nleaves + 1 : nleaves;
    for (int a = 0; a < nleaves; a++) {
        int b = plan__partner(a, r, slots);
        if (b <= a || b >= nleaves)
            continue;
        const int *a_who, *b_who;
        int ma = plan__members(L, a, &a_who), mb = plan__members(L, b, &b_who);
        for (int j = 0; j < ma && j < mb; j++)
            plan__join(round, a_who[j], b_who[(j + r) % mb]);
    }
}

int sc_pairs_plan_switch(int n, const int *leaf_of, int nleaves, int **peers)
{
    *peers = NULL;
    plan__leaves_t L = {0};
    bool ok = plan__leaves(n, leaf_of, nleaves, &L), odd = false;
    for (int l = 0; ok && l < nleaves; l++) {
        const int *who;
        int m = plan__members(&L, l, &who);
        odd |= m % 2 && m >= 3;
    }
    int under = odd ? 2 : 1, slots = nleaves % 2 ? nleaves + 1 : nleaves;
    int across = nleaves > 1 ? slots - 1 : 0, rounds = under + across;
    *peers = ok ? malloc((size_t)rounds * (size_t)n * sizeof(int)) : NULL;
    if (*peers != NULL) {
        for (size_t i = 0; i < (size_t)rounds * (size_t)n; i++)
            (*peers)[i] = -1;
        plan__under_leaves(&L, nleaves, *peers, odd ? *peers + n : NULL);
        for (int r = 0; r < across; r++)
            plan__across(&L, nleaves, r, *peers + (size_t)(under + r) * n);
    }
    free(L.order);
    free(L.start);
    return *peers != NULL ? rounds : -1;
}

/* Quick with k bad nodes in k different first pairs: 2k suspects to pair again with the
 * n - 2k nodes of healthy pairs. */
static void plan__quick_counts(int n, int k, sc_pairs_count_t *out)
{
    int first_rounds = n % 2 ? 2 : 1, first_pairs = n / 2 + n % 2;
    int suspects = 2 * k, lenders = n - 2 * k - (n % 2);
    out->rounds = first_rounds + (k > 0 && lenders > 0 ? (suspects + lenders - 1) / lenders : 0);
    out->pairs = first_pairs + (k > 0 && lenders > 0 ? suspects : 0);
}

/* Switch on leaves of leaf_size (participant i under leaf i / leaf_size): its plan counted
 * without being made (the same whatever is bad: a node has a pair under its leaf and one with
 * every other leaf, enough to tell a node from its partner). Under the leaves, a leaf of m has
 * m / 2 pairs, and one more a round later when m is odd (and 3 or more); across them, every two
 * leaves meet once in the round-robin, with as many pairs as the smaller has members. What
 * sc_pairs_plan_switch makes, in closed form (test_pairs_plan holds the two equal). */
static void plan__switch_counts(int n, int leaf_size, int k, sc_pairs_count_t *out)
{
    if (n <= leaf_size) /* one leaf: quick's pairs, then its second step */
        return plan__quick_counts(n, k, out);
    long long full = n / leaf_size, rest = n % leaf_size, nleaves = full + (rest > 0);
    bool odd = (leaf_size % 2 && leaf_size >= 3) || (rest % 2 && rest >= 3);
    long long slots = nleaves % 2 ? nleaves + 1 : nleaves;
    out->rounds = (odd ? 2 : 1) + (nleaves > 1 ? (int)(slots - 1) : 0);
    out->pairs = full * (leaf_size / 2 + (leaf_size % 2 && leaf_size >= 3)) + rest / 2 +
                 (rest % 2 && rest >= 3) + full * (full - 1) / 2 * leaf_size + full * rest;
}

void sc_pairs_plan_counts(sc_pairs_strategy_t s, int n, int k, int leaf_size, sc_pairs_count_t *out)
{
    *out = (sc_pairs_count_t){0};
    if (s == SC_PAIRS_all || n < 3) {
        out->rounds = n % 2 ? n : n - 1;
        out->pairs = (long long)n * (n - 1) / 2;
    } else if (s == SC_PAIRS_quick)
        plan__quick_counts(n, k, out);
    else if (s == SC_PAIRS_switch)
        plan__switch_counts(n, leaf_size > 0 ? leaf_size : n, k, out);
    else
        sc_pairs_bisect_counts(n, k, out);
}
