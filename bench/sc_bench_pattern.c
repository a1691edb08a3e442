/* sc_bench_pattern.c - benchmark, not a test: what the pattern engine adds to the collectives a
 * training step issues. The workload runs with zero compute and blocking gradient all-reduce
 * (no overlap), so a step is nothing but its collectives; one step is traced, each traced
 * collective is then timed alone by the coll engine (same communicator, type and count), and
 * the median step time is compared with the sum of those medians. Rounds alternate between the
 * two. Every group must be the whole job (DP/ZeRO/MoE workloads, or TP with --tp = ranks).
 * usage: mpirun -np N sc_bench_pattern WORKLOAD [BYTES_SCALE] [ROUNDS] [STEPS] [TP] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sc_engine.h"
#include "patterns/sc_pattern.h"
#include "util/sc_clock.h"

#define BENCH_MAX_OPS 4096

typedef struct {
    sc_coll_id_t op;
    sc_dtype_t dtype;
    size_t count;
} bench__op_t;

typedef struct {
    bench__op_t ops[BENCH_MAX_OPS];
    int n;
} bench__trace_t;

static void bench__record(void *arg, sc_coll_id_t op, sc_comm_t *comm, sc_dtype_t dtype,
                          size_t count)
{
    bench__trace_t *t = arg;
    (void)comm;
    if (t->n < BENCH_MAX_OPS)
        t->ops[t->n++] = (bench__op_t){op, dtype, count};
}

static const sc_coll_t *bench__coll(sc_coll_id_t op)
{
    return sc_coll_get(op);
}

static double bench__median(double *v, int n)
{
    sc_stats_t st;
    sc_stats_compute(v, (size_t)n, &st);
    return st.median;
}

/* Median over `steps` of the slowest rank's step time, microseconds. */
static double bench__steps(sc_step_t *step, MPI_Comm world, int steps, double *times)
{
    sc_err_t err;
    for (int i = 0; i < steps; i++) {
        MPI_Barrier(world);
        uint64_t t0 = sc_clock_ns();
        if (sc_step_run(step, &err) != SC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            MPI_Abort(world, 3);
        }
        times[i] = (double)(sc_clock_ns() - t0) * 1e-3;
    }
    MPI_Allreduce(MPI_IN_PLACE, times, steps, MPI_DOUBLE, MPI_MAX, world);
    return bench__median(times, steps);
}

/* Sum of each traced collective's median time alone. */
static double bench__alone(sc_engine_t *eng, const bench__trace_t *t, int nranks)
{
    double sum = 0;
    sc_err_t err;
    for (int i = 0; i < t->n; i++) {
        const sc_coll_t *coll = bench__coll(t->ops[i].op);
        size_t per = coll->size_is_total ? (size_t)nranks : 1;
        sc_case_t c = {.coll = coll,
                       .dtype = t->ops[i].dtype,
                       .op = SC_REDOP_sum,
                       .count = t->ops[i].count,
                       .size_bytes = t->ops[i].count * sc_dtype_size(t->ops[i].dtype) * per};
        sc_case_result_t r;
        if (sc_engine_run_case(eng, &c, &r, &err) != SC_OK) {
            fprintf(stderr, "%s\n", err.msg);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        sum += r.time_us.median;
    }
    return sum;
}

int main(int argc, char **argv)
{
    sc_rte_t rte;
    sc_err_t err;
    sc_workload_t w;
    if (sc_rte_init(&argc, &argv, &rte, &err) != SC_OK || argc < 2 ||
        sc_workload_load(argv[1], &w, &err) != SC_OK) {
        fprintf(stderr,
                "usage: sc_bench_pattern WORKLOAD [BYTES_SCALE] [ROUNDS] [STEPS] [TP]\n%s\n",
                argc < 2 ? "" : err.msg);
        return 2;
    }
    double scale = argc > 2 ? atof(argv[2]) : 0.01;
    int rounds = argc > 3 ? atoi(argv[3]) : 5, steps = argc > 4 ? atoi(argv[4]) : 10;
    if (argc > 5) { /* tensor parallel over all ranks: one stage */
        w.tp = atoi(argv[5]);
        w.pp = 1;
    }
    w.compute_mode = SC_COMPUTE_NONE;
    w.overlap = false;
    sc_comm_t *comm = NULL;
    sc_engine_t *eng = NULL;
    sc_layout_t l;
    sc_grid_t grid;
    sc_plan_t plan;
    sc_engine_opts_t eo;
    sc_engine_opts_default(&eo);
    eo.iters = steps;
    eo.check_iters = 0;
    if (sc_workload_layout(&w, rte.size, &l, &err) != SC_OK ||
        sc_plan_build(&w, &l, &plan, &err) != SC_OK ||
        sc_backend_open("mpi", &rte, &(sc_backend_opts_t){.device = -1}, &comm, NULL, 0, &err) !=
            SC_OK ||
        sc_grid_create(comm, &l, &grid, &err) != SC_OK ||
        sc_engine_create(comm, rte.world, &eo, NULL, &eng, &err) != SC_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    static bench__trace_t trace;
    sc_step_t step = {.plan = &plan,
                      .grid = &grid,
                      .world = comm,
                      .bytes_scale = scale,
                      .compute_scale = 0,
                      .trace = bench__record,
                      .trace_arg = &trace};
    step.buf_bytes = sc_step_buffer_bytes(&plan, scale);
    /* As `run` does: the backend's allocation (page-aligned on the host: a malloc'd buffer, 16 B
     * past a page boundary, made this machine's shared-memory allgather ~35 % faster than the
     * same call on coll's page-aligned buffers - the -20 % ZeRO-3 reading), written once. */
    step.buf = comm->ops->alloc(comm, step.buf_bytes);
    if (step.buf == NULL ||
        comm->ops->fill_bytes(comm, step.buf, 0, step.buf_bytes, &err) != SC_OK) {
        fprintf(stderr, "no memory for the step buffer (%zu B)\n", step.buf_bytes);
        return 2;
    }
    double *times = malloc((size_t)steps * sizeof(double));
    double *ratios = malloc((size_t)rounds * sizeof(double));
    sc_step_run(&step, &err); /* warm-up, and the trace of one step */
    step.trace = NULL;
    double step_sum = 0, alone_sum = 0;
    for (int r = 0; r < rounds; r++) {
        double step_us = bench__steps(&step, rte.world, steps, times);
        double alone_us = bench__alone(eng, &trace, rte.size);
        ratios[r] = step_us / alone_us;
        step_sum += step_us;
        alone_sum += alone_us;
    }
    if (rte.rank == 0)
        printf("%s on %d ranks (dp %d, tp %d), bytes x%g: %d collectives per step; step %.1f us, "
               "same collectives alone %.1f us; median ratio over %d rounds %.3f (engine adds "
               "%+.1f %%)\n",
               w.name, rte.size, l.dp, l.tp, scale, trace.n, step_sum / rounds, alone_sum / rounds,
               rounds, bench__median(ratios, rounds), (bench__median(ratios, rounds) - 1) * 100);
    comm->ops->free(comm, step.buf);
    free(times);
    free(ratios);
    sc_engine_destroy(eng);
    sc_grid_destroy(&grid);
    sc_plan_free(&plan);
    comm->ops->close(comm);
    sc_rte_fini(&rte);
    return 0;
}
