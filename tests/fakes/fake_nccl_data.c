/* fake_nccl_data.c - the emulated NCCL's data movement (fake_nccl.c says what it emulates): a
 * group's work on its CUDA stream - collectives through each rank's slot of the shared segment
 * (publish, barrier, consume, barrier), send/recv through one channel per (sender, receiver),
 * all the operations of a group at once - and the faults tests inject. */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_nccl.h"

/* ---- element types and reductions ---- */

int fn__dtype(ncclDataType_t dt, sc_dtype_t *out)
{
    static const int map[] = {
        [ncclInt8] = SC_DTYPE_int8,      [ncclUint8] = SC_DTYPE_uint8,
        [ncclInt32] = SC_DTYPE_int32,    [ncclUint32] = SC_DTYPE_uint32,
        [ncclInt64] = SC_DTYPE_int64,    [ncclUint64] = SC_DTYPE_uint64,
        [ncclFloat16] = SC_DTYPE_fp16,   [ncclFloat32] = SC_DTYPE_float,
        [ncclFloat64] = SC_DTYPE_double, [ncclBfloat16] = SC_DTYPE_bf16,
    };
    if ((unsigned)dt > ncclBfloat16)
        return 0; /* the fp8 types: not emulated */
    *out = (sc_dtype_t)map[dt];
    return 1;
}

size_t fn__esize(ncclDataType_t dt)
{
    sc_dtype_t t;
    return fn__dtype(dt, &t) ? FAKE_DTYPE_SIZE(t) : 1;
}

/* dst[i] = op over the n sources' element i (sources in rank order). */
static void fn__reduce_into(char *dst, const char *const *src, int n, size_t count,
                            ncclDataType_t dt, ncclRedOp_t op)
{
    sc_dtype_t t = SC_DTYPE_float;
    fn__dtype(dt, &t);
    for (size_t i = 0; i < count; i++) {
        double acc = sc_dtype_load(t, src[0], i);
        for (int r = 1; r < n; r++) {
            double v = sc_dtype_load(t, src[r], i);
            acc = op == ncclProd  ? acc * v
                  : op == ncclMin ? (v < acc ? v : acc)
                  : op == ncclMax ? (v > acc ? v : acc)
                                  : acc + v;
        }
        if (op == ncclAvg)
            acc = sc_dtype_core_is_float(t) ? acc / n : trunc(acc / n);
        sc_dtype_store(t, dst, i, acc);
    }
}

/* ---- collectives through the slots: publish, barrier, consume, barrier ---- */

static char *fn__slot(ncclComm_t c, int r)
{
    return c->slots + (size_t)r * FN_SLOT;
}

/* Every rank publishes `blocks` blocks of n elements (block b from src + b * stride elements,
 * at element offset off), then consume(c, op, off, n) reads the slots. */
typedef void (*fn_consume_fn)(ncclComm_t c, const fn_op_t *op, size_t off, size_t n);

static ncclResult_t fn__exchange(ncclComm_t c, const fn_op_t *op, int publishes, int blocks,
                                 size_t stride, size_t count, fn_consume_fn consume)
{
    size_t es = fn__esize(op->dt);
    size_t step = FN_SLOT / es / (size_t)blocks;
    for (size_t off = 0; off < count || (count == 0 && off == 0); off += step) {
        size_t n = count - off < step ? count - off : step;
        if (publishes)
            for (int b = 0; b < blocks; b++)
                memcpy(fn__slot(c, c->rank) + (size_t)b * n * es,
                       op->send + ((size_t)b * stride + off) * es, n * es);
        ncclResult_t rc = fn__barrier(c, &c->shm->bar_count, &c->shm->bar_gen);
        if (rc != ncclSuccess)
            return rc;
        consume(c, op, off, n);
        rc = fn__barrier(c, &c->shm->bar_count, &c->shm->bar_gen);
        if (rc != ncclSuccess)
            return rc;
        if (count == 0)
            break;
    }
    return ncclSuccess;
}

static void fn__consume_reduce(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    if (op->kind == FN_REDUCE && c->rank != op->root)
        return;
    const char *src[FN_MAX_RANKS];
    for (int r = 0; r < c->nranks; r++)
        src[r] = fn__slot(c, r);
    fn__reduce_into(op->recv + off * fn__esize(op->dt), src, c->nranks, n, op->dt, op->op);
}

static void fn__consume_bcast(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    size_t es = fn__esize(op->dt);
    memcpy(op->recv + off * es, fn__slot(c, op->root), n * es);
}

static void fn__consume_gather(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    if (op->kind == FN_GATHER && c->rank != op->root)
        return;
    size_t es = fn__esize(op->dt);
    for (int r = 0; r < c->nranks; r++)
        memcpy(op->recv + ((size_t)r * op->count + off) * es, fn__slot(c, r), n * es);
}

static void fn__consume_reducescatter(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    size_t es = fn__esize(op->dt);
    const char *src[FN_MAX_RANKS];
    for (int r = 0; r < c->nranks; r++)
        src[r] = fn__slot(c, r) + (size_t)c->rank * n * es;
    fn__reduce_into(op->recv + off * es, src, c->nranks, n, op->dt, op->op);
}

