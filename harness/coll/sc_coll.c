#include "sc_coll.h"

#include <math.h>

#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "util/sc_names.h"

static const sc_coll_t *const coll__colls[] = {
#define SC__COLL_PTR(name) &sc_coll_##name,
    SC_COLL_MAP(SC__COLL_PTR)
#undef SC__COLL_PTR
        NULL,
};

const sc_coll_t *const *sc_coll_list(void)
{
    return coll__colls;
}

const sc_coll_t *sc_coll_get(sc_coll_id_t id)
{
    return id >= 0 && id < SC_COLL_COUNT ? coll__colls[id] : NULL;
}

/* Whether name spells the collective: ours ("allreduce") or nccl-tests' ("all_reduce"). */
static bool coll__spells(const char *ours, const char *name)
{
    for (;; ours++, name++) {
        while (*name == '_')
            name++;
        if (*ours != *name)
            return false;
        if (*ours == '\0')
            return true;
    }
}

sc_status_t sc_coll_find(const char *name, const char *flag, const sc_coll_t **coll, sc_err_t *err)
{
    const char *names[SC_COLL_COUNT + 1];
    int n = 0;
    for (const sc_coll_t *const *c = coll__colls; *c != NULL && n < SC_COLL_COUNT; c++) {
        if (coll__spells((*c)->name, name)) {
            *coll = *c;
            return SC_OK;
        }
        names[n++] = (*c)->name;
    }
    return sc_names_unknown(names, n, flag, "collective", name, "all", err);
}

size_t sc_coll_count_1(const sc_coll_shape_t *s)
{
    return s->count;
}

size_t sc_coll_count_n(const sc_coll_shape_t *s)
{
    return s->count * (size_t)s->nranks;
}

size_t sc_coll_offset_0(const sc_coll_shape_t *s)
{
    (void)s;
    return 0;
}

size_t sc_coll_offset_rank(const sc_coll_shape_t *s)
{
    return (size_t)s->rank * s->count;
}

size_t sc_coll_result_at_0(const sc_coll_shape_t *s, bool in_place)
{
    (void)s;
    (void)in_place;
    return 0;
}

double sc_coll_factor_one(int nranks)
{
    (void)nranks;
    return 1.0;
}

double sc_coll_factor_n1_n(int nranks)
{
    return nranks > 1 ? (double)(nranks - 1) / (double)nranks : 0.0;
}

double sc_coll_ring_steps(const sc_coll_t *c, int n)
{
    if (n <= 1)
        return 0.0;
    if (c->id == SC_COLL_sendrecv)
        return 1.0;
    return c->id == SC_COLL_allreduce ? 2.0 * (n - 1) : (double)(n - 1);
}

double sc_coll_tree_steps(int n)
{
    return n <= 1 ? 0.0 : 2.0 * ceil(log2((double)n));
}
