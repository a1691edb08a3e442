/* The reference for bench/pairs-vs-bare.py: one pair of ranks measured as `scalecheck pairs`
 * measures a pair on the MPI backend, in a bare loop. Latency: a warm-up message each way and
 * 100 untimed ping-pongs, then LAT ping-pongs of 8 bytes, one way = the total over 2 x LAT.
 * Bandwidth each way: best of 3 streams of ITERS MPI_Isend of SIZE bytes (one MPI_Waitall) received
 * by MPI_Recv, then a 1-byte ack; GB/s = bytes over the time the sender saw. Prints: latency_us
 * uni_01_GBps uni_10_GBps. usage: mpirun -np 2 bare_pairs [SIZE] [ITERS] [LAT] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double bare__ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One stream from `from` to the other rank; GB/s on the sender, 0 on the receiver. */
static double bare__stream(int me, int from, char *buf, size_t size, int iters, MPI_Request *reqs)
{
    int peer = 1 - me;
    char ack = 0;
    if (me == from) {
        double t0 = bare__ns();
        for (int k = 0; k < iters; k++)
            MPI_Isend(buf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &reqs[k]);
        MPI_Waitall(iters, reqs, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return (double)size * iters / (bare__ns() - t0);
    }
    for (int k = 0; k < iters; k++)
        MPI_Recv(buf + size, (int)size, MPI_BYTE, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&ack, 1, MPI_BYTE, from, 1, MPI_COMM_WORLD);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    size_t size = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)4 << 20;
    int iters = argc > 2 ? atoi(argv[2]) : 8, lat = argc > 3 ? atoi(argv[3]) : 50;
    char *buf = malloc(2 * size + 8);
    MPI_Request *reqs = malloc((size_t)iters * sizeof(MPI_Request));
    if (buf == NULL || reqs == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 0x3C, 2 * size + 8);
    bare__stream(me, 0, buf, 1, 1, reqs); /* warm-up, untimed */
    bare__stream(me, 1, buf, 1, 1, reqs);
    double t0 = 0;
    for (int k = -100; k < lat; k++) { /* 100 untimed, as osu_latency's skip: Open MPI's shared
                                          memory sets a peer's fast path up after 16 messages */
        if (k == 0)
            t0 = bare__ns();
        if (me == 0) {
            MPI_Send(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf + size, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf + size, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    double lat_us = (bare__ns() - t0) * 1e-3 / lat / 2;
    double uni[2] = {0, 0};
    for (int from = 0; from < 2; from++)
        for (int t = 0; t < 3; t++) {
            double g = bare__stream(me, from, buf, size, iters, reqs);
            uni[from] = g > uni[from] ? g : uni[from];
        }
    MPI_Allreduce(MPI_IN_PLACE, uni, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("%.4f %.4f %.4f\n", lat_us, uni[0], uni[1]);
    free(buf);
    free(reqs);
    MPI_Finalize();
    return 0;
}