static void fn__consume_alltoall(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    size_t es = fn__esize(op->dt);
    for (int r = 0; r < c->nranks; r++)
        memcpy(op->recv + ((size_t)r * op->count + off) * es,
               fn__slot(c, r) + (size_t)c->rank * n * es, n * es);
}

static void fn__consume_scatter(ncclComm_t c, const fn_op_t *op, size_t off, size_t n)
{
    size_t es = fn__esize(op->dt);
    memcpy(op->recv + off * es, fn__slot(c, op->root) + (size_t)c->rank * n * es, n * es);
}

static ncclResult_t fn__collective(ncclComm_t c, const fn_op_t *op)
{
    int root = c->rank == op->root, n = c->nranks;
    switch (op->kind) {
    case FN_ALLREDUCE:
    case FN_REDUCE:
        return fn__exchange(c, op, 1, 1, 0, op->count, fn__consume_reduce);
    case FN_BROADCAST:
        return fn__exchange(c, op, root, 1, 0, op->count, fn__consume_bcast);
    case FN_ALLGATHER:
    case FN_GATHER:
        return fn__exchange(c, op, 1, 1, 0, op->count, fn__consume_gather);
    case FN_REDUCESCATTER:
        return fn__exchange(c, op, 1, n, op->count, op->count, fn__consume_reducescatter);
    case FN_ALLTOALL:
        return fn__exchange(c, op, 1, n, op->count, op->count, fn__consume_alltoall);
    case FN_SCATTER:
        return fn__exchange(c, op, root, n, op->count, op->count, fn__consume_scatter);
    default:
        return ncclInternalError;
    }
}

/* ---- send/recv: one channel per (sender, receiver), every operation of a group at once ---- */

typedef struct {
    size_t done; /* bytes moved */
    int finished;
} fn_p2p_t;

static char *fn__chan(ncclComm_t c, int from, int to)
{
    return c->chans + ((size_t)from * c->nranks + to) * FN_CHUNK;
}

/* One step of a send or a receive; returns 1 when it moved something. A receive whose size is
 * not the send's is an error (NCCL: undefined; here ncclInvalidUsage). */
static int fn__p2p_step(ncclComm_t c, const fn_op_t *op, fn_p2p_t *st, ncclResult_t *rc)
{
    size_t bytes = op->count * fn__esize(op->dt);
    int from = op->kind == FN_SEND ? c->rank : op->root;
    int to = op->kind == FN_SEND ? op->root : c->rank;
    size_t ch = (size_t)from * c->nranks + to;
    fn_shm_t *s = c->shm;
    if (op->kind == FN_SEND) {
        if (atomic_load(&s->sent[ch]) != atomic_load(&s->taken[ch]))
            return 0; /* the receiver has not taken the last chunk */
        if (st->done == bytes && (bytes > 0 || st->finished == 1)) {
            st->finished = 2;
            return 1;
        }
        size_t n = bytes - st->done < FN_CHUNK ? bytes - st->done : FN_CHUNK;
        memcpy(fn__chan(c, from, to), op->send + st->done, n);
        s->len[ch] = n;
        s->total[ch] = bytes;
        st->done += n;
        st->finished = 1;
        atomic_fetch_add(&s->sent[ch], 1);
        return 1;
    }
    if (atomic_load(&s->sent[ch]) == atomic_load(&s->taken[ch]))
        return 0;
    if (s->total[ch] != bytes) {
        *rc = fn__fail(c, ncclInvalidUsage, "send/recv size mismatch%s", "");
        return 0;
    }
    memcpy(op->recv + st->done, fn__chan(c, from, to), s->len[ch]);
    st->done += s->len[ch];
    atomic_fetch_add(&s->taken[ch], 1);
    if (st->done == bytes)
        st->finished = 2;
    return 1;
}

static ncclResult_t fn__p2p(ncclComm_t c, const fn_op_t *ops, int nops, double enqueued_ms)
{
    fn_p2p_t *st = calloc((size_t)nops, sizeof(*st));
    if (st == NULL)
        return ncclSystemError;
    ncclResult_t rc = ncclSuccess;
    double t0 = fakecuda_now_ms();
    for (int i = 0; i < nops && fn__net_used(); i++)
        fn__net_connect(c, ops[i].kind == FN_SEND, ops[i].root);
    unsigned spins = 0;
    for (;;) {
        int left = 0, moved = 0;
        for (int i = 0; i < nops && rc == ncclSuccess; i++) {
            if (st[i].finished == 2)
                continue;
            /* operations towards one peer go in issue order */
            int earlier = 0;
            for (int j = 0; j < i && !earlier; j++)
                earlier =
                    st[j].finished != 2 && ops[j].kind == ops[i].kind && ops[j].root == ops[i].root;
            left++;
            if (!earlier)
                moved |= fn__p2p_step(c, &ops[i], &st[i], &rc);
        }
        if (rc != ncclSuccess || left == 0)
            break;
        if (!moved) {
            rc = fn__check_abort(c);
            fn__backoff(&spins);
        } else {
            spins = 0;
        }
    }
    free(st);
    if (rc == ncclSuccess && fn__net_used()) /* through the NICs: their rates' time */
        fakecuda_stream_modelled(ops[0].stream, enqueued_ms, t0, fn__net_model_ms(c, ops, nops));
    return rc;
}

