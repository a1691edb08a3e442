/* sc_amdgpu.c - AMD GPUs' health from the amdgpu driver's sysfs files (sc_amdgpu.h). The kernel
 * documents them (Documentation/gpu/amdgpu: hwmon's temp*_input in millidegrees, power1_average
 * or power1_input and power1_cap in microwatts, freq1_input and freq2_input - the graphics and
 * memory clocks - in hertz; the device's pp_dpm_sclk levels, mem_info_vram_total in bytes,
 * pcie_replay_count, and the RAS counters ras/<block>_err_count as "ue: N" and "ce: N" lines). */
#include "telemetry/sc_amdgpu.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* By PCI device id (the kernel's amdgpu driver lists them, amdgpu_drv.c; the names are the PCI
 * ID Repository's); each GCD of an MI250 is a function of its own. */
static const struct {
    long device;
    const char *model;
} amdgpu__models[] = {
    {0x738c, "AMD Instinct MI100"},  {0x738e, "AMD Instinct MI100"},
    {0x7408, "AMD Instinct MI250X"}, {0x740c, "AMD Instinct MI250X/MI250"},
    {0x740f, "AMD Instinct MI210"},
};

const char *sc_amdgpu_model(long pci_device)
{
    for (size_t i = 0; i < sizeof(amdgpu__models) / sizeof(amdgpu__models[0]); i++)
        if (amdgpu__models[i].device == pci_device)
            return amdgpu__models[i].model;
    return NULL;
}

/* The text of dir/file (its first len - 1 bytes), "" when it cannot be read. */
static void amdgpu__text(const char *dir, const char *file, char *out, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
}

static long long amdgpu__number(const char *dir, const char *file)
{
    char text[64], *end = NULL;
    amdgpu__text(dir, file, text, sizeof(text));
    long long v = strtoll(text, &end, 0);
    return text[0] != '\0' && end != text ? v : -1;
}

static int amdgpu__by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

int sc_amdgpu_find(const char *root, char (*bus)[32], int max)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/bus/pci/devices", root);
    DIR *list = opendir(dir);
    int n = 0;
    for (struct dirent *e = list ? readdir(list) : NULL; e != NULL && n < max; e = readdir(list)) {
        char dev[PATH_MAX];
        snprintf(dev, sizeof(dev), "%s/%.32s", dir, e->d_name);
        if (e->d_name[0] != '.' && amdgpu__number(dev, "vendor") == 0x1002 &&
            (amdgpu__number(dev, "class") >> 16) == 0x03 &&
            sc_amdgpu_model(amdgpu__number(dev, "device")) != NULL)
            snprintf(bus[n++], 32, "%.31s", e->d_name);
    }
    if (list != NULL)
        closedir(list);
    qsort(bus, (size_t)n, sizeof(bus[0]), amdgpu__by_name);
    return n;
}

/* The device's hwmon folder (hwmon/hwmonN), "" when it has none. */
static void amdgpu__hwmon(const char *dev, char *out, size_t len)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/hwmon", dev);
    out[0] = '\0';
    DIR *list = opendir(dir);
    for (struct dirent *e = list ? readdir(list) : NULL; e != NULL; e = readdir(list))
        if (strncmp(e->d_name, "hwmon", 5) == 0) {
            snprintf(out, len, "%s/%.32s", dir, e->d_name);
            break;
        }
    if (list != NULL)
        closedir(list);
}

/* A RAS counter file's "ue: N" (uncorrectable) or "ce: N" (correctable); -1 not reported. */
static long long amdgpu__ras(const char *dev, const char *file, const char *key)
{
    char text[128];
    amdgpu__text(dev, file, text, sizeof(text));
    const char *at = strstr(text, key);
    return at != NULL ? strtoll(at + strlen(key), NULL, 10) : -1;
}

/* The top level of a pp_dpm_* list ("0: 500Mhz\n1: 800Mhz *\n2: 1700Mhz"), in MHz; -1. */
static int amdgpu__top_level(const char *dev, const char *file)
{
    char text[1024];
    amdgpu__text(dev, file, text, sizeof(text));
    int top = -1;
    for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        int level = 0, mhz = 0;
        if (sscanf(p, "%d: %dMhz", &level, &mhz) == 2 && mhz > top)
            top = mhz;
    }
    return top;
}

static void amdgpu__dev_dir(const char *root, const char *bus, char *dev, size_t len)
{
    snprintf(dev, len, "%s/bus/pci/devices/%s", root, bus);
}

