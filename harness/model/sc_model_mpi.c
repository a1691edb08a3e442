/* sc_model_mpi.c - an MPI library's collectives where nothing was calibrated (the host path on
 * declared figures, and OSU's runs, which measure MPI on any system): the algorithms MPICH picks
 * by size and rank count (Thakur, Rabenseifner and Gropp, "Optimization of Collective
 * Communication Operations in MPICH", IJHPCA 19(1), 2005; the switch points are MPICH's
 * documented defaults, docs/REFERENCE.md §3.4), every message priced by its protocol: eager up
 * to the path's eager limit (one latency), rendezvous above it (a request and a reply before the
 * data: three). A step between ranks 2^k apart stays inside a node while 2^k is below the GPUs
 * (ranks) a node runs - ranks are placed by node, as mpirun's default does - and crosses the
 * network beyond; a ring's or a pairwise exchange's steps wait for their slowest pair. What a
 * reduction's arithmetic costs is left out: a host reduces at memory speed, faster than its
 * network. */
#include "sc_model_mpi.h"

#include <math.h>

#include "util/sc_defaults.h"

/* MPICH's defaults (MPIR_CVAR_*): the largest short message of each collective (bytes). */
#define SC__ALLREDUCE_SHORT    2048.0   /* ALLREDUCE_SHORT_MSG_SIZE: recursive doubling */
#define SC__REDUCE_SHORT       2048.0   /* REDUCE_SHORT_MSG_SIZE: binomial tree */
#define SC__BCAST_SHORT        12288.0  /* BCAST_SHORT_MSG_SIZE: binomial tree below it */
#define SC__BCAST_LONG         524288.0 /* BCAST_LONG_MSG_SIZE: scatter + ring from it */
#define SC__BCAST_MIN_PROCS    8        /* BCAST_MIN_PROCS: binomial tree below it */
#define SC__ALLGATHER_LONG     524288.0 /* ALLGATHER_LONG_MSG_SIZE: ring from it */
#define SC__REDSCAT_LONG       524288.0 /* REDSCAT_COMMUTATIVE_LONG_MSG_SIZE: pairwise */
#define SC__ALLTOALL_SHORT     256.0    /* ALLTOALL_SHORT_MSG_SIZE (each peer's part): Bruck */
#define SC__ALLTOALL_MIN_PROCS 8        /* ALLTOALL_MIN_PROCS: Bruck from it */

typedef struct {
    sc_hop_t node, net;
    double node_eager, net_eager; /* bytes */
    int g, nodes, p;              /* ranks a node, nodes, ranks */
    bool rendezvous;              /* a message went by rendezvous */
    double latency_us;            /* what is not bytes at the path's rate */
} mpi__run_t;

