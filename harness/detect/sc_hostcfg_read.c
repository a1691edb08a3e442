/* sc_hostcfg_read.c - this host's configuration as preflight compares it (record/sc_hostcfg.h):
 * read from the libraries themselves, NVML, /proc and sysfs. SCALECHECK_SYSFS_ROOT puts another
 * tree in front of /sys (the tests give hosts InfiniBand ports that way). */
#include "detect/sc_hostcfg_read.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "comm/sc_gpu_plugin.h"
#include "telemetry/sc_xid_log.h"
#include "sc_config.h"
#include "telemetry/sc_nvml.h"
#include "util/sc_files.h"
#if SC_HAVE_UCX
#include <ucp/api/ucp.h>
#endif

extern char **environ;

/* The first line of a file, without its newline; false when it cannot be read. */
static bool cfg__line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    bool ok = f != NULL && fgets(buf, (int)len, f) != NULL;
    if (f != NULL)
        fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* Appends text to buf (len bytes), "; " between items; what does not fit is cut. */
static void cfg__append(char *buf, size_t len, const char *text)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

/* The collective library's and the runtime's versions of the first vendor whose driver this
 * host has (its module says them); "-" without one. */
static void cfg__gpu_libraries(sc_hostcfg_t *c)
{
    snprintf(c->nccl, sizeof(c->nccl), "-");
    snprintf(c->cuda_runtime, sizeof(c->cuda_runtime), "-");
    char why[512], text[1024], key[64];
    const sc_gpu_vendor_t *const *v = sc_gpu_vendors();
    while (*v != NULL && !sc_gpu_driver_present(*v, why, sizeof(why)))
        v++;
    if (*v == NULL)
        return; /* no driver: no module (CUDA, NCCL; HIP, RCCL) is loaded on the host path */
    const sc_gpu_plugin_t *plugin = sc_gpu_plugin_load(*v, why, sizeof(why));
    if (plugin == NULL) {
        snprintf(c->nccl, sizeof(c->nccl), "not loadable");
        return;
    }
    plugin->versions(text, sizeof(text));
    int major = 0, minor = 0, patch = 0, runtime = 0;
    snprintf(key, sizeof(key), "%s: ", (*v)->backend);
    const char *at = strstr(text, key), *rt = strstr(text, " runtime: ");
    if (at != NULL && sscanf(at + strlen(key), "%d.%d.%d", &major, &minor, &patch) == 3)
        snprintf(c->nccl, sizeof(c->nccl), "%d.%d.%d", major, minor, patch);
    bool cuda = strncmp(text, "nccl", 4) == 0; /* CUDA's 13000 is 13.0; HIP's is its own */
    if (rt != NULL && sscanf(rt, " runtime: %d", &runtime) == 1 && cuda)
        snprintf(c->cuda_runtime, sizeof(c->cuda_runtime), "%d.%d", runtime / 1000,
                 runtime % 1000 / 10);
    else if (rt != NULL && sscanf(rt, " runtime: %d", &runtime) == 1)
        snprintf(c->cuda_runtime, sizeof(c->cuda_runtime), "%d", runtime);
}

/* The network plugin NCCL would load: NCCL_NET_PLUGIN's, else libnccl-net.so where the loader
 * looks (LD_LIBRARY_PATH, then the system's folders). */
static void cfg__net_plugin(sc_hostcfg_t *c)
{
    const char *named = getenv("NCCL_NET_PLUGIN");
    if (named != NULL && named[0] != '\0') {
        snprintf(c->nccl_net_plugin, sizeof(c->nccl_net_plugin), "%s (NCCL_NET_PLUGIN)", named);
        return;
    }
    char dirs[2048], path[2200];
    const char *ld = getenv("LD_LIBRARY_PATH");
    snprintf(dirs, sizeof(dirs), "%s%s/usr/local/lib:/usr/lib/x86_64-linux-gnu:/usr/lib64:/usr/lib",
             ld ? ld : "", ld && ld[0] ? ":" : "");
    snprintf(c->nccl_net_plugin, sizeof(c->nccl_net_plugin), "none");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, sizeof(path), "%s/libnccl-net.so", d);
        if (access(path, R_OK) == 0) {
            snprintf(c->nccl_net_plugin, sizeof(c->nccl_net_plugin), "%s", path);
            return;
        }
    }
}

/* "Gen5 x16" */
static void cfg__pcie(char *buf, size_t len, int gen, int width)
{
    snprintf(buf, len, "Gen%d x%d", gen, width);
}

/* What every GPU agrees on, "mixed" where they differ, "-" where none says. */
static void cfg__same(char *buf, size_t len, const char *mine, int gpu)
{
    if (gpu == 0 || strcmp(buf, "-") == 0)
        snprintf(buf, len, "%s", mine);
    else if (strcmp(buf, mine) != 0)
        snprintf(buf, len, "mixed");
}

