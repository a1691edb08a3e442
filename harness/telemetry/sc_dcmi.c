/* sc_dcmi.c - Ascend NPUs' health through DCMI (sc_dcmi.h). The calls and their units are
 * Huawei's DCMI API reference's (dcmi_interface_api.h): dcmi_init; dcmi_get_card_list and
 * dcmi_get_device_num_in_card (NPUs by card and device); dcmi_get_device_temperature (C),
 * dcmi_get_device_power_info (0.1 W), dcmi_get_device_frequency (MHz; 7 the AI cores' current,
 * 9 their rated, 6 the HBM's), dcmi_get_device_ecc_info (HBM: type 2), dcmi_get_device_hbm_info
 * (memory_size in MB), dcmi_get_device_chip_info, dcmi_get_device_pcie_info,
 * dcmi_get_driver_version. Every call returns 0 on success. */
#include "telemetry/sc_dcmi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DCMI__MAX 64

/* The structures the calls fill, as the reference declares them. */
typedef struct {
    unsigned char chip_type[32], chip_name[32], chip_ver[32];
    unsigned int aicore_cnt;
} dcmi__chip_info_t;
typedef struct {
    unsigned int deviceid, venderid, subvenderid, subdeviceid, bdf_deviceid, bdf_busid, bdf_funcid;
} dcmi__pcie_info_t;
typedef struct {
    int enable_flag;
    unsigned int single_bit_error_cnt, double_bit_error_cnt, total_single_bit_error_cnt,
        total_double_bit_error_cnt, single_bit_isolated_pages_cnt, double_bit_isolated_pages_cnt;
} dcmi__ecc_info_t;
typedef struct {
    unsigned long long memory_size; /* MB */
    unsigned int freq;
    unsigned long long memory_usage;
    int temp;
    unsigned int bandwith_util_rate;
} dcmi__hbm_info_t;

enum { DCMI__FREQ_HBM = 6, DCMI__FREQ_AICORE = 7, DCMI__FREQ_AICORE_MAX = 9, DCMI__HBM = 2 };

/* X(symbol, member, parameters): init and the two listings required, the rest optional. */
#define DCMI__FUNCTIONS(X)                                                                         \
    X("dcmi_init", init, (void))                                                                   \
    X("dcmi_get_card_list", card_list, (int *num, int *list, int len))                             \
    X("dcmi_get_device_num_in_card", devices_in_card, (int card, int *num))                        \
    X("dcmi_get_device_temperature", temperature, (int card, int dev, int *c))                     \
    X("dcmi_get_device_power_info", power, (int card, int dev, int *decawatt))                     \
    X("dcmi_get_device_frequency", frequency, (int card, int dev, int type, unsigned *mhz))        \
    X("dcmi_get_device_ecc_info", ecc, (int card, int dev, int type, dcmi__ecc_info_t *out))       \
    X("dcmi_get_device_hbm_info", hbm, (int card, int dev, dcmi__hbm_info_t *out))                 \
    X("dcmi_get_device_chip_info", chip, (int card, int dev, dcmi__chip_info_t *out))              \
    X("dcmi_get_device_pcie_info", pcie, (int card, int dev, dcmi__pcie_info_t *out))              \
    X("dcmi_get_driver_version", driver, (char *version, unsigned len))

struct sc_dcmi {
    void *lib;
    int n, card[DCMI__MAX], device[DCMI__MAX];
#define DCMI__MEMBER(sym, member, params) int(*member) params;
    DCMI__FUNCTIONS(DCMI__MEMBER)
#undef DCMI__MEMBER
};

/* By PCI device id (Huawei's driver; the names as the PCI ID Repository and Huawei's
 * documentation give them): the training parts. */
static const struct {
    long device;
    const char *model;
} dcmi__models[] = {{0xd801, "Ascend 910"}, {0xd802, "Ascend 910B"}};

const char *sc_dcmi_model(long pci_device)
{
    for (size_t i = 0; i < sizeof(dcmi__models) / sizeof(dcmi__models[0]); i++)
        if (dcmi__models[i].device == pci_device)
            return dcmi__models[i].model;
    return NULL;
}

static bool dcmi__resolve(sc_dcmi_t *d, char *why, size_t len)
{
#define DCMI__RESOLVE(sym, member, params) *(void **)&d->member = dlsym(d->lib, sym);
    DCMI__FUNCTIONS(DCMI__RESOLVE)
#undef DCMI__RESOLVE
    if (d->init == NULL || d->card_list == NULL || d->devices_in_card == NULL) {
        snprintf(why, len, "DCMI lacks dcmi_init or its listings");
        return false;
    }
    return true;
}

/* Every NPU, card by card. */
static void dcmi__list(sc_dcmi_t *d)
{
    int cards[DCMI__MAX], ncards = 0;
    if (d->card_list(&ncards, cards, DCMI__MAX) != 0)
        return;
    for (int c = 0; c < ncards && c < DCMI__MAX; c++) {
        int devices = 0;
        if (d->devices_in_card(cards[c], &devices) != 0)
            continue;
        for (int i = 0; i < devices && d->n < DCMI__MAX; i++) {
            d->card[d->n] = cards[c];
            d->device[d->n++] = i;
        }
    }
}