/* ---- the work on the stream ---- */

/* Whether this process runs the scalecheck command FAKE_NCCL_FAULT_COMMAND names (its first
 * argument: "run", "coll"), or no command is named. */
static int fn__fault_command(void)
{
    const char *want = getenv("FAKE_NCCL_FAULT_COMMAND");
    if (want == NULL || want[0] == '\0')
        return 1;
    char args[4096] = "";
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f != NULL ? fread(args, 1, sizeof(args) - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    args[n] = '\0';
    size_t first = strlen(args) + 1; /* the program, then its first argument */
    return first < n && strcmp(args + first, want) == 0;
}

static int fn__fault_here(const char *env)
{
    int at = fn__env(env, 0);
    return at > 0 && fn__env("FAKE_NCCL_FAULT_RANK", -1) == atomic_load(&fn__world_rank) &&
           atomic_load(&fn__ops_done) + 1 == (unsigned long long)at && fn__fault_command();
}

/* FAKE_NCCL_SLOW=R:US: world rank R's GPU takes US microseconds more to come to each operation
 * (busy in its own work): its peers' kernels wait for it inside the collective. */
static void fn__slow_gpu(void)
{
    const char *slow = getenv("FAKE_NCCL_SLOW");
    int rank = -1;
    double us = 0;
    if (slow == NULL || sscanf(slow, "%d:%lf", &rank, &us) != 2 ||
        rank != atomic_load(&fn__world_rank) || !fn__fault_command())
        return;
    /* asleep, not spinning: the GPU is busy, not the host's cores the other ranks share */
    struct timespec nap = {(time_t)(us / 1e6), (long)(fmod(us, 1e6) * 1e3)};
    nanosleep(&nap, NULL);
}

void fn__work_run(fc_work_t *base)
{
    fn_work_t *w = (fn_work_t *)base;
    ncclComm_t c = w->comm;
    atomic_fetch_add(&c->running, 1);
    ncclResult_t rc = fn__check_abort(c);
    if (rc == ncclSuccess && atomic_load(&c->error) != ncclSuccess)
        rc = atomic_load(&c->error); /* a failed communicator runs nothing more */
    if (rc == ncclSuccess && fn__fault_here("FAKE_NCCL_HANG_AT")) {
        fprintf(stderr, "fake NCCL: rank %d hangs in operation %llu (injected)\n", c->rank,
                atomic_load(&fn__ops_done) + 1);
        unsigned spins = 64;
        while (!atomic_load(&c->local_abort))
            fn__backoff(&spins);
        rc = ncclInvalidUsage;
    }
    if (rc == ncclSuccess && fn__fault_here("FAKE_NCCL_ERROR_AT")) {
        rc = fn__fail(c, ncclSystemError, "injected asynchronous error%s", "");
        int none = 0;
        atomic_compare_exchange_strong(&c->shm->aborted, &none, c->rank + 1);
    }
    fn__slow_gpu();
    /* the GPU starts the operations' kernels: the profiler plugin hears of it */
    void *kernels[64] = {NULL};
    for (int i = 0; i < w->nops && i < 64 && rc == ncclSuccess; i++)
        kernels[i] = fn__prof_kernel_start(c, &w->ops[i]);
    int p2p = 0;
    for (int i = 0; i < w->nops && rc == ncclSuccess; i++) {
        if (w->ops[i].kind == FN_SEND || w->ops[i].kind == FN_RECV)
            p2p++;
        else
            rc = fn__collective(c, &w->ops[i]);
    }
    if (rc == ncclSuccess && p2p > 0) { /* after the collectives, all at once */
        fn_op_t *ops = malloc((size_t)p2p * sizeof(*ops));
        int k = 0;
        for (int i = 0; i < w->nops && ops != NULL; i++)
            if (w->ops[i].kind == FN_SEND || w->ops[i].kind == FN_RECV)
                ops[k++] = w->ops[i];
        rc = ops ? fn__p2p(c, ops, p2p, base->enqueued_ms) : ncclSystemError;
        free(ops);
    }
    for (int i = 0; i < w->nops && i < 64; i++)
        fn__prof_kernel_stop(kernels[i]);
    atomic_fetch_add(&fn__ops_done, 1);
    if (rc != ncclSuccess && !atomic_load(&c->local_abort)) {
        int none = ncclSuccess;
        atomic_compare_exchange_strong(&c->error, &none, rc);
    }
    atomic_fetch_sub(&c->running, 1);
}

void fn__work_destroy(fc_work_t *base)
{
    fn_work_t *w = (fn_work_t *)base;
    fn__comm_release(w->comm);
    free(w->ops);
    free(w);
}