static void cfg__gpu(sc_hostcfg_t *c, const sc_gpu_config_t *g, unsigned i)
{
    char text[128];
    cfg__same(c->gpu_model, sizeof(c->gpu_model), g->name[0] ? g->name : "-", (int)i);
    snprintf(text, sizeof(text), "sm %d MHz, memory %d MHz", g->max_sm_mhz, g->max_mem_mhz);
    cfg__same(c->gpu_max_clocks, sizeof(c->gpu_max_clocks), g->max_sm_mhz < 0 ? "-" : text, (int)i);
    cfg__same(c->ecc, sizeof(c->ecc), g->ecc < 0 ? "-" : g->ecc ? "on" : "off", (int)i);
    cfg__same(c->persistence, sizeof(c->persistence),
              g->persistence < 0 ? "-"
              : g->persistence   ? "on"
                                 : "off",
              (int)i);
    if (g->pcie_max_gen > 0) {
        cfg__pcie(text, sizeof(text), g->pcie_max_gen, g->pcie_max_width);
        cfg__same(c->pcie, sizeof(c->pcie), text, (int)i); /* what the slots can do */
    }
    if (g->pcie_gen > 0 && (g->pcie_gen < g->pcie_max_gen || g->pcie_width < g->pcie_max_width)) {
        char now[32], can[32];
        cfg__pcie(now, sizeof(now), g->pcie_gen, g->pcie_width);
        cfg__pcie(can, sizeof(can), g->pcie_max_gen, g->pcie_max_width);
        snprintf(text, sizeof(text), "GPU %u at PCIe %s of %s", i, now, can);
        cfg__append(c->pcie_degraded, sizeof(c->pcie_degraded), text);
    }
    if (g->nvlinks_up >= 0) {
        int least = atoi(c->nvlinks_up);
        if (strcmp(c->nvlinks_up, "-") == 0 || g->nvlinks_up < least)
            snprintf(c->nvlinks_up, sizeof(c->nvlinks_up), "%d", g->nvlinks_up);
    }
}

/* GPU i at rest: what breaks a run (a remap pending or failed, a hardware XID in the driver's
 * log) and what is worth a look (memory repaired, throttled, NVLink errors). */
static void cfg__gpu_state(sc_hostcfg_t *c, sc_nvml_t *nvml, unsigned i)
{
    sc_gpu_sample_t s;
    sc_xid_tally_t xids;
    char text[160], why[160];
    sc_nvml_sample(nvml, i, &s);
    if (s.remap_pending > 0 || s.remap_failure > 0) {
        snprintf(text, sizeof(text), "GPU %u: a row remap %s", i,
                 s.remap_failure > 0 ? "failed (no spare row)" : "pending (reset the GPU)");
        cfg__append(c->gpu_trouble, sizeof(c->gpu_trouble), text);
    }
    if (sc_xid_log_read(s.bus_id, &xids, why, sizeof(why)) && xids.hardware > 0) {
        snprintf(text, sizeof(text), "GPU %u: %lld hardware XID%s logged since boot (last %lld)", i,
                 xids.hardware, xids.hardware == 1 ? "" : "s", xids.last);
        cfg__append(c->gpu_trouble, sizeof(c->gpu_trouble), text);
    }
    if (s.retired_pages > 0 || s.remapped_rows > 0) {
        snprintf(text, sizeof(text), "GPU %u: %lld retired pages, %lld remapped rows", i,
                 s.retired_pages > 0 ? s.retired_pages : 0,
                 s.remapped_rows > 0 ? s.remapped_rows : 0);
        cfg__append(c->gpu_repairs, sizeof(c->gpu_repairs), text);
    }
    if (s.throttle_reasons > 1) {
        char reasons[128];
        snprintf(text, sizeof(text), "GPU %u throttled at rest: %s", i,
                 sc_throttle_text(s.throttle_reasons, reasons, sizeof(reasons)));
        cfg__append(c->gpu_repairs, sizeof(c->gpu_repairs), text);
    }
}