void sc_amdgpu_sample(const char *root, const char *bus, unsigned index, sc_gpu_sample_t *out)
{
    char dev[PATH_MAX], hw[PATH_MAX + 64];
    amdgpu__dev_dir(root, bus, dev, sizeof(dev));
    amdgpu__hwmon(dev, hw, sizeof(hw));
    out->index = index;
    snprintf(out->name, sizeof(out->name), "%s", sc_amdgpu_model(amdgpu__number(dev, "device")));
    snprintf(out->bus_id, sizeof(out->bus_id), "%s", bus);
    /* the junction (hotspot) where the GPU reports one - the MI200 has no edge sensor - else
     * the edge */
    long long milli = hw[0] ? amdgpu__number(hw, "temp2_input") : -1;
    if (milli < 0 && hw[0])
        milli = amdgpu__number(hw, "temp1_input");
    out->temp_c = milli >= 0 ? (int)(milli / 1000) : -1;
    long long uw = hw[0] ? amdgpu__number(hw, "power1_average") : -1;
    if (uw < 0 && hw[0])
        uw = amdgpu__number(hw, "power1_input");
    out->power_w = uw >= 0 ? uw / 1e6 : -1;
    long long cap = hw[0] ? amdgpu__number(hw, "power1_cap") : -1;
    out->power_limit_w = cap >= 0 ? cap / 1e6 : -1;
    long long sclk = hw[0] ? amdgpu__number(hw, "freq1_input") : -1;
    long long mclk = hw[0] ? amdgpu__number(hw, "freq2_input") : -1;
    out->sm_mhz = sclk >= 0 ? (int)(sclk / 1000000) : -1;
    out->mem_mhz = mclk >= 0 ? (int)(mclk / 1000000) : -1;
    out->max_sm_mhz = amdgpu__top_level(dev, "pp_dpm_sclk");
    out->throttle_reasons = -1; /* the driver's throttle status is in gpu_metrics, binary */
    out->ecc_uncorrected = amdgpu__ras(dev, "ras/umc_err_count", "ue:");
    out->ecc_corrected = amdgpu__ras(dev, "ras/umc_err_count", "ce:");
    out->pcie_replays = amdgpu__number(dev, "pcie_replay_count");
    /* the links between GPUs: XGMI's (Infinity Fabric) error counts, in NVLink's place */
    long long xue = amdgpu__ras(dev, "ras/xgmi_wafl_err_count", "ue:"),
              xce = amdgpu__ras(dev, "ras/xgmi_wafl_err_count", "ce:");
    out->nvlink_errors = xue >= 0 || xce >= 0 ? (xue > 0 ? xue : 0) + (xce > 0 ? xce : 0) : -1;
    out->retired_pages = out->remapped_rows = -1;
    out->remap_pending = out->remap_failure = -1;
}

void sc_amdgpu_config(const char *root, const char *bus, sc_gpu_config_t *out)
{
    char dev[PATH_MAX];
    amdgpu__dev_dir(root, bus, dev, sizeof(dev));
    snprintf(out->name, sizeof(out->name), "%s", sc_amdgpu_model(amdgpu__number(dev, "device")));
    out->max_sm_mhz = amdgpu__top_level(dev, "pp_dpm_sclk");
    out->max_mem_mhz = amdgpu__top_level(dev, "pp_dpm_mclk");
    long long vram = amdgpu__number(dev, "mem_info_vram_total");
    out->mem_total_gb = vram > 0 ? vram / 1e9 : 0;
    char speed[64];
    amdgpu__text(dev, "current_link_speed", speed, sizeof(speed));
    double gts = atof(speed);
    out->pcie_gen = gts > 30 ? 5 : gts > 15 ? 4 : gts > 7 ? 3 : gts > 0 ? 2 : -1;
    amdgpu__text(dev, "max_link_speed", speed, sizeof(speed));
    gts = atof(speed);
    out->pcie_max_gen = gts > 30 ? 5 : gts > 15 ? 4 : gts > 7 ? 3 : gts > 0 ? 2 : -1;
    long long w = amdgpu__number(dev, "current_link_width"),
              mw = amdgpu__number(dev, "max_link_width");
    out->pcie_width = (int)w;
    out->pcie_max_width = (int)mw;
}

void sc_amdgpu_driver(const char *root, char *driver, size_t len)
{
    char dir[PATH_MAX], text[64];
    snprintf(dir, sizeof(dir), "%s/module/amdgpu", root);
    amdgpu__text(dir, "version", text, sizeof(text));
    text[strcspn(text, "\n")] = '\0';
    snprintf(driver, len, "%s", text[0] ? text : "-");
}
