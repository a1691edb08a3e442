/* The switch map (topology `switches:`): names and Slurm-style ranges matched (zero padding
 * kept, nonsense refused), a map read for the participants' hosts with file:line:column errors
 * (a host under two leaves, a bad entry, a host under none), and the localisation with it: the
 * pairs across two leaves all slow name the path between them, a leaf slow with every other one
 * its uplinks, and neither makes node or link suspects; a bad node or route stays what it is. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/sc_localize.h"
#include "pairs/sc_pairs_plan.h"
#include "sc_test.h"
#include "topology/sc_switches.h"

static bool match(const char *entry, const char *host)
{
    bool bad = false, hit = sc_switches_match(entry, host, &bad);
    return hit && !bad;
}

static bool refused(const char *entry)
{
    bool bad = false;
    sc_switches_match(entry, "h1", &bad);
    return bad;
}

static void check_match(void)
{
    SC_EXPECT(match("h3", "h3") && !match("h3", "h30"));
    SC_EXPECT(match("h[1-4]", "h1") && match("h[1-4]", "h4") && !match("h[1-4]", "h5"));
    SC_EXPECT(!match("h[1-4]", "h0") && !match("h[1-4]", "h01") && !match("h[1-4]", "hx"));
    SC_EXPECT(match("gpu[001-016,020]", "gpu001") && match("gpu[001-016,020]", "gpu020"));
    SC_EXPECT(!match("gpu[001-016,020]", "gpu1") && !match("gpu[001-016,020]", "gpu017"));
    SC_EXPECT(match("rack[2-3]-node", "rack3-node") && !match("rack[2-3]-node", "rack3-nod"));
    SC_EXPECT(refused("h[1-") && refused("h[a-b]") && refused("h[]") && refused("h[1-3]x[2]"));
    SC_EXPECT(refused("h[4-1]") && refused("h]") && !refused("h[1-3,7]"));
}

static char dir[] = "/tmp/test_switches.XXXXXX";

static sc_status_t leaves_of(const char *yaml, const char *const *hosts, int n, sc_leaves_t *out,
                             sc_err_t *err)
{
    sc_topology_t t;
    memset(&t, 0, sizeof(t));
    snprintf(t.path, sizeof(t.path), "%s/topo.yaml", dir);
    snprintf(t.switches_file, sizeof(t.switches_file), "%s", t.path);
    FILE *f = fopen(t.path, "w");
    fputs(yaml, f);
    fclose(f);
    sc_err_clear(err);
    return sc_switches_leaves(&t, hosts, n, out, err);
}

static bool says(const sc_err_t *err, const char *text)
{
    return strstr(err->msg, text) != NULL;
}

static void check_leaves(void)
{
    const char *hosts[] = {"h1", "h2", "h5", "h6"};
    sc_leaves_t l;
    sc_err_t err;
    SC_EXPECT(leaves_of("name: t\nswitches:\n  a: [h1, h2]\n  b: \"h[5-8]\"\n", hosts, 4, &l,
                        &err) == SC_OK);
    SC_EXPECT(l.nleaves == 2 && l.n == 4 && !strcmp(l.names[1], "b"));
    SC_EXPECT(l.leaf_of[0] == 0 && l.leaf_of[1] == 0 && l.leaf_of[2] == 1 && l.leaf_of[3] == 1);
    sc_leaves_free(&l);
    SC_EXPECT(leaves_of("switches:\n  a: [h1, h2]\n  b: [\"h[2-6]\"]\n", hosts, 4, &l, &err) ==
              SC_ERR_INPUT);
    SC_EXPECT(says(&err, "topo.yaml:3:7: switches.b: host h2 is under a already"));
    SC_EXPECT(leaves_of("switches:\n  a: [h1, \"h[x]\"]\n", hosts, 4, &l, &err) == SC_ERR_INPUT);
    SC_EXPECT(says(&err, "topo.yaml:2:11: switches.a: 'h[x]' is not a host name or a range"));
    SC_EXPECT(leaves_of("switches:\n  a: [h1, h2, h5]\n", hosts, 4, &l, &err) == SC_ERR_INPUT);
    SC_EXPECT(says(&err, "switches: host h6 is under no leaf") && l.leaf_of == NULL);
    SC_EXPECT(leaves_of("switches: [h1]\n", hosts, 4, &l, &err) == SC_ERR_INPUT);
    SC_EXPECT(says(&err, "topo.yaml:1:11: switches: expected a map of leaf switches"));
    SC_EXPECT(leaves_of("switches:\n  a: {x: 1}\n", hosts, 4, &l, &err) == SC_ERR_INPUT);
    SC_EXPECT(says(&err, "topo.yaml:2:6: switches.a: expected host names or a range"));
}

/* The switch plan's pairs measured on n nodes: 1 GB/s, 0.05 where slow(i, j) says. */
typedef bool (*slow_fn)(const int *leaf_of, int i, int j);