static void cfg__gpus(sc_hostcfg_t *c)
{
    char why[256];
    int cuda = -1;
    snprintf(c->gpus, sizeof(c->gpus), "0");
#define CFG__NONE(field) snprintf(c->field, sizeof(c->field), "-")
    CFG__NONE(gpu_driver);
    CFG__NONE(cuda_driver);
    CFG__NONE(gpu_model);
    CFG__NONE(gpu_max_clocks);
    CFG__NONE(ecc);
    CFG__NONE(persistence);
    CFG__NONE(pcie);
    CFG__NONE(nvlinks_up);
#undef CFG__NONE
    sc_nvml_t *nvml = sc_nvml_open(why, sizeof(why));
    if (nvml == NULL)
        return;
    sc_nvml_driver(nvml, c->gpu_driver, sizeof(c->gpu_driver), &cuda);
    if (cuda > 0)
        snprintf(c->cuda_driver, sizeof(c->cuda_driver), "%d.%d", cuda / 1000, cuda % 1000 / 10);
    unsigned n = sc_nvml_count(nvml);
    snprintf(c->gpus, sizeof(c->gpus), "%u", n);
    for (unsigned i = 0; i < n; i++) {
        sc_gpu_config_t g;
        sc_nvml_config(nvml, i, &g);
        cfg__gpu(c, &g, i);
        cfg__gpu_state(c, nvml, i);
    }
    sc_nvml_close(nvml);
}

/* One port: "mlx5_0/1 ACTIVE 200 Gb/sec (4X HDR) InfiniBand"; a port not ACTIVE is noted. */
static void cfg__port(sc_hostcfg_t *c, const char *dev, const char *port, const char *dir)
{
    char path[1024], state[64] = "?", rate[64] = "?", layer[32] = "?", text[256];
    snprintf(path, sizeof(path), "%s/%s/state", dir, port);
    cfg__line(path, state, sizeof(state));
    snprintf(path, sizeof(path), "%s/%s/rate", dir, port);
    cfg__line(path, rate, sizeof(rate));
    snprintf(path, sizeof(path), "%s/%s/link_layer", dir, port);
    cfg__line(path, layer, sizeof(layer));
    const char *name = strchr(state, ':') ? strchr(state, ':') + 1 : state; /* "4: ACTIVE" */
    name += strspn(name, " ");
    snprintf(text, sizeof(text), "%s/%s %s %s %s", dev, port, name, rate, layer);
    cfg__append(c->ib_ports, sizeof(c->ib_ports), text);
    if (strcmp(name, "ACTIVE") != 0) {
        snprintf(text, sizeof(text), "%s/%s is %s", dev, port, name);
        cfg__append(c->ib_down, sizeof(c->ib_down), text);
    }
}

static int cfg__by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* The entries of dir that do not start with '.', sorted; their count (-1: no dir). */
static int cfg__list(const char *dir, struct dirent ***out)
{
    struct dirent **all = NULL;
    int n = scandir(dir, &all, NULL, cfg__by_name), kept = 0;
    for (int i = 0; i < n; i++) {
        if (all[i]->d_name[0] == '.')
            free(all[i]);
        else
            all[kept++] = all[i];
    }
    *out = all;
    return n < 0 ? -1 : kept;
}

static void cfg__ib(sc_hostcfg_t *c)
{
    char dir[1024], path[1300], fw[64], text[160];
    snprintf(dir, sizeof(dir), "%s/class/infiniband", sc_files_sysfs_root());
    struct dirent **devs = NULL;
    int n = cfg__list(dir, &devs);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s/fw_ver", dir, devs[i]->d_name);
        if (cfg__line(path, fw, sizeof(fw))) {
            snprintf(text, sizeof(text), "%s %s", devs[i]->d_name, fw);
            cfg__append(c->ib_firmware, sizeof(c->ib_firmware), text);
        }
        snprintf(path, sizeof(path), "%s/%s/ports", dir, devs[i]->d_name);
        struct dirent **ports = NULL;
        int np = cfg__list(path, &ports);
        for (int p = 0; p < np; p++) {
            cfg__port(c, devs[i]->d_name, ports[p]->d_name, path);
            free(ports[p]);
        }
        free(ports);
        free(devs[i]);
    }
    free(devs);
    if (c->ib_ports[0] == '\0')
        snprintf(c->ib_ports, sizeof(c->ib_ports), "none");
    if (c->ib_firmware[0] == '\0')
        snprintf(c->ib_firmware, sizeof(c->ib_firmware), "-");
}

static void cfg__cpu(sc_hostcfg_t *c)
{
    char line[256], path[1024];
    snprintf(c->cpu_model, sizeof(c->cpu_model), "-");
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':') != NULL) {
            const char *v = strchr(line, ':') + 1;
            snprintf(c->cpu_model, sizeof(c->cpu_model), "%s", v + strspn(v, " \t"));
            c->cpu_model[strcspn(c->cpu_model, "\n")] = '\0';
            break;
        }
    if (f != NULL)
        fclose(f);
    snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cpufreq/scaling_governor",
             sc_files_sysfs_root());
    if (!cfg__line(path, c->governor, sizeof(c->governor)))
        snprintf(c->governor, sizeof(c->governor), "-");
    struct utsname u;
    snprintf(c->kernel, sizeof(c->kernel), "%s", uname(&u) == 0 ? u.release : "-");
}

