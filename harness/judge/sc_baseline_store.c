/* sc_baseline_store.c - interned keys, compact figures, points grouped in linear time. */
#include "judge/sc_baseline_store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_store_init(sc_store_t *s)
{
    memset(s, 0, sizeof(*s));
}

void sc_store_free(sc_store_t *s)
{
    free(s->arena);
    free(s->key_at);
    free(s->head);
    free(s->tail);
    free(s->slots);
    free(s->figures);
    free(s->order);
    memset(s, 0, sizeof(*s));
}

static uint64_t store__hash(const char *key)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *key != '\0'; key++)
        h = (h ^ (unsigned char)*key) * 1099511628211ull;
    return h;
}

static const char *store__key(const sc_store_t *s, size_t k)
{
    return s->arena + s->key_at[k];
}

static bool store__grow(void **items, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t cap2 = *cap ? *cap : 1024;
    while (cap2 < need)
        cap2 *= 2;
    void *grown = realloc(*items, cap2 * elem);
    if (grown == NULL)
        return false;
    *items = grown;
    *cap = cap2;
    return true;
}

/* Room for one more key in each of its arrays. */
static bool store__grow_keys(sc_store_t *s)
{
    if (s->nkeys < s->keys_cap)
        return true;
    size_t cap = s->keys_cap ? 2 * s->keys_cap : 1024;
    uint64_t *key_at = realloc(s->key_at, cap * sizeof(*key_at));
    if (key_at != NULL)
        s->key_at = key_at;
    uint32_t *head = realloc(s->head, cap * sizeof(*head));
    if (head != NULL)
        s->head = head;
    uint32_t *tail = realloc(s->tail, cap * sizeof(*tail));
    if (tail != NULL)
        s->tail = tail;
    if (key_at == NULL || head == NULL || tail == NULL)
        return false;
    s->keys_cap = cap;
    return true;
}

