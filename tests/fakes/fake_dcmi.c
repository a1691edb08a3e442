/* fake_dcmi.c - a stand-in for Huawei's NPU management library (libdcmi.so, loaded through
 * SCALECHECK_DCMI_LIBRARY) with the calls scalecheck resolves, as DCMI's API reference declares
 * them (dcmi_interface_api.h): nothing before dcmi_init; NPUs by card (one device a card, as
 * the Atlas 800T A2 lists them); temperature in C, power in 0.1 W, clocks in MHz (frequency
 * types 6 HBM, 7 AI cores now, 9 AI cores rated; others refused), ECC for the HBM (type 2)
 * only; a card or device that is not one answers a negative code.
 *
 * FAKE_DCMI_NPUS=N NPUs (default 8), chip FAKE_DCMI_CHIP (default "910B3"), at the PCI addresses
 * of the emulated machine's Huawei accelerators (SCALECHECK_SYS_ROOT) where a tree is given. Each
 * heats with its load (fake_load.h, FAKE_GPU_LOAD) toward 35 C + FAKE_DCMI_HEAT_C (default 40) x
 * its utilisation, and past 90 C its AI cores slow to 60 %; power 90 W idle, 350 W at full load.
 * Faults: FAKE_DCMI_HOT=N (NPU N's cooling is poor: twice the rise), FAKE_DCMI_ECC=N:K (K
 * double-bit HBM errors and as many isolated pages on NPU N). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_load.h"

#define DCMI__EXPORT __attribute__((visibility("default")))
enum { FD__BAD = -8001, FD__NOT_SUPPORT = -8255 };

typedef struct {
    unsigned char chip_type[32], chip_name[32], chip_ver[32];
    unsigned int aicore_cnt;
} fd_chip_info_t;
typedef struct {
    unsigned int deviceid, venderid, subvenderid, subdeviceid, bdf_deviceid, bdf_busid, bdf_funcid;
} fd_pcie_info_t;
typedef struct {
    int enable_flag;
    unsigned int single_bit_error_cnt, double_bit_error_cnt, total_single_bit_error_cnt,
        total_double_bit_error_cnt, single_bit_isolated_pages_cnt, double_bit_isolated_pages_cnt;
} fd_ecc_info_t;
typedef struct {
    unsigned long long memory_size;
    unsigned int freq;
    unsigned long long memory_usage;
    int temp;
    unsigned int bandwith_util_rate;
} fd_hbm_info_t;

static int fd__initialized;

static int fd__npus(void)
{
    const char *v = getenv("FAKE_DCMI_NPUS");
    int n = v != NULL && v[0] ? atoi(v) : 8;
    return n < 0 ? 0 : n > FAKE_LOAD_GPUS ? FAKE_LOAD_GPUS : n;
}

static double fd__env(const char *name, double fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] ? atof(v) : fallback;
}

/* NPU n of the card and device given, or -1 (a card holds one device, numbered by the card). */
static int fd__npu(int card, int dev)
{
    return fd__initialized && dev == 0 && card >= 0 && card < fd__npus() ? card : -1;
}

static void fd__update(int n)
{
    const char *hot = getenv("FAKE_DCMI_HOT");
    double rise =
        fd__env("FAKE_DCMI_HEAT_C", 40) * (hot != NULL && hot[0] && atoi(hot) == n ? 2 : 1);
    fake_heat_update((unsigned)n, rise, 1.0);
}

DCMI__EXPORT int dcmi_init(void)
{
    fd__initialized = 1;
    return 0;
}

DCMI__EXPORT int dcmi_get_card_list(int *num, int *list, int len)
{
    if (!fd__initialized || num == NULL || list == NULL || len <= 0)
        return FD__BAD;
    int n = fd__npus();
    *num = n < len ? n : len;
    for (int i = 0; i < *num; i++)
        list[i] = i;
    return 0;
}

DCMI__EXPORT int dcmi_get_device_num_in_card(int card, int *num)
{
    if (fd__npu(card, 0) < 0 || num == NULL)
        return FD__BAD;
    *num = 1;
    return 0;
}

DCMI__EXPORT int dcmi_get_device_chip_info(int card, int dev, fd_chip_info_t *out)
{
    if (fd__npu(card, dev) < 0 || out == NULL)
        return FD__BAD;
    const char *chip = getenv("FAKE_DCMI_CHIP");
    memset(out, 0, sizeof(*out));
    snprintf((char *)out->chip_type, sizeof(out->chip_type), "Ascend");
    snprintf((char *)out->chip_name, sizeof(out->chip_name), "%s",
             chip && chip[0] ? chip : "910B3");
    snprintf((char *)out->chip_ver, sizeof(out->chip_ver), "V1");
    out->aicore_cnt = 20;
    return 0;
}

