/* sc_pairs_bisect_plan.c - the groups of the bisect search: the first partition, the halves of
 * the slow groups round after round, the pairs inside the leaves, and what the search takes
 * with k bad nodes (for --plan-only). Pure arithmetic: every rank computes the same groups. */
#include "pairs/sc_pairs_plan.h"

#include <stdlib.h>
#include <string.h>

#define BISECT_DIRECT 16 /* below this many participants the first groups are pairs */
#define BISECT_GROUPS 16 /* at most this many first groups */

int sc_pairs_bisect_start(int n, sc_span_t *groups)
{
    int count = n < BISECT_DIRECT ? n / 2 : n / 4 < BISECT_GROUPS ? n / 4 : BISECT_GROUPS;
    count = count > 0 ? count : 1;
    for (int g = 0; g < count; g++) { /* about equal sizes: g * n / count onwards */
        int first = (int)((long long)g * n / count), end = (int)((long long)(g + 1) * n / count);
        groups[g] = (sc_span_t){first, end - first};
    }
    return count;
}

static int bisect__cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sc_pairs_bisect_reference(const double *busbw, int ngroups)
{
    double *sorted = malloc((size_t)ngroups * sizeof(double));
    if (sorted == NULL)
        return 0;
    memcpy(sorted, busbw, (size_t)ngroups * sizeof(double));
    qsort(sorted, (size_t)ngroups, sizeof(double), bisect__cmp);
    double upper_middle = sorted[ngroups / 2];
    free(sorted);
    return upper_middle;
}

int sc_pairs_bisect_next(const sc_span_t *groups, const bool *slow, int ngroups, sc_span_t *next,
                         sc_span_t *leaves, int *nleaves)
{
    int nnext = 0;
    for (int g = 0; g < ngroups; g++) {
        if (!slow[g])
            continue;
        int half = groups[g].count / 2;
        sc_span_t halves[2] = {{groups[g].first, half},
                               {groups[g].first + half, groups[g].count - half}};
        for (int h = 0; h < 2; h++) {
            if (halves[h].count > SC_BISECT_LEAF)
                next[nnext++] = halves[h];
            else if (halves[h].count >= 1)
                leaves[(*nleaves)++] = halves[h];
        }
    }
    return nnext;
}

int sc_pairs_plan_leaves(int n, const sc_span_t *leaves, int nleaves, int **peers)
{
    int rounds = 1;
    for (int l = 0; l < nleaves; l++)
        rounds = leaves[l].count == 3 ? 3 : rounds;
    *peers = malloc((size_t)rounds * (size_t)n * sizeof(int));
    if (*peers == NULL)
        return -1;
    for (int i = 0; i < rounds * n; i++)
        (*peers)[i] = -1;
    for (int l = 0; l < nleaves; l++) {
        int a = leaves[l].first, b = a + 1, c = a + 2;
        if (leaves[l].count < 2)
            continue;
        (*peers)[a] = b, (*peers)[b] = a;
        if (leaves[l].count == 3) { /* a triangle: b-c, then a-c */
            (*peers)[n + b] = c, (*peers)[n + c] = b;
            (*peers)[2 * n + a] = c, (*peers)[2 * n + c] = a;
        }
    }
    return rounds;
}

/* Whether a span holds one of the k bad nodes (bad[i]). */
static bool bisect__holds(const sc_span_t *g, const bool *bad)
{
    for (int i = g->first; i < g->first + g->count; i++)
        if (bad[i])
            return true;
    return false;
}

/* The leaves' pairs as the search finds them: a pair with a bad node slow, its members
 * suspects; the members of the healthy ones good. Adds the pairs and rounds to out. */
static void bisect__leaf_states(const sc_span_t *leaves, int nleaves, const bool *bad,
                                signed char *state, sc_pairs_count_t *out)
{
    bool triangle = false;
    for (int l = 0; l < nleaves; l++) {
        const sc_span_t *g = &leaves[l];
        triangle |= g->count == 3;
        out->pairs += g->count == 3 ? 3 : g->count == 2 ? 1 : 0;
        for (int i = g->first; g->count >= 2 && i < g->first + g->count; i++)
            state[i] = bisect__holds(g, bad) ? SC_PAIRS_SUSPECT : SC_PAIRS_GOOD;
    }
    out->rounds += nleaves > 0 ? (triangle ? 3 : 1) : 0;
}

void sc_pairs_bisect_counts(int n, int k, sc_pairs_count_t *out)
{
    *out = (sc_pairs_count_t){0};
    size_t room = (size_t)n / 2 + 2;
    sc_span_t *groups = malloc(room * sizeof(sc_span_t)), *next = malloc(room * sizeof(sc_span_t));
    sc_span_t *leaves = malloc(room * sizeof(sc_span_t));
    bool *bad = calloc((size_t)n, sizeof(bool)), *slow = calloc(room, sizeof(bool));
    signed char *state = calloc((size_t)n, 1);
    if (!groups || !next || !leaves || !bad || !slow || !state)
        goto done;
    int ngroups = sc_pairs_bisect_start(n, groups), nleaves = 0, nall = 0;
    for (int g = 0; g < ngroups && g < k; g++) /* k bad nodes in k first groups */
        bad[groups[g].first] = true;
    for (int g = 0; g < ngroups; g++) /* the first groups that are pairs already: leaves */
        if (groups[g].count <= SC_BISECT_LEAF)
            leaves[nleaves++] = groups[g];
        else
            groups[nall++] = groups[g];
    for (ngroups = nall; ngroups > 0;) {
        out->rounds++;
        out->groups += ngroups;
        for (int g = 0; g < ngroups; g++) {
            slow[g] = bisect__holds(&groups[g], bad);
            for (int i = groups[g].first; !slow[g] && i < groups[g].first + groups[g].count; i++)
                state[i] = SC_PAIRS_GOOD;
        }
        ngroups = sc_pairs_bisect_next(groups, slow, ngroups, next, leaves, &nleaves);
        sc_span_t *swap = groups;
        groups = next, next = swap;
    }
    bisect__leaf_states(leaves, nleaves, bad, state, out);
    int suspects = 0, good = 0;
    for (int i = 0; i < n; i++) {
        suspects += state[i] == SC_PAIRS_SUSPECT;
        good += state[i] == SC_PAIRS_GOOD;
    }
    if (suspects > 0 && good > 0) {
        out->rounds += (suspects + good - 1) / good;
        out->pairs += suspects;
    }
done:
    free(groups);
    free(next);
    free(leaves);
    free(bad);
    free(slow);
    free(state);
}
