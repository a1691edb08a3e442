/* sc_bench_overhead.c - benchmark, not a test: how much the scalecheck engine adds to a
 * collective. For each size, rounds alternate between the engine (sc_engine_run_case, no data
 * check) and a bare loop of the same MPI call timed per iteration the same way (slowest rank per
 * iteration, median), and the ratio of the two medians is reported with their difference.
 * usage: mpirun -np 2 sc_bench_overhead [MAXBYTES] [ROUNDS] [ITERS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sc_engine.h"
#include "util/sc_clock.h"
#include "util/sc_size.h"

static double bench__median_of(double *v, size_t n)
{
    sc_stats_t st;
    sc_stats_compute(v, n, &st);
    return st.median;
}

/* The bare loop: MPI_Allreduce on floats, each iteration timed, slowest rank per iteration. */
static double bench__bare(MPI_Comm comm, void *send, void *recv, int count, int warmup, int iters,
                          double *times)
{
    for (int i = 0; i < warmup; i++)
        MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, comm);
    MPI_Barrier(comm);
    uint64_t prev = sc_clock_ns();
    for (int i = 0; i < iters; i++) {
        MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, comm);
        uint64_t now = sc_clock_ns();
        times[i] = (double)(now - prev) * 1e-3;
        prev = now;
    }
    MPI_Allreduce(MPI_IN_PLACE, times, iters, MPI_DOUBLE, MPI_MAX, comm);
    return bench__median_of(times, (size_t)iters);
}

int main(int argc, char **argv)
{
    sc_rte_t rte;
    sc_err_t err;
    if (sc_rte_init(&argc, &argv, &rte, &err) != SC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 3;
    }
    uint64_t max_bytes = 64ull << 20;
    if (argc > 1 && sc_size_parse(argv[1], "MAXBYTES", &max_bytes, &err) != SC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    int iters = argc > 3 ? atoi(argv[3]) : 50;
    sc_comm_t *comm = NULL;
    sc_engine_t *eng = NULL;
    sc_engine_opts_t opts;
    sc_engine_opts_default(&opts);
    opts.iters = iters;
    opts.check_iters = 0;
    if (sc_backend_open("mpi", &rte, &(sc_backend_opts_t){.device = -1}, &comm, NULL, 0, &err) !=
            SC_OK ||
        sc_engine_create(comm, rte.world, &opts, NULL, &eng, &err) != SC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 3;
    }
    /* Touched like the engine's buffers: untouched calloc pages all map the one zero page,
     * which would flatter the bare loop at large sizes. */
    void *send = malloc(max_bytes), *recv = malloc(max_bytes);
    if (send == NULL || recv == NULL)
        MPI_Abort(rte.world, 3);
    memset(send, 0, max_bytes);
    memset(recv, 0, max_bytes);
    double *times = malloc((size_t)iters * sizeof(double));
    double *ratios = malloc((size_t)rounds * sizeof(double));
    double *diffs = malloc((size_t)rounds * sizeof(double));
    if (rte.rank == 0)
        printf("# %d ranks, allreduce float sum, %d rounds x %d iterations, interleaved\n"
               "# %10s %12s %12s %8s %10s\n",
               rte.size, rounds, iters, "size", "engine_us", "bare_us", "ratio", "diff_us");
    for (uint64_t size = 8; size <= max_bytes; size *= 4) {
        sc_case_t c = {.coll = &sc_coll_allreduce, .dtype = SC_DTYPE_float, .op = SC_REDOP_sum};
        sc_engine_shape_case(eng, &c, size);
        double eng_sum = 0, bare_sum = 0;
        for (int r = 0; r < rounds; r++) {
            sc_case_result_t res;
            if (sc_engine_run_case(eng, &c, &res, &err) != SC_OK) {
                fprintf(stderr, "%s\n", err.msg);
                MPI_Abort(rte.world, 3);
            }
            double bare =
                bench__bare(rte.world, send, recv, (int)c.count, opts.warmup, iters, times);
            ratios[r] = res.time_us.median / bare;
            diffs[r] = res.time_us.median - bare;
            eng_sum += res.time_us.median;
            bare_sum += bare;
        }
        if (rte.rank == 0) {
            double ratio = bench__median_of(ratios, (size_t)rounds);
            double diff = bench__median_of(diffs, (size_t)rounds);
            printf("  %10llu %12.3f %12.3f %8.3f %10.3f\n", (unsigned long long)size,
                   eng_sum / rounds, bare_sum / rounds, ratio, diff);
            fflush(stdout);
        }
    }
    free(send);
    free(recv);
    free(times);
    free(ratios);
    free(diffs);
    sc_engine_destroy(eng);
    comm->ops->close(comm);
    sc_rte_fini(&rte);
    return 0;
}