static bool mpi__pof2(int n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

static int mpi__log2_ceil(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

/* One message of m bytes over a hop (inside a node, or between nodes: a rank's share of the
 * node's NICs, every rank of the node sending at once). */
static double mpi__message(mpi__run_t *r, bool across, double m)
{
    const sc_hop_t *h = across ? &r->net : &r->node;
    double GBps = across ? h->GBps / r->g : h->GBps;
    bool rendezvous = m > (across ? r->net_eager : r->node_eager);
    double latency = h->latency_us * (rendezvous ? 3.0 : 1.0);
    r->rendezvous |= rendezvous;
    r->latency_us += latency;
    return latency + (GBps > 0 ? m / (GBps * 1e3) : 0.0);
}

/* Whether a step between ranks distance apart crosses the network. */
static bool mpi__across(const mpi__run_t *r, double distance)
{
    return r->nodes > 1 && distance >= r->g;
}

/* log2(p) steps between ranks 2^k apart, step k moving first x ratio^k bytes. */
static double mpi__doubling(mpi__run_t *r, double first, double ratio)
{
    double us = 0.0, m = first;
    for (int k = 0; k < mpi__log2_ceil(r->p); k++, m *= ratio)
        us += mpi__message(r, mpi__across(r, (double)(1 << k)), m);
    return us;
}

/* steps steps of m bytes each, the slowest pair's: across the network when it spans nodes. */
static double mpi__ring(mpi__run_t *r, int steps, double m)
{
    double us = 0.0;
    for (int k = 0; k < steps; k++)
        us += mpi__message(r, r->nodes > 1, m);
    return us;
}

/* A pairwise exchange: g - 1 partners inside the node, the rest across it. */
static double mpi__pairwise(mpi__run_t *r, double m)
{
    double us = 0.0;
    for (int k = 1; k < r->p; k++)
        us += mpi__message(r, mpi__across(r, (double)k), m);
    return us;
}

/* Reduce-scatter by recursive halving then an all-gather (all-reduce) or a gather (reduce) by
 * recursive doubling: step k moves S / 2^(k+1) between ranks 2^k apart, each way. */
static double mpi__rabenseifner(mpi__run_t *r, double S)
{
    return 2.0 * mpi__doubling(r, S / 2.0, 0.5);
}

static double mpi__collective(mpi__run_t *r, const sc_coll_t *c, double S, const char **alg)
{
    int p = r->p;
    switch (c->id) {
    case SC_COLL_allreduce:
        *alg = S <= SC__ALLREDUCE_SHORT ? "recursive-doubling" : "rabenseifner";
        return S <= SC__ALLREDUCE_SHORT ? mpi__doubling(r, S, 1.0) : mpi__rabenseifner(r, S);
    case SC_COLL_reduce:
        *alg = S <= SC__REDUCE_SHORT ? "binomial" : "rabenseifner";
        return S <= SC__REDUCE_SHORT ? mpi__doubling(r, S, 1.0) : mpi__rabenseifner(r, S);
    case SC_COLL_broadcast:
        if (S < SC__BCAST_SHORT || p < SC__BCAST_MIN_PROCS) {
            *alg = "binomial";
            return mpi__doubling(r, S, 1.0);
        }
        if (S < SC__BCAST_LONG && mpi__pof2(p)) {
            *alg = "scatter-doubling";
            return mpi__rabenseifner(r, S);
        }
        *alg = "scatter-ring";
        return mpi__doubling(r, S / 2.0, 0.5) + mpi__ring(r, p - 1, S / p);
    case SC_COLL_allgather: /* S: the whole gathered buffer */
        if (S < SC__ALLGATHER_LONG && mpi__pof2(p)) {
            *alg = "recursive-doubling";
            return mpi__doubling(r, S / p, 2.0);
        }
        *alg = "ring";
        return mpi__ring(r, p - 1, S / p);
    case SC_COLL_reducescatter: /* S: each rank's input */
        if (S < SC__REDSCAT_LONG) {
            *alg = "recursive-halving";
            return mpi__doubling(r, S / 2.0, 0.5);
        }
        *alg = "pairwise";
        return mpi__pairwise(r, S / p);
    case SC_COLL_alltoall: /* S: each rank's send buffer */
        if (S / p <= SC__ALLTOALL_SHORT && p >= SC__ALLTOALL_MIN_PROCS) {
            *alg = "bruck";
            return mpi__doubling(r, S / 2.0, 1.0);
        }
        *alg = "pairwise";
        return mpi__pairwise(r, S / p);
    case SC_COLL_gather:
    case SC_COLL_scatter: /* a binomial tree: step k moves 2^k ranks' parts */
        *alg = "binomial";
        return mpi__doubling(r, S / p, 2.0);
    default: /* sendrecv: each rank to its neighbour, the slowest pair's */
        *alg = "p2p";
        return mpi__message(r, r->nodes > 1, S);
    }
}

bool sc_model_mpi_applies(const sc_topology_t *t)
{
    return t->library == SC_LIB_mpi && t->cal_intra.n == 0 && t->cal_inter.n == 0;
}

sc_mpi_price_t sc_model_mpi(const sc_topology_t *t, const sc_coll_t *coll, double size_bytes,
                            int gpus_per_node, int nodes)
{
    mpi__run_t r = {
        .node = sc_topology_node_hop(t, size_bytes, gpus_per_node),
        .net = sc_topology_net_hop(t, size_bytes, nodes, gpus_per_node),
        .node_eager = t->intra_eager_bytes > 0 ? t->intra_eager_bytes : SC_MPI_SHM_EAGER_BYTES,
        .net_eager = t->nic_eager_bytes > 0 ? t->nic_eager_bytes : SC_MPI_NET_EAGER_BYTES,
        .g = gpus_per_node > 0 ? gpus_per_node : 1,
        .nodes = nodes > 0 ? nodes : 1,
    };
    r.p = r.g * r.nodes;
    sc_mpi_price_t out = {.algorithm = "p2p"};
    out.time_us = mpi__collective(&r, coll, size_bytes, &out.algorithm);
    out.latency_us = r.latency_us;
    out.protocol = r.rendezvous ? "rendezvous" : "eager";
    return out;
}