static int cfg__by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* NCCL_* and UCX_* as "NAME=value" lines, sorted. */
static void cfg__env(sc_hostcfg_t *c)
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n += strncmp(*e, "NCCL_", 5) == 0 || strncmp(*e, "UCX_", 4) == 0;
    char **vars = n ? malloc(n * sizeof(*vars)) : NULL;
    size_t k = 0;
    for (char **e = environ; vars && e && *e; e++)
        if (strncmp(*e, "NCCL_", 5) == 0 || strncmp(*e, "UCX_", 4) == 0)
            vars[k++] = *e;
    if (vars != NULL)
        qsort(vars, k, sizeof(*vars), cfg__by_text);
    size_t used = 0;
    for (size_t i = 0; i < k && used + strlen(vars[i]) + 2 < sizeof(c->env); i++)
        used += (size_t)snprintf(c->env + used, sizeof(c->env) - used, "%s\n", vars[i]);
    free(vars);
}

void sc_hostcfg_read(const sc_rte_t *rte, sc_hostcfg_t *c)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->host, sizeof(c->host), "%s", rte->host);
    c->rank = rte->rank;
    snprintf(c->scalecheck, sizeof(c->scalecheck), "%s", SC_VERSION);
    snprintf(c->mpi, sizeof(c->mpi), "%s", rte->mpi_version);
    snprintf(c->ucx, sizeof(c->ucx), "-");
#if SC_HAVE_UCX
    unsigned major = 0, minor = 0, release = 0;
    ucp_get_version(&major, &minor, &release);
    snprintf(c->ucx, sizeof(c->ucx), "%u.%u.%u", major, minor, release);
#endif
    cfg__gpu_libraries(c);
    cfg__net_plugin(c);
    cfg__gpus(c);
    cfg__ib(c);
    cfg__cpu(c);
    cfg__env(c);
}

/* Whether rank r is the first of its host in world order: it reads and sends for the host. */
static bool hostcfg__speaks(const sc_rte_t *rte, int r)
{
    for (int q = r - 1; q >= 0; q--)
        if (rte->host_index[q] == rte->host_index[r])
            return false;
    return true;
}

sc_status_t sc_hostcfg_gather(const sc_rte_t *rte, sc_hostcfg_t **hosts, int *nhosts, sc_err_t *err)
{
    *hosts = NULL;
    *nhosts = 0;
    /* the first rank of each host reads for it (NVML's start-up costs per process) and alone
     * sends: rank 0 takes a record a host, not a rank (4096 ranks on 512 hosts: 512 records) */
    sc_hostcfg_t mine;
    memset(&mine, 0, sizeof(mine));
    bool speaks = hostcfg__speaks(rte, rte->rank);
    if (speaks)
        sc_hostcfg_read(rte, &mine);
    sc_hostcfg_t *each = NULL;
    int *counts = NULL, *displs = NULL;
    if (rte->rank == 0) {
        each = calloc((size_t)rte->nhosts, sizeof(*each));
        counts = calloc((size_t)rte->size, sizeof(*counts));
        displs = calloc((size_t)rte->size, sizeof(*displs));
    }
    bool *seen = rte->rank == 0 ? calloc((size_t)rte->nhosts, sizeof(*seen)) : NULL;
    int ok = rte->rank != 0 || (each != NULL && counts != NULL && displs != NULL && seen != NULL);
    for (int r = 0; ok && rte->rank == 0 && r < rte->size; r++) {
        int h = rte->host_index[r]; /* hostcfg__speaks for every rank, in one pass */
        counts[r] = seen[h] ? 0 : (int)sizeof(mine);
        displs[r] = h * (int)sizeof(mine);
        seen[h] = true;
    }
    free(seen);
    MPI_Bcast(&ok, 1, MPI_INT, 0, rte->world);
    int rc = MPI_SUCCESS;
    if (ok)
        rc = MPI_Gatherv(&mine, speaks ? (int)sizeof(mine) : 0, MPI_BYTE, each, counts, displs,
                         MPI_BYTE, 0, rte->world);
    free(counts);
    free(displs);
    if (!ok || rc != MPI_SUCCESS)
        free(each);
    if (!ok)
        return sc_err_set(err, SC_ERR_NOMEM, "rank 0 (host %s): no memory for %d host records",
                          rte->host, rte->nhosts);
    if (rc != MPI_SUCCESS)
        return sc_rte_mpi_error(rte, rc, "MPI_Gatherv(host configurations)", err);
    if (rte->rank == 0) {
        *hosts = each;
        *nhosts = rte->nhosts;
    }
    return SC_OK;
}