sc_dcmi_t *sc_dcmi_open(char *why, size_t len)
{
    const char *path = getenv("SCALECHECK_DCMI_LIBRARY");
    sc_dcmi_t *d = calloc(1, sizeof(*d));
    if (d == NULL) {
        snprintf(why, len, "no memory");
        return NULL;
    }
    d->lib = dlopen(path != NULL && path[0] ? path : "libdcmi.so", RTLD_NOW | RTLD_LOCAL);
    int rc = 0;
    if (d->lib == NULL)
        snprintf(why, len, "DCMI not available: %s", dlerror());
    else if (dcmi__resolve(d, why, len) && (rc = d->init()) != 0)
        snprintf(why, len, "dcmi_init failed: %d", rc);
    else if (d->init != NULL)
        dcmi__list(d);
    if (d->n > 0)
        return d;
    if (d->lib != NULL && rc == 0 && d->init != NULL)
        snprintf(why, len, "DCMI sees no NPU");
    sc_dcmi_close(d);
    return NULL;
}

void sc_dcmi_close(sc_dcmi_t *d)
{
    if (d == NULL)
        return;
    if (d->lib != NULL)
        dlclose(d->lib);
    free(d);
}

unsigned sc_dcmi_count(const sc_dcmi_t *d)
{
    return (unsigned)d->n;
}

static void dcmi__name(sc_dcmi_t *d, int card, int dev, char *name, size_t len)
{
    dcmi__chip_info_t chip;
    memset(&chip, 0, sizeof(chip));
    if (d->chip != NULL && d->chip(card, dev, &chip) == 0)
        snprintf(name, len, "%.31s %.31s", (const char *)chip.chip_type,
                 (const char *)chip.chip_name);
}

static int dcmi__mhz(sc_dcmi_t *d, int card, int dev, int type)
{
    unsigned mhz = 0;
    return d->frequency != NULL && d->frequency(card, dev, type, &mhz) == 0 ? (int)mhz : -1;
}

void sc_dcmi_sample(sc_dcmi_t *d, unsigned index, sc_gpu_sample_t *out)
{
    if (index >= (unsigned)d->n)
        return;
    int card = d->card[index], dev = d->device[index], v = 0;
    dcmi__pcie_info_t pci;
    dcmi__ecc_info_t ecc;
    dcmi__name(d, card, dev, out->name, sizeof(out->name));
    if (d->pcie != NULL && d->pcie(card, dev, &pci) == 0)
        snprintf(out->bus_id, sizeof(out->bus_id), "0000:%02x:%02x.%x", pci.bdf_busid & 0xff,
                 pci.bdf_deviceid & 0x1f, pci.bdf_funcid & 0x7);
    if (d->temperature != NULL && d->temperature(card, dev, &v) == 0)
        out->temp_c = v;
    if (d->power != NULL && d->power(card, dev, &v) == 0)
        out->power_w = v / 10.0;
    out->sm_mhz = dcmi__mhz(d, card, dev, DCMI__FREQ_AICORE);
    out->max_sm_mhz = dcmi__mhz(d, card, dev, DCMI__FREQ_AICORE_MAX);
    out->mem_mhz = dcmi__mhz(d, card, dev, DCMI__FREQ_HBM);
    if (d->ecc != NULL && d->ecc(card, dev, DCMI__HBM, &ecc) == 0) {
        out->ecc_corrected = ecc.single_bit_error_cnt;
        out->ecc_uncorrected = ecc.double_bit_error_cnt;
        out->retired_pages =
            (long long)ecc.single_bit_isolated_pages_cnt + ecc.double_bit_isolated_pages_cnt;
    }
}

void sc_dcmi_config(sc_dcmi_t *d, unsigned index, sc_gpu_config_t *out)
{
    if (index >= (unsigned)d->n)
        return;
    int card = d->card[index], dev = d->device[index];
    dcmi__hbm_info_t hbm;
    dcmi__name(d, card, dev, out->name, sizeof(out->name));
    out->max_sm_mhz = dcmi__mhz(d, card, dev, DCMI__FREQ_AICORE_MAX);
    out->max_mem_mhz = dcmi__mhz(d, card, dev, DCMI__FREQ_HBM);
    if (d->hbm != NULL && d->hbm(card, dev, &hbm) == 0)
        out->mem_total_gb = (double)hbm.memory_size * 1048576.0 / 1e9;
}

void sc_dcmi_driver(sc_dcmi_t *d, char *driver, size_t len)
{
    char version[64] = "";
    if (d->driver == NULL || d->driver(version, sizeof(version)) != 0 || version[0] == '\0')
        snprintf(driver, len, "-");
    else
        snprintf(driver, len, "%s", version);
}
