/* sc_pci_tree.c - the PCIe tree from sysfs (sc_pci_tree.h). */
#include "detect/sc_pci_tree.h"

#include "telemetry/sc_amdgpu.h"
#include "telemetry/sc_dcmi.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCI__CPUS 4096 /* the CPUs a cpulist may name */

/* The first line of root/rel (at most len - 1 bytes), or "" when it cannot be read. */
static void pci__line(const char *dir, const char *file, char *out, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    if (fgets(out, (int)len, f) == NULL)
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

static long pci__number(const char *dir, const char *file, long absent)
{
    char text[64];
    pci__line(dir, file, text, sizeof(text));
    char *end = NULL;
    long v = strtol(text, &end, 0);
    return text[0] != '\0' && end != text ? v : absent;
}

/* "32.0 GT/s PCIe" -> 5: the generation of a transfer rate (0: not one). */
static int pci__gen(const char *dir, const char *file)
{
    static const struct {
        double gts;
        int gen;
    } rates[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}};
    char text[64];
    pci__line(dir, file, text, sizeof(text));
    double gts = atof(text);
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
        if (gts > rates[i].gts * 0.9 && gts < rates[i].gts * 1.1)
            return rates[i].gen;
    return 0;
}

/* Whether a device folder is a GPU or a NIC by its class and vendor; a GPU's model where the id
 * says it (AMD's, Huawei's: NVIDIA's are named by NVML). */
static bool pci__kind(const char *dir, sc_pci_kind_t *kind, const char **model)
{
    long cls = pci__number(dir, "class", -1), vendor = pci__number(dir, "vendor", -1);
    long device = pci__number(dir, "device", -1);
    *model = "";
    if (vendor == 0x10de && (cls >> 16) == 0x03) {
        *kind = SC_PCI_GPU;
        return true;
    }
    /* AMD's data-centre GPUs (each GCD a function of its own), not its workstation cards */
    if (vendor == 0x1002 && (cls >> 16) == 0x03 && sc_amdgpu_model(device) != NULL) {
        *kind = SC_PCI_GPU;
        *model = sc_amdgpu_model(device);
        return true;
    }
    /* Huawei's Ascend NPUs: processing accelerators (class 1200) */
    if (vendor == 0x19e5 && (cls >> 8) == 0x1200 && sc_dcmi_model(device) != NULL) {
        *kind = SC_PCI_GPU;
        *model = sc_dcmi_model(device);
        return true;
    }
    if ((cls >> 16) == 0x02 || (cls >> 8) == 0x0c06) { /* network, or InfiniBand */
        *kind = SC_PCI_NIC;
        return true;
    }
    return false;
}

/* The device's place: its host bridge and the bridges above it, from its real path. */
static void pci__place(const char *real, sc_pci_device_t *d)
{
    const char *at = strstr(real, "/devices/pci");
    if (at == NULL)
        return;
    char copy[PATH_MAX];
    snprintf(copy, sizeof(copy), "%s", at + strlen("/devices/"));
    char *save = NULL, *part = strtok_r(copy, "/", &save);
    if (part != NULL)
        snprintf(d->host_bridge, sizeof(d->host_bridge), "%s", part);
    for (part = strtok_r(NULL, "/", &save); part != NULL; part = strtok_r(NULL, "/", &save))
        if (strcmp(part, d->bus) != 0 && d->nbridges < SC_PCI_DEPTH)
            snprintf(d->bridges[d->nbridges++], SC_PCI_BUS, "%s", part);
}

/* A NIC's rate in Gb/s: an InfiniBand device's first port ("400 Gb/sec (4X NDR)"), a network
 * interface's speed (in Mb/s, -1 when the link is down); 0 when not reported. */
static double pci__nic_rate(const char *class_dir, const char *name, bool ib)
{
    char dir[PATH_MAX], text[64];
    snprintf(dir, sizeof(dir), "%s/%.200s", class_dir, name);
    pci__line(dir, ib ? "ports/1/rate" : "speed", text, sizeof(text));
    double v = atof(text);
    return v > 0 ? (ib ? v : v / 1000.0) : 0;
}

/* A NIC's name: the InfiniBand device, else the network interface, whose device is real. */
static void pci__nic_name(const char *root, const char *real, sc_pci_device_t *d)
{
    static const char *const classes[] = {"class/infiniband", "class/net"};
    for (int c = 0; c < 2 && d->name[0] == '\0'; c++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s/%s", root, classes[c]);
        DIR *list = opendir(dir);
        for (struct dirent *e = list ? readdir(list) : NULL; e != NULL; e = readdir(list)) {
            char link[PATH_MAX], target[PATH_MAX];
            snprintf(link, sizeof(link), "%s/%.200s/device", dir, e->d_name);
            if (e->d_name[0] != '.' && realpath(link, target) != NULL && !strcmp(target, real)) {
                snprintf(d->name, sizeof(d->name), "%.31s", e->d_name);
                d->rdma = c == 0;
                d->rate_gbps = pci__nic_rate(dir, e->d_name, d->rdma);
                break;
            }
        }
        if (list != NULL)
            closedir(list);
    }
    char bus[SC_PCI_BUS];
    memcpy(bus, d->bus, sizeof(bus));
    if (d->name[0] == '\0')
        snprintf(d->name, sizeof(d->name), "nic %s", bus);
}

static int pci__by_bus(const void *a, const void *b)
{
    return strcmp(((const sc_pci_device_t *)a)->bus, ((const sc_pci_device_t *)b)->bus);
}

