/* fake_nccl_net.c - the emulated NCCL's network transport and its NIC stand-in
 * (tests/fakes/README.md). As NCCL does, two ranks of one host talk through the network only
 * where NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1 leave no other transport; both are read once
 * per process, at its first communicator, as NCCL caches its parameters. The NICs are declared:
 * FAKE_NCCL_NICS="mlx5_0:400,mlx5_1:400" (InfiniBand devices, Gb/s each way); a rank uses the
 * NIC of its GPU's index (modulo their count: one NIC per GPU, as on an HGX server), or the one
 * FAKE_NCCL_NIC_OF="RANK:K,..." names (a rank on a far NIC); FAKE_NCCL_GDR=0 turns GPUDirect
 * RDMA off (no peer memory module: the data is staged through host memory, at half the NIC's
 * rate in this stand-in). A group of sends and receives takes, on its stream, each direction's
 * bytes at the slower end's NIC rate (fakecuda_stream_modelled: events time the model; the
 * host's memmove is no NIC).
 * NCCL's INFO log, as NCCL writes it (src/debug.cc, transport/net.cc, net_ib/init.cc): with
 * NCCL_DEBUG=INFO and INIT or NET in NCCL_DEBUG_SUBSYS (default INIT,BOOTSTRAP,ENV), the
 * devices at the first communicator ("NET/IB : Using [0]mlx5_0:1/IB ... ; OOB ...") and each
 * connection at its first use ("Channel 00/1 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA"), to
 * NCCL_DEBUG_FILE (%h the host name up to its first dot, %p the pid) or standard output. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_nccl.h"

#define FN_NICS 32

static struct {
    pthread_once_t once;
    int net;  /* every peer through the network */
    int gdr;  /* GPUDirect RDMA on the NICs */
    int info; /* INFO lines of INIT or NET */
    FILE *log;
    int nnics;
    char names[FN_NICS][32];
    double gbps[FN_NICS];
    pthread_mutex_t lock;
} fn__nets = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static int fn__env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v != NULL && strcasecmp(v, value) == 0;
}

/* Whether NCCL_DEBUG_SUBSYS lets INIT or NET lines through ("^X" excludes, ALL all). */
static int fn__subsys_shown(void)
{
    const char *v = getenv("NCCL_DEBUG_SUBSYS");
    if (v == NULL || v[0] == '\0')
        return 1; /* the default, INIT,BOOTSTRAP,ENV */
    int invert = v[0] == '^';
    char list[256];
    snprintf(list, sizeof(list), "%s", v + invert);
    int named = 0;
    char *save = NULL;
    for (char *w = strtok_r(list, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save))
        named |= !strcasecmp(w, "INIT") || !strcasecmp(w, "NET") || !strcasecmp(w, "ALL");
    return invert ? !named : named;
}

/* NCCL_DEBUG_FILE with %h, %p and %% expanded. */
static FILE *fn__open_log(void)
{
    const char *v = getenv("NCCL_DEBUG_FILE");
    if (v == NULL || v[0] == '\0')
        return stdout;
    char host[256] = "", path[4096];
    gethostname(host, sizeof(host) - 1);
    host[strcspn(host, ".")] = '\0';
    size_t n = 0;
    for (const char *p = v; *p != '\0' && n + 300 < sizeof(path); p++) {
        if (*p != '%' || p[1] == '\0') {
            path[n++] = *p;
            continue;
        }
        p++;
        n += (size_t)(*p == 'h'   ? snprintf(path + n, sizeof(path) - n, "%s", host)
                      : *p == 'p' ? snprintf(path + n, sizeof(path) - n, "%d", (int)getpid())
                      : *p == '%' ? snprintf(path + n, sizeof(path) - n, "%%")
                                  : snprintf(path + n, sizeof(path) - n, "%%%c", *p));
    }
    path[n] = '\0';
    FILE *f = fopen(path, "w");
    if (f != NULL)
        setlinebuf(f);
    return f != NULL ? f : stdout;
}

static void fn__info(const char *fmt, ...)
{
    if (!fn__nets.info)
        return;
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    host[strcspn(host, ".")] = '\0';
    int dev = 0;
    cudaGetDevice(&dev);
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&fn__nets.lock);
    fprintf(fn__nets.log, "%s:%d:%d [%d] NCCL INFO %s\n", host, (int)getpid(),
            (int)syscall(SYS_gettid), dev, line);
    fflush(fn__nets.log);
    pthread_mutex_unlock(&fn__nets.lock);
}

