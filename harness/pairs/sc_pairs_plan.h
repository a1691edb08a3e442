/* sc_pairs_plan.h - which pairs `pairs` measures, round by round (sc_pairs_plan.c), and the
 * groups of the bisect search (sc_pairs_bisect_plan.c): a round is an array of n partners (-1:
 * none), every pair in it disjoint. Pure arithmetic: every rank computes the same rounds. */
#ifndef SC_PAIRS_PLAN_H
#define SC_PAIRS_PLAN_H

#include <stdbool.h>

/* Which pairs are measured:
 *  all    - every pair, the round-robin's n-1 rounds;
 *  quick  - each node paired once (even with odd), then each member of a slow pair with a node
 *           of a healthy one: a bad node is slow with a good partner too, a bad link is not;
 *  bisect - all-reduces over groups, the slow ones halved until pairs remain, then quick's
 *           second step: k slow nodes in about k log2 n measurements;
 *  switch - from the topology's switch map: pairs under each leaf, then every leaf with every
 *           other across the spine (a leaf's uplinks, a spine path named as such). */
#define SC_PAIRS_STRATEGY_MAP(X) X(all) X(quick) X(bisect) X(switch)
typedef enum {
#define SC__PAIRS_STRATEGY_ENUM(name) SC_PAIRS_##name,
    SC_PAIRS_STRATEGY_MAP(SC__PAIRS_STRATEGY_ENUM)
#undef SC__PAIRS_STRATEGY_ENUM
        SC_PAIRS_STRATEGIES
} sc_pairs_strategy_t;
#define SC_PAIRS_STRATEGY_CHOICES "all|quick|bisect|switch"
const char *sc_pairs_strategy_name(sc_pairs_strategy_t s);
/* -1 for a name that is none of them. */
int sc_pairs_strategy_parse(const char *name);

/* Every pair: the round-robin's rounds (n-1, n when n is odd) into *peers (rounds x n; free
 * it); -1 when memory is short. */
int sc_pairs_plan_all(int n, int **peers);
/* Quick's first step: i with i ^ 1 (an odd last node with the first, a round later). */
int sc_pairs_plan_quick(int n, int **peers);

/* What a pair search knows of each participant before it looks again. */
enum { SC_PAIRS_UNKNOWN, SC_PAIRS_SUSPECT, SC_PAIRS_GOOD };
/* Marks the members of measured pairs below limit SUSPECT and the other members of measured
 * pairs GOOD (a GOOD already in state stays unless the matrix makes it a suspect). */
void sc_pairs_states(int n, const double *uni, const int *looks, double limit, signed char *state);
/* Quick's second step: every SUSPECT paired with a GOOD node, in as few rounds as the good
 * nodes allow. *peers as above; returns the rounds (0: no suspect, or no good node to lend). */
int sc_pairs_retests(int n, const signed char *state, int **peers);
/* The two, from the matrix alone (quick). */
int sc_pairs_quick_retests(int n, const double *uni, const int *looks, double limit, int **peers);

/* ---- bisect ---- */
typedef struct {
    int first, count; /* participants first .. first + count - 1 */
} sc_span_t;
#define SC_BISECT_LEAF 3 /* a group of up to 3 is measured as its pairs, not by an all-reduce */
/* The first groups (room for n / 2 + 1): pairs below 16 participants, else min(16, n / 4)
 * groups of about equal size, so that the middle of their figures (the upper middle of an even
 * count) is a fair reference while at most half of them hold a bad node. */
int sc_pairs_bisect_start(int n, sc_span_t *groups);
/* What a round's healthy groups measure (busbw of ngroups > 0 groups, unchanged): the middle
 * figure, and of an even count the upper of the two middle ones. Faults only slow a group down:
 * with half the groups slow (two bad nodes in four groups) the mean of the middle two sits
 * halfway to the slow figures and hid one of them. 0 when out of memory. */
double sc_pairs_bisect_reference(const double *busbw, int ngroups);
/* After a round: the halves of the slow groups, those of SC_BISECT_LEAF or fewer appended to
 * leaves (room for n / 2 + 1, *nleaves grows), the others into next (room for n / 2 + 1).
 * Returns how many are in next. */
int sc_pairs_bisect_next(const sc_span_t *groups, const bool *slow, int ngroups, sc_span_t *next,
                         sc_span_t *leaves, int *nleaves);
/* The rounds that measure every pair inside each leaf: one round, or three when a leaf has
 * three members. *peers as above. */
int sc_pairs_plan_leaves(int n, const sc_span_t *leaves, int nleaves, int **peers);

/* ---- switch ---- */
/* Pairs under each leaf (one round, two when a leaf has an odd count), then a round-robin of
 * the leaves: in each round every leaf meets another, member j with member (j + r) of the
 * other. leaf_of[i]: participant i's leaf, 0 .. nleaves - 1. */
int sc_pairs_plan_switch(int n, const int *leaf_of, int nleaves, int **peers);

/* What a strategy takes on n participants with k bad nodes, each in a first pair (quick) or a
 * first group (bisect) of its own: the worst case. leaf_size: nodes under a leaf (switch). */
typedef struct {
    int rounds;
    long long pairs, groups; /* pairs measured, group all-reduces (bisect) */
} sc_pairs_count_t;
void sc_pairs_plan_counts(sc_pairs_strategy_t s, int n, int k, int leaf_size,
                          sc_pairs_count_t *out);
/* Bisect's part of it (sc_pairs_bisect_plan.c): the search run on groups that are slow when
 * they hold a bad node. */
void sc_pairs_bisect_counts(int n, int k, sc_pairs_count_t *out);

#endif
