/* The reference for bench/coll-vs-bare.py: MPI_Allreduce of floats in a bare loop, timed as
 * scalecheck coll times a case - every iteration timed back to back, the slowest rank's time of
 * each, the median - from 1 KB to 4 MB by x4, ITERS iterations after WARMUP. Prints a line a
 * size: bytes, median us. usage: mpirun -np N bare_allreduce [ITERS] [WARMUP] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double bare__us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int bare__cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iters = argc > 1 ? atoi(argv[1]) : 200, warmup = argc > 2 ? atoi(argv[2]) : 20;
    size_t most = (size_t)4 << 20;
    float *send = NULL, *recv = NULL;
    double *times = malloc((size_t)iters * sizeof(double));
    if (posix_memalign((void **)&send, 4096, most) != 0 ||
        posix_memalign((void **)&recv, 4096, most) != 0 || times == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(send, 0, most);
    memset(recv, 0, most);
    for (size_t bytes = 1024; bytes <= most; bytes *= 4) {
        int count = (int)(bytes / sizeof(float));
        for (int i = 0; i < warmup; i++)
            MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        double before = bare__us();
        for (int i = 0; i < iters; i++) {
            MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            double after = bare__us();
            times[i] = after - before;
            before = after;
        }
        MPI_Allreduce(MPI_IN_PLACE, times, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        qsort(times, (size_t)iters, sizeof(double), bare__cmp);
        if (rank == 0)
            printf("%zu %.3f\n", bytes, times[iters / 2]);
    }
    free(times);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