static void measure(int n, const int *leaf_of, int nleaves, slow_fn slow, double *bw, int *looks)
{
    int *peers = NULL, rounds = sc_pairs_plan_switch(n, leaf_of, nleaves, &peers);
    memset(bw, 0, (size_t)n * n * sizeof(double));
    memset(looks, 0, (size_t)n * n * sizeof(int));
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) {
            int p = peers[r * n + i];
            if (p >= 0) {
                bw[i * n + p] = slow(leaf_of, i, p) ? 0.05 : 1.0;
                looks[i * n + p] = 1;
            }
        }
    free(peers);
}

static bool across_01(const int *leaf_of, int i, int j)
{
    return leaf_of[i] != leaf_of[j];
}
static bool leaf2_out(const int *leaf_of, int i, int j)
{
    return leaf_of[i] != leaf_of[j] && (leaf_of[i] == 2 || leaf_of[j] == 2);
}
static bool node_3(const int *leaf_of, int i, int j)
{
    (void)leaf_of;
    return i == 2 || j == 2;
}
static bool route_12(const int *leaf_of, int i, int j)
{
    (void)leaf_of;
    return (i == 0 && j == 1) || (i == 1 && j == 0);
}

static int suspects(const sc_localization_t *loc, const char *kind, const char *where)
{
    int count = 0;
    for (int k = 0; k < loc->nsuspects; k++)
        count += !strcmp(loc->suspects[k].kind, kind) &&
                 (where == NULL || !strcmp(loc->suspects[k].where, where));
    return count;
}

static void check_localize(void)
{
    const char *names[9] = {"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9"};
    char leaf_names[3][64] = {"leaf1", "leaf2", "leaf3"};
    int two[8] = {0, 0, 0, 0, 1, 1, 1, 1}, three[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    sc_leaves_t l2 = {2, 8, leaf_names, two}, l3 = {3, 9, leaf_names, three};
    double bw[81];
    int looks[81];
    sc_localization_t loc;

    measure(8, two, 2, across_01, bw, looks); /* every pair across slow: the path */
    sc_localize(bw, looks, 8, names, 1.0, 0.5, &l2, &loc);
    SC_EXPECT(loc.nsuspects == 1 && suspects(&loc, "switch", "leaf1 <-> leaf2") == 1);
    sc_localization_free(&loc);
    sc_localize(bw, looks, 8, names, 1.0, 0.5, NULL, &loc); /* without the map: 4 links */
    SC_EXPECT(suspects(&loc, "link", NULL) == 4 && suspects(&loc, "switch", NULL) == 0);
    sc_localization_free(&loc);

    measure(9, three, 3, leaf2_out, bw, looks); /* leaf3 slow with both others: its uplinks */
    sc_localize(bw, looks, 9, names, 1.0, 0.5, &l3, &loc);
    SC_EXPECT(loc.nsuspects == 1 && suspects(&loc, "switch", "leaf3 uplinks") == 1);
    sc_localization_free(&loc);

    measure(8, two, 2, node_3, bw, looks); /* a bad node stays a node */
    sc_localize(bw, looks, 8, names, 1.0, 0.5, &l2, &loc);
    SC_EXPECT(loc.nsuspects == 1 && suspects(&loc, "node", "h3") == 1);
    sc_localization_free(&loc);

    measure(8, two, 2, route_12, bw, looks); /* a bad route under a leaf stays a link */
    sc_localize(bw, looks, 8, names, 1.0, 0.5, &l2, &loc);
    SC_EXPECT(loc.nsuspects == 1 && suspects(&loc, "link", "h1 <-> h2") == 1);
    sc_localization_free(&loc);
}

int main(void)
{
    check_match();
    if (mkdtemp(dir) == NULL)
        return 1;
    check_leaves();
    char path[64];
    snprintf(path, sizeof(path), "%s/topo.yaml", dir);
    unlink(path);
    rmdir(dir);
    check_localize();
    return sc_test_done("test_switches");
}
