/* Every backend compiled in fills the core of the ops table (comm/sc_backend.h): what callers
 * use without asking first. The optional entries (supports, the feature tables, istart, irecv,
 * memory, abort_all) may be NULL - callers ask for them, through sc_comm_supports and
 * sc_comm_istart - and a collective the backend lacks is a NULL entry that sc_comm_coll names. */
#include <stdio.h>
#include <string.h>

#include "cli/sc_cli.h"
#include "comm/sc_backend.h"
#include "comm/sc_gpu_plugin.h"
#include "sc_config.h"
#include "sc_test.h"

static void core_filled(const sc_backend_ops_t *b)
{
    const struct {
        const char *what;
        const void *entry;
    } core[] = {
        {"open", (const void *)b->open},
        {"close", (const void *)b->close},
        {"version", (const void *)b->version},
        {"describe", (const void *)b->describe},
        {"alloc", (const void *)b->alloc},
        {"free", (const void *)b->free},
        {"to_host", (const void *)b->to_host},
        {"from_host", (const void *)b->from_host},
        {"fill_bytes", (const void *)b->fill_bytes},
        {"check_fill", (const void *)b->check_fill},
        {"check_count", (const void *)b->check_count},
        {"isend", (const void *)b->isend},
        {"recv", (const void *)b->recv},
        {"iwait", (const void *)b->iwait},
        {"compute_spin", (const void *)b->compute_spin},
        {"split", (const void *)b->split},
        {"sync", (const void *)b->sync},
        {"barrier", (const void *)b->barrier},
    };
    for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++) {
        if (core[i].entry == NULL)
            fprintf(stderr, "backend %s: core entry %s is NULL\n", b->name, core[i].what);
        SC_EXPECT(core[i].entry != NULL);
    }
    /* a feature table is whole or absent */
    if (b->timer != NULL)
        SC_EXPECT(b->timer->reserve != NULL && b->timer->mark != NULL &&
                  b->timer->interval != NULL);
    if (b->graph != NULL)
        SC_EXPECT(b->graph->begin && b->graph->end && b->graph->launch && b->graph->destroy);
    if (b->group != NULL)
        SC_EXPECT(b->group->begin != NULL && b->group->end != NULL);
    if (b->rma != NULL)
        SC_EXPECT(b->rma->expose && b->rma->put && b->rma->flush);
    if (b->gemm != NULL)
        SC_EXPECT(b->gemm->run != NULL);
}

/* A GPU backend's entry in the program only opens: it loads its vendor's module, whose table
 * the communicators carry (comm/sc_gpu_plugin.h). That table is the one held to the core. */
static void gpu_module(const sc_gpu_vendor_t *vendor, const sc_backend_ops_t *entry)
{
    SC_EXPECT(entry->open != NULL);
    char why[512] = "";
    const sc_gpu_plugin_t *plugin = sc_gpu_plugin_load(vendor, why, sizeof(why));
    if (plugin == NULL)
        fprintf(stderr, "the %s module did not load: %s\n", vendor->backend, why);
    SC_EXPECT(plugin != NULL && plugin->ops_size == sizeof(sc_backend_ops_t));
    if (plugin != NULL) {
        SC_EXPECT(strcmp(plugin->ops->name, entry->name) == 0 && plugin->ops->gpu);
        core_filled(plugin->ops);
    }
}

int main(void)
{
    int n = 0;
    bool mpi = false;
    for (const sc_backend_ops_t *const *b = sc_backend_list(); *b != NULL; b++, n++) {
        SC_EXPECT((*b)->name != NULL && (*b)->name[0] != '\0');
        mpi = mpi || strcmp((*b)->name, "mpi") == 0;
        const sc_gpu_vendor_t *vendor = sc_gpu_vendor_of((*b)->name);
        if (vendor != NULL) {
            gpu_module(vendor, *b);
            continue;
        }
        SC_EXPECT(!(*b)->gpu);
        core_filled(*b);
    }
    SC_EXPECT(n >= 1 && mpi); /* the host path is always built */
    /* --backend's choices name every backend in the list (one list: the option's metavar is
     * what the parser holds a value to) */
    const char *choices = NULL;
    for (const sc_cli_opt_t *o = sc_cli_common_rows; o->long_name != NULL; o++)
        if (strcmp(o->long_name, "backend") == 0)
            choices = o->metavar;
    SC_EXPECT(choices != NULL);
    for (const sc_backend_ops_t *const *b = sc_backend_list(); choices && *b != NULL; b++) {
        char bar[32];
        snprintf(bar, sizeof(bar), "%s|", (*b)->name);
        SC_EXPECT(strstr(choices, bar) != NULL);
    }
    /* the host path runs every registered collective */
    for (const sc_backend_ops_t *const *b = sc_backend_list(); *b != NULL; b++)
        if (strcmp((*b)->name, "mpi") == 0)
            for (int c = 0; c < SC_COLL_COUNT; c++)
                SC_EXPECT((*b)->coll[c] != NULL);
    return sc_test_done("test_backends");
}