static int fd__by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The emulated tree's Huawei accelerators' addresses, in order; how many. */
static int fd__tree(char (*bus)[32], int max)
{
    const char *root = getenv("SCALECHECK_SYS_ROOT");
    char dir[1024];
    if (root == NULL || root[0] == '\0')
        return 0;
    snprintf(dir, sizeof(dir), "%s/bus/pci/devices", root);
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL && n < max;) {
        char path[1400], vendor[16] = "";
        snprintf(path, sizeof(path), "%s/%s/vendor", dir, e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        if (f == NULL)
            continue;
        if (fgets(vendor, sizeof(vendor), f) != NULL && strtol(vendor, NULL, 16) == 0x19e5)
            snprintf(bus[n++], 32, "%.31s", e->d_name);
        fclose(f);
    }
    if (d != NULL)
        closedir(d);
    qsort(bus, (size_t)n, sizeof(bus[0]), fd__by_name);
    return n;
}

DCMI__EXPORT int dcmi_get_device_pcie_info(int card, int dev, fd_pcie_info_t *out)
{
    int n = fd__npu(card, dev);
    if (n < 0 || out == NULL)
        return FD__BAD;
    char bus[FAKE_LOAD_GPUS][32];
    unsigned domain = 0, b = 0x01 + 0x10 * (unsigned)n, d = 0, f = 0;
    if (n < fd__tree(bus, FAKE_LOAD_GPUS))
        sscanf(bus[n], "%x:%x:%x.%x", &domain, &b, &d, &f);
    *out = (fd_pcie_info_t){0xd802, 0x19e5, 0x19e5, 0x0100, d, b, f};
    return 0;
}

DCMI__EXPORT int dcmi_get_device_temperature(int card, int dev, int *celsius)
{
    int n = fd__npu(card, dev);
    if (n < 0 || celsius == NULL)
        return FD__BAD;
    fd__update(n);
    *celsius = (int)fake_heat[n].temp_c;
    return 0;
}

DCMI__EXPORT int dcmi_get_device_power_info(int card, int dev, int *decawatt)
{
    int n = fd__npu(card, dev);
    if (n < 0 || decawatt == NULL)
        return FD__BAD;
    fd__update(n);
    *decawatt = (int)((90.0 + 260.0 * fake_heat[n].util) * 10.0);
    return 0;
}

DCMI__EXPORT int dcmi_get_device_frequency(int card, int dev, int type, unsigned *mhz)
{
    int n = fd__npu(card, dev);
    if (n < 0 || mhz == NULL)
        return FD__BAD;
    fd__update(n);
    switch (type) {
    case 6:
        *mhz = 1600;
        return 0;
    case 7:
        *mhz = fake_heat[n].temp_c > 90 ? 1080 : 1800;
        return 0;
    case 9:
        *mhz = 1800;
        return 0;
    default:
        return FD__NOT_SUPPORT;
    }
}

DCMI__EXPORT int dcmi_get_device_ecc_info(int card, int dev, int type, fd_ecc_info_t *out)
{
    int n = fd__npu(card, dev);
    if (n < 0 || out == NULL)
        return FD__BAD;
    if (type != 2)
        return FD__NOT_SUPPORT;
    const char *v = getenv("FAKE_DCMI_ECC");
    unsigned k = v != NULL && v[0] && atoi(v) == n && strchr(v, ':')
                     ? (unsigned)atoi(strchr(v, ':') + 1)
                     : 0;
    *out = (fd_ecc_info_t){1, 0, k, 0, k, 0, k};
    return 0;
}

DCMI__EXPORT int dcmi_get_device_hbm_info(int card, int dev, fd_hbm_info_t *out)
{
    int n = fd__npu(card, dev);
    if (n < 0 || out == NULL)
        return FD__BAD;
    fd__update(n);
    *out = (fd_hbm_info_t){65536, 1600, 2048, (int)fake_heat[n].temp_c, 0};
    return 0;
}

DCMI__EXPORT int dcmi_get_driver_version(char *version, unsigned len)
{
    if (!fd__initialized || version == NULL || len == 0)
        return FD__BAD;
    snprintf(version, len, "24.1.rc2");
    return 0;
}
