#include "sc_detect.h"

#include <dirent.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sc_files.h"
#include "telemetry/sc_nvml.h"

static void detect__cpus(sc_detected_t *d)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) == 0) {
        d->sockets = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        d->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        d->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    }
    hwloc_topology_destroy(topo);
}

static void detect__gpus(sc_detected_t *d)
{
    char why[256];
    d->nvlinks_up = -1;
    snprintf(d->library, sizeof(d->library), "mpi");
    /* NVML's GPUs, or an AMD host's (the same monitor, from the amdgpu driver's sysfs) */
    sc_nvml_t *nvml = sc_nvml_open(why, sizeof(why));
    if (nvml == NULL) {
        snprintf(d->gpu_note, sizeof(d->gpu_note), "%s", why);
        return;
    }
    d->gpus = (int)sc_nvml_count(nvml);
    if (d->gpus > 0)
        snprintf(d->library, sizeof(d->library), "%s", sc_nvml_library(nvml));
    for (int g = 0; g < d->gpus; g++) {
        sc_gpu_sample_t s;
        sc_nvml_sample(nvml, (unsigned)g, &s);
        if (g == 0)
            snprintf(d->gpu, sizeof(d->gpu), "%s", s.name);
        if (d->nvlinks_up < 0 || s.nvlinks_up < d->nvlinks_up)
            d->nvlinks_up = s.nvlinks_up;
    }
    if (d->gpus > 0) {
        sc_gpu_config_t g;
        sc_nvml_config(nvml, 0, &g);
        d->gpu_memory_GBps = sc_gpu_config_memory_GBps(&g);
        d->gpu_memory_gb = g.mem_total_gb * 1e9 / 1073741824.0; /* datasheets' "GB": GiB */
        d->pcie_gen = g.pcie_max_gen > 0 ? g.pcie_max_gen : 0;
    }
    sc_nvml_close(nvml);
}

