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

/* Members of leaf l, in participant order, into who (room for n); how many. */
static int plan__members(int n, const int *leaf_of, int l, int *who)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        if (leaf_of[i] == l)
            who[count++] = i;
    return count;
}

static void plan__join(int *round, int a, int b)
{
    round[a] = b;
    round[b] = a;
}

/* Under each leaf: its members even with odd, and an odd last one with the first a round
 * later (round1 NULL: that round is not planned). */
static void plan__under_leaves(int n, const int *leaf_of, int nleaves, int *who, int *round0,
                               int *round1)
{
    for (int l = 0; l < nleaves; l++) {
        int m = plan__members(n, leaf_of, l, who);
        for (int j = 0; j + 1 < m; j += 2)
            plan__join(round0, who[j], who[j + 1]);
        if (m % 2 && m >= 3 && round1 != NULL)
            plan__join(round1, who[m - 1], who[0]);
    }
}

/* Round r of the leaves' round-robin: each leaf with its partner, member j with j + r. */
static void plan__across(int n, const int *leaf_of, int nleaves, int r, int *a_who, int *b_who,
                         int *round)
{
    int slots = nleaves % 2 ? nleaves + 1 : nleaves;
    for (int a = 0; a < nleaves; a++) {
        int b = plan__partner(a, r, slots);
        if (b <= a || b >= nleaves)
            continue;
        int ma = plan__members(n, leaf_of, a, a_who), mb = plan__members(n, leaf_of, b, b_who);
        for (int j = 0; j < ma && j < mb; j++)
            plan__join(round, a_who[j], b_who[(j + r) % mb]);
    }
}

int sc_pairs_plan_switch(int n, const int *leaf_of, int nleaves, int **peers)
{
    bool odd = false;
    int *who = malloc((size_t)n * sizeof(int) * 2);
    for (int l = 0; who != NULL && l < nleaves; l++) {
        int m = plan__members(n, leaf_of, l, who);
        odd |= m % 2 && m >= 3;
    }
    int under = odd ? 2 : 1, slots = nleaves % 2 ? nleaves + 1 : nleaves;
    int across = nleaves > 1 ? slots - 1 : 0, rounds = under + across;
    *peers = who ? malloc((size_t)rounds * (size_t)n * sizeof(int)) : NULL;
    if (*peers == NULL) {
        free(who);
        return -1;
    }
    for (int i = 0; i < rounds * n; i++)
        (*peers)[i] = -1;
    plan__under_leaves(n, leaf_of, nleaves, who, *peers, odd ? *peers + n : NULL);
    for (int r = 0; r < across; r++)
        plan__across(n, leaf_of, nleaves, r, who, who + n, *peers + (size_t)(under + r) * n);
    free(who);
    return rounds;
}

/* Pairs in a plan's rounds. */
static long long plan__pairs(const int *peers, int rounds, int n)
{
    long long pairs = 0;
    for (int i = 0; i < rounds * n; i++)
        pairs += peers[i] > i % n;
    return pairs;
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

/* Switch on leaves of leaf_size: its plan counted (the same whatever is bad: a node has a pair
 * under its leaf and one with every other leaf, enough to tell a node from its partner). */
static void plan__switch_counts(int n, int leaf_size, int k, sc_pairs_count_t *out)
{
    if (n <= leaf_size) /* one leaf: quick's pairs, then its second step */
        return plan__quick_counts(n, k, out);
    int *leaf_of = malloc((size_t)n * sizeof(int)), *peers = NULL;
    for (int i = 0; leaf_of != NULL && i < n; i++)
        leaf_of[i] = i / leaf_size;
    int rounds =
        leaf_of ? sc_pairs_plan_switch(n, leaf_of, (n + leaf_size - 1) / leaf_size, &peers) : -1;
    out->rounds = rounds;
    out->pairs = rounds > 0 ? plan__pairs(peers, rounds, n) : 0;
    free(peers);
    free(leaf_of);
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
