/* sc_digest.c - the rows of a stream the whole-run checks need, kept as the rows go by. */
#include "judge/sc_digest.h"

#include <stdlib.h>
#include <string.h>

#include "judge/sc_steady.h"

bool sc_digest_init(sc_digest_t *d, const sc_topology_t *t, int gpus_per_node, int nodes)
{
    memset(d, 0, sizeof(*d));
    d->t = t;
    d->gpus_per_node = gpus_per_node;
    d->nodes = nodes;
    for (int c = 0; c < SC_COLL_COUNT; c++)
        d->tail[c] = d->looks[c] = -1;
    d->claim_row = malloc(((size_t)t->nclaims + 1) * sizeof(*d->claim_row));
    for (int k = 0; d->claim_row != NULL && k < t->nclaims; k++)
        d->claim_row[k] = -1;
    return d->claim_row != NULL;
}

/* row kept as the seen-th of the stream: its index in d->rows (-1: no memory). */
static int digest__keep(sc_digest_t *d, const sc_case_row_t *row, size_t seen)
{
    for (size_t i = 0; i < d->rows.n; i++)
        if (d->place[i] == seen)
            return (int)i; /* kept already, for another reason */
    size_t *place = realloc(d->place, (d->rows.n + 1) * sizeof(*place));
    if (place == NULL)
        return -1;
    d->place = place;
    sc_case_row_t *slot = SC_LIST_PUSH(&d->rows);
    if (slot == NULL)
        return -1;
    *slot = *row;
    d->place[d->rows.n - 1] = seen;
    return (int)d->rows.n - 1;
}

/* How many of the digest's marks point at rows[i]. */
static int digest__uses(const sc_digest_t *d, int i)
{
    int uses = 0;
    for (int k = 0; k < d->t->nclaims; k++)
        uses += d->claim_row[k] == i;
    for (int c = 0; c < SC_COLL_COUNT; c++)
        uses += (d->tail[c] == i) + (d->looks[c] == i);
    return uses;
}

/* Replaces the row at *at when row's ratio is larger (the first of equals stays, as
 * sc_verdict_steadiness takes it): in its slot when nothing else points there, so that the
 * digest stays a few rows however the stream goes. */
static bool digest__worst(sc_digest_t *d, int *at, const sc_case_row_t *row, size_t seen,
                          double (*ratio)(const sc_case_row_t *))
{
    double r = ratio(row);
    if (r <= 0 || (*at >= 0 && r <= ratio(&d->rows.items[*at])))
        return true;
    if (*at >= 0 && digest__uses(d, *at) == 1 && d->place[*at] != seen) {
        d->rows.items[*at] = *row;
        d->place[*at] = seen;
        return true;
    }
    *at = digest__keep(d, row, seen);
    return *at >= 0;
}

static int digest__coll(const char *name)
{
    for (int c = 0; c < SC_COLL_COUNT; c++)
        if (strcmp(sc_coll_id_name((sc_coll_id_t)c), name) == 0)
            return c;
    return -1;
}

bool sc_digest_row(sc_digest_t *d, const sc_case_row_t *row)
{
    size_t seen = d->seen++;
    bool ok = true;
    for (int k = 0; ok && k < d->t->nclaims; k++)
        if (d->claim_row[k] < 0 &&
            sc_verdict_claim_row(&d->t->claims[k], row, d->gpus_per_node, d->nodes))
            ok = (d->claim_row[k] = digest__keep(d, row, seen)) >= 0;
    int c = digest__coll(row->collective);
    if (c >= 0 && ok)
        ok = digest__worst(d, &d->tail[c], row, seen, sc_steady_tail_ratio) &&
             digest__worst(d, &d->looks[c], row, seen, sc_steady_looks_ratio);
    return ok;
}

typedef struct {
    size_t place;
    int index;
} digest__slot_t;

static int digest__by_place(const void *a, const void *b)
{
    size_t pa = ((const digest__slot_t *)a)->place, pb = ((const digest__slot_t *)b)->place;
    return (pa > pb) - (pa < pb);
}

void sc_digest_finish(sc_digest_t *d, sc_checks_t *checks)
{
    /* the rows in the stream's order: a claim's row is the first that measured it */
    sc_case_rows_t ordered = {0};
    digest__slot_t *order = malloc((d->rows.n + 1) * sizeof(*order));
    for (size_t i = 0; order != NULL && i < d->rows.n; i++)
        order[i] = (digest__slot_t){d->place[i], (int)i};
    if (order != NULL)
        qsort(order, d->rows.n, sizeof(*order), digest__by_place);
    for (size_t i = 0; order != NULL && i < d->rows.n; i++) {
        sc_case_row_t *slot = SC_LIST_PUSH(&ordered);
        if (slot != NULL)
            *slot = d->rows.items[order[i].index];
    }
    sc_verdict_case_claims(d->t, ordered.items, ordered.n, d->gpus_per_node, d->nodes, checks);
    sc_verdict_steadiness(d->t, ordered.items, ordered.n, checks);
    sc_list_free(&ordered);
    free(order);
    sc_list_free(&d->rows);
    free(d->place);
    free(d->claim_row);
    memset(d, 0, sizeof(*d));
}