static double detect__read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    double v = -1;
    if (f != NULL) {
        if (fscanf(f, "%lf", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

static bool detect__read_text(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

static void detect__count_nic(sc_detected_t *d, double gbps, const char *kind)
{
    d->nics++;
    if (d->nic_gbps == 0 || gbps < d->nic_gbps)
        d->nic_gbps = gbps;
    snprintf(d->nic_kind, sizeof(d->nic_kind), "%s", kind);
}

/* InfiniBand/RoCE ports that are ACTIVE: "4: ACTIVE", rate "200 Gb/sec (4X HDR)". */
static void detect__ib(sc_detected_t *d)
{
    DIR *dir = opendir("/sys/class/infiniband");
    struct dirent *e;
    while (dir && (e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[512], state[64], layer[64];
        snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/state", e->d_name);
        if (!detect__read_text(path, state, sizeof(state)) || strstr(state, "ACTIVE") == NULL)
            continue;
        snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/rate", e->d_name);
        double rate = detect__read_number(path);
        snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/link_layer", e->d_name);
        bool eth = detect__read_text(path, layer, sizeof(layer)) && strcmp(layer, "Ethernet") == 0;
        detect__count_nic(d, rate > 0 ? rate : 0, eth ? "roce" : "infiniband");
    }
    if (dir)
        closedir(dir);
}

/* Ethernet links that report a speed (virtual ones do not), when there is no InfiniBand. */
static void detect__ethernet(sc_detected_t *d)
{
    DIR *dir = opendir("/sys/class/net");
    struct dirent *e;
    while (dir && (e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "lo") == 0)
            continue;
        char path[512];
        snprintf(path, sizeof(path), "/sys/class/net/%s/speed", e->d_name);
        double mbps = detect__read_number(path);
        if (mbps > 0)
            detect__count_nic(d, mbps / 1000.0, "ethernet");
    }
    if (dir)
        closedir(dir);
}

void sc_detect_host(sc_detected_t *d, const char *host)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->host, sizeof(d->host), "%s", host);
    snprintf(d->nic_kind, sizeof(d->nic_kind), "none");
    detect__cpus(d);
    detect__gpus(d);
    detect__ib(d);
    if (d->nics == 0)
        detect__ethernet(d);
}

sc_status_t sc_detect_all(const sc_rte_t *rte, sc_detected_t **hosts, sc_err_t *err)
{
    sc_detected_t mine;
    sc_detect_host(&mine, rte->host);
    sc_detected_t *all = rte->rank == 0 ? calloc((size_t)rte->size, sizeof(*all)) : NULL;
    if (rte->rank == 0 && all == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "no memory for detection");
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0, rte->world);
    if (rte->rank == 0) { /* one entry per host: the first rank of each */
        int n = 0;
        for (int r = 0; r < rte->size; r++)
            if (rte->host_index[r] == n)
                all[n++] = all[r];
    }
    *hosts = all;
    return SC_OK;
}

typedef struct {
    const sc_detected_t *hosts;
    int nhosts, ranks_per_host;
} detect__yaml_arg_t;

static int detect__yaml_writer(FILE *out, void *arg)
{
    const detect__yaml_arg_t *a = arg;
    const sc_detected_t *d = &a->hosts[0];
    bool gpus = d->gpus > 0;
    fprintf(out, "# Written by scalecheck detect: what host %s%s really has.\n", d->host,
            a->nhosts > 1 ? " (and the others of the job)" : "");
    fprintf(out, "name: detected-%s\ndescription: detected on %d host%s\nlibrary: %s\n", d->host,
            a->nhosts, a->nhosts == 1 ? "" : "s", d->library);
    fprintf(out, "node:\n  gpu: \"%s\"\n  gpus: %d\n  sockets: %d\n  cores: %d\n  numa_nodes: %d\n",
            gpus ? d->gpu : "cpu-rank", gpus ? d->gpus : a->ranks_per_host,
            d->sockets > 0 ? d->sockets : 1, d->cores > 0 ? d->cores : 1,
            d->numa_nodes > 0 ? d->numa_nodes : 1);
    if (!gpus)
        fprintf(out, "  # no GPU: %s\n", d->gpu_note);
    if (gpus && d->gpu_memory_gb > 0)
        fprintf(out, "  gpu_memory_gb: %.0f\n", d->gpu_memory_gb);
    if (gpus && d->gpu_memory_GBps > 0) /* a one-GPU collective is a copy at this rate */
        fprintf(out, "  gpu_memory_GBps: %.0f   # NVML: top memory clock x 2 x bus width\n",
                d->gpu_memory_GBps);
    const char *fabric = !gpus ? "shm" : d->nvlinks_up >= 12 ? "nvswitch" : "pcie";
    fprintf(out, "intra:\n  fabric: %s\n", fabric);
    if (!gpus)
        fprintf(out, "  gpu_bandwidth_GBps: 5\n  efficiency: 1.0\n");
    else if (d->nvlinks_up > 0)
        fprintf(out, "  link_GBps: 25\n  links_per_gpu: %d\n", d->nvlinks_up);
    else /* the GPU's own top generation with this host, else the commonest server's */
        fprintf(out, "  pcie_gen: %d\n", d->pcie_gen > 0 ? d->pcie_gen : 4);
    if (d->nics > 0)
        fprintf(out, "nics:\n  count: %d\n  rate_gbps: %g   # %s\n", d->nics, d->nic_gbps,
                d->nic_kind);
    fprintf(out, "nodes: %d\n", a->nhosts);
    return ferror(out);
}

sc_status_t sc_detect_write_yaml(const char *path, const sc_detected_t *hosts, int nhosts,
                                 int ranks_per_host, sc_err_t *err)
{
    detect__yaml_arg_t a = {hosts, nhosts, ranks_per_host};
    return sc_files_write_text(path, detect__yaml_writer, &a, err);
}

static void detect__finding(sc_findings_t *list, const char *severity, const char *what,
                            double declared, double detected, const char *host)
{
    sc_finding_t *f = SC_LIST_PUSH(list);
    if (f == NULL)
        return;
    snprintf(f->severity, sizeof(f->severity), "%s", severity);
    snprintf(f->what, sizeof(f->what), "%s", what);
    snprintf(f->host, sizeof(f->host), "%s", host);
    f->declared = declared;
    f->detected = detected;
}

void sc_detect_compare(const sc_topology_t *declared, const sc_detected_t *hosts, int nhosts,
                       int ranks_per_host, sc_topology_t *actual, sc_findings_t *list)
{
    *actual = *declared;
    bool host_path = declared->fabric == SC_FABRIC_shm;
    if (nhosts < declared->nodes)
        detect__finding(list, "warning", "fewer nodes in the job than declared",
                        (double)declared->nodes, nhosts, hosts[0].host);
    for (int h = 0; h < nhosts; h++) {
        const sc_detected_t *d = &hosts[h];
        /* On the host path ranks stand for GPUs: compare the ranks the job put on the host. */
        int gpus = host_path ? ranks_per_host : d->gpus;
        if (gpus < declared->gpus_per_node) {
            detect__finding(list, host_path ? "info" : "error",
                            host_path ? "fewer ranks per host than declared GPUs"
                                      : "fewer GPUs than declared",
                            (double)declared->gpus_per_node, gpus, d->host);
            if (gpus < actual->gpus_per_node && gpus > 0)
                actual->gpus_per_node = gpus;
        }
        if (!host_path && declared->links_per_gpu > 0 && d->nvlinks_up >= 0 &&
            d->nvlinks_up < declared->links_per_gpu) {
            detect__finding(list, "error", "NVLinks down", (double)declared->links_per_gpu,
                            d->nvlinks_up, d->host);
            actual->links_per_gpu = d->nvlinks_up;
        }
        if (declared->nics > 0 && d->nics < declared->nics) {
            detect__finding(list, "error", "fewer NICs up than declared", (double)declared->nics,
                            d->nics, d->host);
            actual->nics = d->nics;
        }
        if (declared->nic_gbps > 0 && d->nics > 0 && d->nic_gbps < declared->nic_gbps * 0.99) {
            /* link rates come in steps (100, 200, 400): a link a step down is an error, a few
             * per cent off is a topology written loosely */
            bool far = d->nic_gbps < declared->nic_gbps * 0.9;
            detect__finding(list, far ? "error" : "warning", "NIC slower than declared (Gb/s)",
                            declared->nic_gbps, d->nic_gbps, d->host);
            actual->nic_gbps = d->nic_gbps;
        }
        if (declared->numa_nodes > 0 && d->numa_nodes > 0 && d->numa_nodes != declared->numa_nodes)
            detect__finding(list, "warning", "NUMA nodes differ from declared",
                            (double)declared->numa_nodes, d->numa_nodes, d->host);
        if (declared->cores > 0 && d->cores > 0 && d->cores != declared->cores)
            detect__finding(list, "info", "CPU cores differ from declared", (double)declared->cores,
                            d->cores, d->host);
    }
}
