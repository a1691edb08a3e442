/* sc_pairs_plan.h - which pairs `pairs` measures, round by round (sc_pairs_plan.c): a round is
 * an array of n partners (-1: none), every pair in it disjoint. */
#ifndef SC_PAIRS_PLAN_H
#define SC_PAIRS_PLAN_H

#include <stdbool.h>

/* Which pairs are measured: every pair (n-1 rounds), or the quick search - each node paired
 * once (even with odd), then each member of a slow pair paired again with a node of a healthy
 * one, which tells a bad node (slow with a good partner too) from a bad link (fine with
 * others): n/2 pairs when all is well, two more per slow pair. */
typedef enum { SC_PAIRS_ALL, SC_PAIRS_QUICK } sc_pairs_strategy_t;
const char *sc_pairs_strategy_name(sc_pairs_strategy_t s);

/* Every pair: the round-robin's rounds (n-1, n when n is odd) into *peers (rounds x n; free
 * it); -1 when memory is short. */
int sc_pairs_plan_all(int n, int **peers);
/* Quick's first step: i with i ^ 1 (an odd last node with the first, a round later). */
int sc_pairs_plan_quick(int n, int **peers);

/* Quick's second step: every member of a slow pair (a measured pair below limit) with a node of
 * a healthy pair, in as few rounds as the healthy nodes allow. *peers as above; returns the
 * rounds (0: nothing to look at again, or no healthy pair to lend partners). */
int sc_pairs_quick_retests(int n, const double *uni, const int *looks, double limit, int **peers);

/* Rounds and pairs a strategy takes on n participants with k bad nodes, each in a first pair
 * of its own (k = 0: all is well). For `pairs --plan-only`. */
void sc_pairs_plan_counts(sc_pairs_strategy_t s, int n, int k, int *rounds, int *pairs);

#endif
