/* sc_gpudirect.c - whether GPUDirect RDMA can work (sc_gpudirect.h). */
#include "detect/sc_gpudirect.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GDR__CAP_ACS      0x000d /* PCIe extended capability: Access Control Services */
#define GDR__ACS_REDIRECT 0x0004 /* ACS Control: P2P Request Redirect */
#define GDR__CONFIG_EXT   0x100  /* where the extended capabilities start */
#define GDR__CONFIG_BYTES 4096

/* /proc beside a sysfs root ("/x/sys" -> "/x/proc"), or /proc itself. */
static void gdr__proc(const sc_pci_tree_t *t, char *out, size_t len)
{
    size_t n = strlen(t->root);
    if (strcmp(t->root, "/sys") != 0 && n >= 4 && strcmp(t->root + n - 4, "/sys") == 0)
        snprintf(out, len, "%.*s/proc", (int)(n - 4), t->root);
    else
        snprintf(out, len, "/proc");
}

static void gdr__first_line(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    if (f != NULL && fgets(out, (int)len, f) == NULL)
        out[0] = '\0';
    if (f != NULL)
        fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

/* Whether the tree's GPUs are AMD's (their model is named from the PCI id: sc_pci_tree.c). */
static bool gdr__amd(const sc_pci_tree_t *t)
{
    for (int i = 0; i < t->n; i++)
        if (t->devices[i].kind == SC_PCI_GPU && strncmp(t->devices[i].model, "AMD", 3) == 0)
            return true;
    return false;
}

static bool gdr__module(const sc_pci_tree_t *t, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/module/%s", t->root, name);
    return access(path, F_OK) == 0;
}

/* NVIDIA: nvidia_peermem (nv_peer_mem before it), or DMA-BUF from the open kernel module on
 * Linux 5.12 or later. AMD: the peer memory core of the RDMA stack (ib_peer_mem, which ROCm's
 * driver registers with), or DMA-BUF: amdgpu exports its memory as DMA-BUF and the RDMA stack
 * imports it from Linux 5.12 (docs/REFERENCE.md section 7.1). */
void sc_gdr_host_read(const sc_pci_tree_t *t, sc_gdr_host_t *h)
{
    bool amd = gdr__amd(t);
    static const char *const nvidia_modules[] = {"nvidia_peermem", "nv_peer_mem", NULL};
    static const char *const amd_modules[] = {"ib_peer_mem", NULL};
    memset(h, 0, sizeof(*h));
    for (const char *const *m = amd ? amd_modules : nvidia_modules; *m != NULL && !h->peermem[0];
         m++)
        if (gdr__module(t, *m))
            snprintf(h->peermem, sizeof(h->peermem), "%s", *m);
    char proc[PATH_MAX], path[PATH_MAX + 32], release[64];
    gdr__proc(t, proc, sizeof(proc));
    snprintf(path, sizeof(path), "%s/driver/nvidia/version", proc);
    gdr__first_line(path, h->driver, sizeof(h->driver));
    snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", proc);
    gdr__first_line(path, release, sizeof(release));
    int major = 0, minor = 0;
    bool recent =
        sscanf(release, "%d.%d", &major, &minor) == 2 && (major > 5 || (major == 5 && minor >= 12));
    h->dmabuf = recent &&
                (amd ? gdr__module(t, "amdgpu") : strstr(h->driver, "Open Kernel Module") != NULL);
    if (amd)
        snprintf(h->driver, sizeof(h->driver), "%s", gdr__module(t, "amdgpu") ? "amdgpu" : "");
}

static unsigned gdr__le(const unsigned char *p, int bytes)
{
    unsigned v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* A bridge's ACS P2P Request Redirect: 1 on, 0 off (or no ACS), -1 not readable. */
static int gdr__bridge_redirects(const char *root, const char *bus)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", root, bus);
    FILE *f = fopen(path, "rbe");
    if (f == NULL)
        return -1;
    static _Thread_local unsigned char config[GDR__CONFIG_BYTES];
    size_t got = fread(config, 1, sizeof(config), f);
    fclose(f);
    if (got < GDR__CONFIG_BYTES)
        return -1; /* the extended space is root's to read */
    for (unsigned at = GDR__CONFIG_EXT, hops = 0;
         at >= GDR__CONFIG_EXT && at + 8 <= got && hops < 64; hops++) {
        unsigned header = gdr__le(config + at, 4);
        if (header == 0 || header == 0xffffffffu)
            return 0;
        if ((header & 0xffff) == GDR__CAP_ACS)
            return (gdr__le(config + at + 6, 2) & GDR__ACS_REDIRECT) != 0;
        at = (header >> 20) & 0xffc;
    }
    return 0;
}

int sc_gdr_acs_redirect(const sc_pci_tree_t *t, const sc_pci_device_t *d, char *bridge, size_t len)
{
    int found = 0;
    for (int i = 0; i < d->nbridges && found != 1; i++) {
        int r = gdr__bridge_redirects(t->root, d->bridges[i]);
        if (r == 1)
            snprintf(bridge, len, "%s", d->bridges[i]);
        found = r == 1 ? 1 : found == -1 || r == -1 ? -1 : 0;
    }
    return found;
}

void sc_gdr_iommu(const sc_pci_tree_t *t, const sc_pci_device_t *d, char *out, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/iommu_group/type", t->root, d->bus);
    gdr__first_line(path, out, len);
}