/* The table rebuilt at twice the size: kept under half full. */
static bool store__rehash(sc_store_t *s)
{
    size_t nslots = s->nslots ? 2 * s->nslots : 4096;
    uint32_t *slots = calloc(nslots, sizeof(*slots));
    if (slots == NULL)
        return false;
    for (size_t k = 0; k < s->nkeys; k++) {
        size_t at = store__hash(store__key(s, k)) & (nslots - 1);
        while (slots[at] != 0)
            at = (at + 1) & (nslots - 1);
        slots[at] = (uint32_t)k + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = nslots;
    return true;
}

/* key's index, added when new; -1: no memory. */
static long store__intern(sc_store_t *s, const char *key)
{
    if ((s->nkeys + 1) * 2 > s->nslots && !store__rehash(s))
        return -1;
    size_t at = store__hash(key) & (s->nslots - 1);
    for (; s->slots[at] != 0; at = (at + 1) & (s->nslots - 1))
        if (strcmp(store__key(s, s->slots[at] - 1), key) == 0)
            return (long)s->slots[at] - 1;
    size_t len = strlen(key) + 1;
    if (s->nkeys >= UINT32_MAX - 1 ||
        !store__grow((void **)&s->arena, &s->arena_cap, s->arena_len + len, 1) ||
        !store__grow_keys(s))
        return -1;
    memcpy(s->arena + s->arena_len, key, len);
    s->key_at[s->nkeys] = s->arena_len;
    s->head[s->nkeys] = s->tail[s->nkeys] = 0;
    s->arena_len += len;
    s->slots[at] = (uint32_t)s->nkeys + 1;
    return (long)s->nkeys++;
}

static int store__metric(sc_store_t *s, const char *metric, bool higher_is_better)
{
    for (int m = 0; m < s->nmetrics; m++)
        if (strcmp(s->metrics[m], metric) == 0)
            return m;
    if (s->nmetrics == SC_STORE_METRICS)
        return -1;
    snprintf(s->metrics[s->nmetrics], sizeof(s->metrics[0]), "%s", metric);
    s->higher_is_better[s->nmetrics] = higher_is_better;
    return s->nmetrics++;
}

bool sc_store_add(sc_store_t *s, const char *key, const char *metric, double value,
                  bool higher_is_better, int run, size_t *hint)
{
    long k = hint != NULL && *hint < s->nkeys && strcmp(store__key(s, *hint), key) == 0
                 ? (long)*hint
                 : store__intern(s, key);
    int m = store__metric(s, metric, higher_is_better);
    if (k < 0 || m < 0 || run < 0 || run > UINT8_MAX || s->nfigures >= UINT32_MAX - 1 ||
        !store__grow((void **)&s->figures, &s->figures_cap, s->nfigures + 1, sizeof(*s->figures)))
        return false;
    if (hint != NULL)
        *hint = (size_t)k + 1;
    uint32_t at = (uint32_t)++s->nfigures; /* index + 1 */
    s->figures[at - 1] =
        (sc_stored_figure_t){.metric = (uint8_t)m, .run = (uint8_t)run, .value = value};
    if (s->tail[k] != 0)
        s->figures[s->tail[k] - 1].next = at;
    else
        s->head[k] = at;
    s->tail[k] = at;
    return true;
}

/* qsort's comparison of key indices by their text (the arena is the context). */
static int store__by_text(const void *a, const void *b, void *arena_and_offsets)
{
    const sc_store_t *s = arena_and_offsets;
    return strcmp(store__key(s, *(const uint32_t *)a), store__key(s, *(const uint32_t *)b));
}

bool sc_store_group(sc_store_t *s)
{
    s->order = malloc((s->nkeys + 1) * sizeof(*s->order));
    if (s->order == NULL)
        return false;
    for (size_t k = 0; k < s->nkeys; k++)
        s->order[k] = (uint32_t)k;
    qsort_r(s->order, s->nkeys, sizeof(*s->order), store__by_text, s);
    return true;
}

static int store__double_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One point from a key's figures of one metric (in run order). */
static void store__point(const sc_store_t *s, const char *key, int metric,
                         const sc_stored_figure_t *f, size_t n, size_t nruns,
                         sc_baseline_point_t *p)
{
    double values[256] = {0};
    size_t kept = 0, used = 0, distinct = 0;
    memset(p, 0, sizeof(*p));
    snprintf(p->key, sizeof(p->key), "%s", key);
    snprintf(p->metric, sizeof(p->metric), "%s", s->metrics[metric]);
    p->higher_is_better = s->higher_is_better[metric];
    for (size_t i = 0; i < n; i++) {
        if (f[i].metric != metric)
            continue;
        if (kept < sizeof(values) / sizeof(values[0]))
            values[kept++] = f[i].value;
        bool again = false; /* a run named once, as it came */
        for (size_t j = 0; j < i && !again; j++)
            again = f[j].metric == metric && f[j].run == f[i].run;
        if (again)
            continue;
        distinct++;
        int w = snprintf(p->runs + used, sizeof(p->runs) - used, "%s%d", used ? " " : "", f[i].run);
        used =
            w < 0 || used + (size_t)w >= sizeof(p->runs) ? sizeof(p->runs) - 1 : used + (size_t)w;
    }
    if (distinct == nruns)
        snprintf(p->runs, sizeof(p->runs), "all");
    qsort(values, kept, sizeof(values[0]), store__double_cmp);
    p->median = kept % 2 ? values[kept / 2] : (values[kept / 2 - 1] + values[kept / 2]) / 2;
    p->lo = values[0];
    p->hi = values[kept - 1];
    p->spread = fmax(p->median - p->lo, p->hi - p->median) / p->median;
    p->count = (int)kept;
}

/* By run, and in a run as its figures came (their place in the chain). */
static int store__by_run(const void *a, const void *b)
{
    const sc_stored_figure_t *x = a, *y = b;
    if (x->run != y->run)
        return (x->run > y->run) - (x->run < y->run);
    return (x->next > y->next) - (x->next < y->next);
}

/* Key k's figures, in chain order, into f (none when f is NULL); how many it has. Each copy's
 * next holds its place in the chain: a run's figures keep their order when sorted by run. */
static size_t store__chain(const sc_store_t *s, size_t k, sc_stored_figure_t *f)
{
    size_t n = 0;
    for (uint32_t at = s->head[k]; at != 0; at = s->figures[at - 1].next, n++)
        if (f != NULL) {
            f[n] = s->figures[at - 1];
            f[n].next = (uint32_t)n;
        }
    return n;
}

long sc_store_find(const sc_store_t *s, const char *key)
{
    if (s->nslots == 0)
        return -1;
    for (size_t at = store__hash(key) & (s->nslots - 1); s->slots[at] != 0;
         at = (at + 1) & (s->nslots - 1))
        if (strcmp(store__key(s, s->slots[at] - 1), key) == 0)
            return (long)s->slots[at] - 1;
    return -1;
}

int sc_store_points(const sc_store_t *s, size_t i, size_t nruns, sc_baseline_point_t *points)
{
    return sc_store_key_points(s, s->order[i], nruns, points);
}

int sc_store_key_points(const sc_store_t *s, size_t k, size_t nruns, sc_baseline_point_t *points)
{
    sc_stored_figure_t few[64], *f = few;
    size_t n = store__chain(s, k, NULL);
    if (n > sizeof(few) / sizeof(few[0]) && (f = malloc(n * sizeof(*f))) == NULL)
        return -1;
    store__chain(s, k, f);
    /* readers on threads add their runs in any order: the runs in order again */
    qsort(f, n, sizeof(*f), store__by_run);
    int made = 0;
    for (int m = 0; m < s->nmetrics; m++) /* metrics in the order their names sort */
        for (size_t j = 0; j < n; j++)
            if (f[j].metric == m) {
                store__point(s, store__key(s, k), m, f, n, nruns, &points[made++]);
                break;
            }
    if (f != few)
        free(f);
    /* the points of a key by metric name, as a baseline file lists them */
    for (int a = 1; a < made; a++)
        for (int b = a; b > 0 && strcmp(points[b - 1].metric, points[b].metric) > 0; b--) {
            sc_baseline_point_t t = points[b];
            points[b] = points[b - 1];
            points[b - 1] = t;
        }
    return made;
}