/* The GPUs and NICs under root's bus/pci/devices. */
static void pci__devices(const char *root, sc_pci_tree_t *t)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/bus/pci/devices", root);
    DIR *list = opendir(dir);
    for (struct dirent *e = list ? readdir(list) : NULL; e != NULL && t->n < SC_PCI_DEVICES;
         e = readdir(list)) {
        char link[PATH_MAX], real[PATH_MAX];
        snprintf(link, sizeof(link), "%s/%.32s", dir, e->d_name);
        sc_pci_kind_t kind;
        const char *model = "";
        if (e->d_name[0] == '.' || realpath(link, real) == NULL || !pci__kind(real, &kind, &model))
            continue;
        sc_pci_device_t *d = &t->devices[t->n++];
        memset(d, 0, sizeof(*d));
        d->kind = kind;
        snprintf(d->model, sizeof(d->model), "%s", model);
        snprintf(d->bus, sizeof(d->bus), "%.15s", e->d_name);
        d->numa = (int)pci__number(real, "numa_node", -1);
        d->gen = pci__gen(real, "current_link_speed");
        d->width = (int)pci__number(real, "current_link_width", 0);
        d->max_gen = pci__gen(real, "max_link_speed");
        d->max_width = (int)pci__number(real, "max_link_width", 0);
        pci__place(real, d);
        if (kind == SC_PCI_NIC)
            pci__nic_name(root, real, d);
    }
    if (list != NULL)
        closedir(list);
    qsort(t->devices, (size_t)t->n, sizeof(t->devices[0]), pci__by_bus);
    for (int i = 0; i < t->n; i++) {
        sc_pci_device_t *d = &t->devices[i];
        d->index = d->kind == SC_PCI_GPU ? t->gpus++ : t->nics++;
        if (d->kind == SC_PCI_GPU)
            snprintf(d->name, sizeof(d->name), "GPU %d", d->index);
    }
}

void sc_pci_tree_read_at(const char *root, sc_pci_tree_t *t)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->root, sizeof(t->root), "%s", root);
    pci__devices(root, t);
    for (int n = 0; n < SC_PCI_NUMA; n++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s/devices/system/node/node%d", root, n);
        pci__line(dir, "cpulist", t->numa_cpus[n], sizeof(t->numa_cpus[n]));
        if (t->numa_cpus[n][0] != '\0')
            t->numa_nodes = n + 1;
    }
}

void sc_pci_tree_read(sc_pci_tree_t *t)
{
    const char *root = getenv("SCALECHECK_SYS_ROOT");
    sc_pci_tree_read_at(root != NULL && root[0] != '\0' ? root : "/sys", t);
}

sc_pci_distance_t sc_pci_distance(const sc_pci_device_t *a, const sc_pci_device_t *b)
{
    if (strcmp(a->host_bridge, b->host_bridge) != 0)
        return a->numa >= 0 && a->numa == b->numa ? SC_PCI_NODE : SC_PCI_SYS;
    int common = 0;
    while (common < a->nbridges && common < b->nbridges &&
           strcmp(a->bridges[common], b->bridges[common]) == 0)
        common++;
    if (common == 0)
        return SC_PCI_PHB;
    /* one switch: they meet at its upstream port, each a downstream port below it */
    bool one_switch = common >= 2 && a->nbridges - common <= 1 && b->nbridges - common <= 1;
    return one_switch ? SC_PCI_PIX : SC_PCI_PXB;
}

const char *sc_pci_distance_name(sc_pci_distance_t d)
{
    static const char *const names[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
    return d >= SC_PCI_PIX && d <= SC_PCI_SYS ? names[d] : "?";
}

const sc_pci_device_t *sc_pci_find(const sc_pci_tree_t *t, sc_pci_kind_t kind, int index)
{
    for (int i = 0; i < t->n; i++)
        if (t->devices[i].kind == kind && t->devices[i].index == index)
            return &t->devices[i];
    return NULL;
}

const sc_pci_device_t *sc_pci_find_nic(const sc_pci_tree_t *t, const char *name)
{
    size_t len = strcspn(name, ":"); /* UCX_NET_DEVICES names a port: mlx5_2:1 */
    for (int i = 0; i < t->n; i++)
        if (t->devices[i].kind == SC_PCI_NIC && strlen(t->devices[i].name) == len &&
            strncmp(t->devices[i].name, name, len) == 0)
            return &t->devices[i];
    return NULL;
}

const sc_pci_device_t *sc_pci_nearest_nic(const sc_pci_tree_t *t, const sc_pci_device_t *gpu)
{
    const sc_pci_device_t *best = NULL;
    for (int i = 0; i < t->n; i++) {
        const sc_pci_device_t *d = &t->devices[i];
        if (d->kind == SC_PCI_NIC &&
            (best == NULL || sc_pci_distance(gpu, d) < sc_pci_distance(gpu, best)))
            best = d;
    }
    return best;
}

/* cpulist ("0-3,8") into set (PCI__CPUS flags). */
static void pci__cpulist(const char *list, bool *set)
{
    memset(set, 0, PCI__CPUS * sizeof(bool));
    for (const char *p = list; *p != '\0';) {
        char *end = NULL;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p)
            break;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        for (long c = lo; c <= hi && c >= 0 && c < PCI__CPUS; c++)
            set[c] = true;
        p = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
}

int sc_pci_numa_of_cpus(const sc_pci_tree_t *t, const char *cpus, int *spans)
{
    static _Thread_local bool mine[PCI__CPUS], node[PCI__CPUS];
    pci__cpulist(cpus, mine);
    int found = -1;
    *spans = 0;
    for (int n = 0; n < t->numa_nodes; n++) {
        pci__cpulist(t->numa_cpus[n], node);
        bool touches = false;
        for (int c = 0; c < PCI__CPUS && !touches; c++)
            touches = mine[c] && node[c];
        if (touches) {
            (*spans)++;
            found = n;
        }
    }
    return *spans == 1 ? found : -1;
}