static void fn__read_nics(void)
{
    const char *v = getenv("FAKE_NCCL_NICS");
    char list[1024];
    snprintf(list, sizeof(list), "%s", v ? v : "");
    char *save = NULL;
    for (char *w = strtok_r(list, ",", &save); w != NULL && fn__nets.nnics < FN_NICS;
         w = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(w, ':');
        double gbps = colon ? atof(colon + 1) : 0;
        if (colon)
            *colon = '\0';
        snprintf(fn__nets.names[fn__nets.nnics], sizeof(fn__nets.names[0]), "%.31s", w);
        fn__nets.gbps[fn__nets.nnics++] = gbps;
    }
}

static void fn__nets_read(void)
{
    /* under the emulated HCCL NCCL's variables are not read: they are not HCCL's (no NCCL log,
     * no network forced) */
    int nccl_env = FN_READS_NCCL_ENV;
    fn__nets.net =
        nccl_env && fn__env_is("NCCL_P2P_DISABLE", "1") && fn__env_is("NCCL_SHM_DISABLE", "1");
    fn__nets.info = nccl_env &&
                    (fn__env_is("NCCL_DEBUG", "INFO") || fn__env_is("NCCL_DEBUG", "TRACE")) &&
                    fn__subsys_shown();
    fn__nets.gdr = fn__env("FAKE_NCCL_GDR", 1) != 0;
    fn__nets.log = fn__nets.info ? fn__open_log() : stdout;
    fn__read_nics();
    char line[768] = "";
    size_t n = 0;
    for (int i = 0; i < fn__nets.nnics && n < sizeof(line) - 64; i++)
        n += (size_t)snprintf(line + n, sizeof(line) - n, " [%d]%s:1/IB", i, fn__nets.names[i]);
    if (fn__nets.nnics > 0)
        fn__info("NET/IB : Using%s ; OOB lo:127.0.0.1<0>", line);
    else
        fn__info("NET/Socket : Using [0]lo:127.0.0.1<0>");
}

/* The NIC world rank `rank` on device dev uses: FAKE_NCCL_NIC_OF's, else its GPU's own. */
static int fn__nic_of(int rank, int dev)
{
    const char *v = getenv("FAKE_NCCL_NIC_OF");
    for (const char *p = v; p != NULL && *p != '\0'; p = strchr(p, ',') ? strchr(p, ',') + 1 : "") {
        int r = -1, k = -1;
        if (sscanf(p, "%d:%d", &r, &k) == 2 && r == rank && k >= 0 && k < fn__nets.nnics)
            return k;
    }
    return fn__nets.nnics > 0 ? dev % fn__nets.nnics : 0;
}

/* Bytes a second through this rank's NIC (0: not declared - sockets). */
static double fn__nic_rate(ncclComm_t c)
{
    if (fn__nets.nnics == 0)
        return 0;
    double gbps = fn__nets.gbps[fn__nic_of(atomic_load(&fn__world_rank), c->cuda_dev)];
    return gbps * 1e9 / 8 * (fn__nets.gdr ? 1.0 : 0.5);
}

void fn__net_init(ncclComm_t c)
{
    pthread_once(&fn__nets.once, fn__nets_read);
    c->shm->dev[c->rank] = c->cuda_dev;
    c->shm->nic_rate[c->rank] = fn__nic_rate(c);
}

int fn__net_used(void)
{
    pthread_once(&fn__nets.once, fn__nets_read);
    return fn__nets.net;
}

void fn__net_connect(ncclComm_t c, int send, int peer)
{
    unsigned char bit = send ? 1 : 2;
    if (c->net_logged[peer] & bit)
        return;
    c->net_logged[peer] |= bit;
    int nic = fn__nic_of(atomic_load(&fn__world_rank), c->cuda_dev);
    const char *net = fn__nets.nnics > 0 ? "IB" : "Socket";
    const char *gdr = fn__nets.nnics > 0 && fn__nets.gdr ? "/GDRDMA" : "";
    int from = send ? c->rank : peer, to = send ? peer : c->rank;
    fn__info("Channel 00/1 : %d[%d] -> %d[%d] [%s] via NET/%s/%d%s", from, c->shm->dev[from], to,
             c->shm->dev[to], send ? "send" : "receive", net, nic, gdr);
}

double fn__net_model_ms(ncclComm_t c, const fn_op_t *ops, int nops)
{
    double send_s = 0, recv_s = 0;
    for (int i = 0; i < nops; i++) {
        double mine = c->shm->nic_rate[c->rank], theirs = c->shm->nic_rate[ops[i].root];
        double rate = mine < theirs ? mine : theirs; /* the slower end holds the flow back */
        if (rate <= 0)
            return 0;
        double s = (double)(ops[i].count * fn__esize(ops[i].dt)) / rate;
        if (ops[i].kind == FN_SEND) /* each direction on its own */
            send_s += s;
        else
            recv_s += s;
    }
    return fmax(send_s, recv_s) * 1e3;
}
