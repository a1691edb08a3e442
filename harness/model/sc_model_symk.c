/* sc_model_symk.c - NCCL's symmetric-memory kernels (NCCL 2.27 and later), priced as NCCL's own
 * cost model for them prices each (src/sym_kernels.cc, read at NVIDIA/nccl master, June 2026;
 * docs/REFERENCE.md §3.5). A run whose buffers are registered as symmetric windows (nccl-tests
 * -R 2) on GPUs that all reach each other over NVLink runs its all-reduce, all-gather and
 * reduce-scatter in these kernels at every size NCCL has one for: a load/store kernel per
 * algorithm, an LL one for small messages, multicast ones where the switch has NVLink SHARP.
 * Each costs a base latency plus its bus bytes over the bandwidth its thread blocks reach (a
 * smooth min of blocks x a block's rate and the kernel's peak), with the fewest blocks within
 * 2.5 % of the most; the cheapest wins, each block weighing 2.5 % more. */
#include "sc_model_symk.h"

#include <math.h>

#define SC__GIBPS_US      ((double)(1 << 30) / 1e6) /* bytes a microsecond at 1 GiB/s */
#define SC__LL_BUS_FACTOR 9.0                       /* LL: twice the bytes, flags, no unrolling */
#define SC__MAX_BLOCKS    64                        /* ncclSymkMaxBlocks, and MAXCHANNELS */
#define SC__SM_PENALTY    0.025
#define SC__ENOUGH_BLOCKS 1.025
#define SC__LL_MAX_BUS    2147483648.0 /* LL kernels count in 32-bit: below 2 GiB */

typedef struct {
    double bus_bytes, bus_multiplier;
    bool ll, multicast, all_reduce_multicast; /* the one all-reduce kernel both ways */
} symk__kernel_t;

static double symk__softmin(double x, double ceiling, double softness)
{
    return ceiling - softness * log1p(expm1(ceiling / softness) * exp(-x / softness));
}

static double symk__softplus(double x, double softness)
{
    double z = x / softness;
    return z >= 100.0 ? x : softness * log1p(exp(z));
}

typedef struct {
    double base_us, block_rate, peak; /* bytes a microsecond */
} symk__speed_t;

/* A kernel's constants by GPU generation (Hopper, Blackwell and later). */
static symk__speed_t symk__speed(const symk__kernel_t *k, sc_coll_id_t coll, int cc)
{
    bool ag = coll == SC_COLL_allgather, ar = coll == SC_COLL_allreduce;
    if (cc < 100)
        return (symk__speed_t){k->ll ? 4.5 : 7.8, (ar ? 65.0 : 44.0) * SC__GIBPS_US,
                               (k->all_reduce_multicast ? 480.0 : 320.0) * SC__GIBPS_US};
    return (symk__speed_t){k->ll ? (ag ? 8.5 : 11.0) : (ar ? 19.5 : 13.0), 55.0 * SC__GIBPS_US,
                           (k->all_reduce_multicast ? 1000.0 : 600.0) * SC__GIBPS_US};
}

static double symk__time(const symk__kernel_t *k, symk__speed_t s, int blocks)
{
    double bw = symk__softmin(blocks * s.block_rate * k->bus_multiplier, s.peak, s.block_rate);
    return s.base_us + symk__softplus(k->bus_bytes / bw - 1.0, 1.0);
}

/* A kernel's time on the fewest blocks within 2.5 % of its most; *blocks set. */
static double symk__kernel_us(const symk__kernel_t *k, sc_coll_id_t coll, int cc, int gpus,
                              int *blocks)
{
    symk__speed_t s = symk__speed(k, coll, cc);
    int most = k->multicast && !k->ll ? ((cc < 100 ? 16 : 32) + gpus - 1) / gpus : SC__MAX_BLOCKS;
    double best = symk__time(k, s, most);
    *blocks = most;
    for (int b = 1; b < most; b++) {
        double us = symk__time(k, s, b);
        if (us <= SC__ENOUGH_BLOCKS * best) {
            *blocks = b;
            return us;
        }
    }
    return best;
}

/* The kernels NCCL has for coll on n GPUs (S: nccl-tests' size; m: a rank's part). */
static int symk__kernels(sc_coll_id_t coll, double S, int n, symk__kernel_t *out)
{
    double m = S / n, ll_bus = coll == SC_COLL_allreduce ? S : n * m;
    bool ll = ll_bus < SC__LL_MAX_BUS;
    int count = 0;
    if (coll == SC_COLL_allreduce) {
        if (ll) {
            out[count++] = (symk__kernel_t){n * S * SC__LL_BUS_FACTOR, 1.0, true, false, false};
            out[count++] = (symk__kernel_t){n * S * SC__LL_BUS_FACTOR, 1.1, true, true, false};
        }
        out[count++] = (symk__kernel_t){2.0 * S * (n - 1) / n, 1.0, false, false, false};
        out[count++] = (symk__kernel_t){S / n + S, (double)n, false, true, true};
        return count;
    }
    if (ll) {
        out[count++] = (symk__kernel_t){n * m * SC__LL_BUS_FACTOR, 1.0, true, false, false};
        if (coll == SC_COLL_allgather)
            out[count++] = (symk__kernel_t){n * m * SC__LL_BUS_FACTOR, 1.1, true, true, false};
    }
    out[count++] = (symk__kernel_t){(n - 1) * m, 1.0, false, false, false};
    out[count++] = (symk__kernel_t){(n - 1) * m, 0.55 * n, false, true, false};
    return count;
}

bool sc_model_symk_applies(const sc_topology_t *t, const sc_coll_t *coll, int gpus, int nodes)
{
    bool kind = coll->id == SC_COLL_allreduce || coll->id == SC_COLL_allgather ||
                coll->id == SC_COLL_reducescatter;
    return t->symmetric && t->library == SC_LIB_nccl && nodes <= 1 && gpus > 1 &&
           sc_topology_all_nvlink(t, gpus) && kind && sc_topology_gpu_cc(t) >= 90;
}

double sc_model_symk_us(const sc_topology_t *t, const sc_coll_t *coll, double size_bytes, int gpus)
{
    symk__kernel_t kernels[4];
    int n = symk__kernels(coll->id, size_bytes, gpus, kernels), cc = sc_topology_gpu_cc(t);
    /* multicast needs NVLink SHARP and more than two GPUs */
    bool multicast = sc_topology_nvls(t) && gpus > 2;
    double best_us = INFINITY, best_weighed = INFINITY;
    for (int i = 0; i < n; i++) {
        if (kernels[i].multicast && !multicast)
            continue;
        int blocks;
        double us = symk__kernel_us(&kernels[i], coll->id, cc, gpus, &blocks);
        double weighed = us * (1.0 + SC__SM_PENALTY * blocks);
        if (weighed < best_weighed) {
            best_weighed = weighed;
            best_us = us;
        }
    }
    return best_us;
}
