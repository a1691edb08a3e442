/* The one look-again loop (engine/sc_looks.c), on a one-rank world: only the figures rank 0
 * says are off are measured again, at most --looks looks in all, and the loop stops as soon as
 * none is off; --looks 1 measures nothing again. */
#include <string.h>

#include "engine/sc_looks.h"
#include "sc_test.h"

/* Figures that are off until they have had want[i] looks. */
typedef struct {
    int looks[4], want[4], calls_off;
} figures_t;

static void off(void *ctx, unsigned char *again)
{
    figures_t *f = ctx;
    f->calls_off++;
    for (int i = 0; i < 4; i++)
        again[i] = f->looks[i] < f->want[i];
}

static sc_status_t again(void *ctx, int i, sc_err_t *err)
{
    (void)err;
    figures_t *f = ctx;
    f->looks[i]++;
    return SC_OK;
}

static figures_t run(int max_looks, const int want[4], const sc_rte_t *rte)
{
    figures_t f = {{1, 1, 1, 1}, {want[0], want[1], want[2], want[3]}, 0};
    sc_looks_t l = {4, max_looks, "which figures to look at again", off, again, &f};
    sc_err_t err;
    SC_EXPECT(sc_looks_run(&l, NULL, rte, rte->world, &err) == SC_OK);
    return f;
}

int main(int argc, char **argv)
{
    sc_rte_t rte;
    sc_err_t err;
    if (sc_rte_init(&argc, &argv, &rte, &err) != SC_OK)
        return 1;
    static const int none[4] = {1, 1, 1, 1}, some[4] = {1, 3, 2, 9};
    figures_t f = run(3, none, &rte); /* none off: one decision, nothing measured */
    SC_EXPECT(f.calls_off == 1 && f.looks[0] == 1 && f.looks[3] == 1);
    f = run(3, some, &rte); /* off ones looked at again, capped at 3 looks in all */
    SC_EXPECT(f.looks[0] == 1 && f.looks[1] == 3 && f.looks[2] == 2 && f.looks[3] == 3);
    SC_EXPECT(f.calls_off == 2);
    f = run(5, some, &rte); /* ends once none is off (figure 3 still is: 5 looks) */
    SC_EXPECT(f.looks[1] == 3 && f.looks[2] == 2 && f.looks[3] == 5 && f.calls_off == 4);
    f = run(1, some, &rte); /* --looks 1: no second look, no decision */
    SC_EXPECT(f.calls_off == 0 && f.looks[3] == 1);
    sc_rte_fini(&rte);
    return sc_test_done("test_looks");
}
