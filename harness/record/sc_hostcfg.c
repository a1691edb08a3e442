#include "record/sc_hostcfg.h"

#include <stddef.h>

const char *sc_severity_name(sc_severity_t s)
{
    return s == SC_SEVERITY_ERROR ? "error" : "warning";
}

const sc_hostcfg_kind_t sc_hostcfg_kinds[] = {
#define SC__HOSTCFG_KIND(field, size, label, severity)                                             \
    {#field, label, SC_SEVERITY_##severity, offsetof(sc_hostcfg_t, field), size},
    SC_HOSTCFG_MAP(SC__HOSTCFG_KIND)
#undef SC__HOSTCFG_KIND
        {NULL, NULL, SC_SEVERITY_WARNING, 0, 0},
};

#define SC__TEXT(field)                                                                            \
    {                                                                                              \
#field, SC_FIELD_TEXT, offsetof(sc_hostcfg_t, field), sizeof(((sc_hostcfg_t *)0)->field),  \
            0, NULL                                                                                \
    }
const sc_field_t sc_hostcfg_fields[] = {
    SC__TEXT(host),
    {"rank", SC_FIELD_INT, offsetof(sc_hostcfg_t, rank), sizeof(int), 0, NULL},
#define SC__HOSTCFG_JSON(field, size, label, severity) SC__TEXT(field),
    SC_HOSTCFG_MAP(SC__HOSTCFG_JSON)
#undef SC__HOSTCFG_JSON
        SC__TEXT(env),
    {"pcie_degraded", SC_FIELD_TEXT_OPT, offsetof(sc_hostcfg_t, pcie_degraded),
     sizeof(((sc_hostcfg_t *)0)->pcie_degraded), 0, NULL},
    {"ib_down", SC_FIELD_TEXT_OPT, offsetof(sc_hostcfg_t, ib_down),
     sizeof(((sc_hostcfg_t *)0)->ib_down), 0, NULL},
    {"gpu_trouble", SC_FIELD_TEXT_OPT, offsetof(sc_hostcfg_t, gpu_trouble),
     sizeof(((sc_hostcfg_t *)0)->gpu_trouble), 0, NULL},
    {"gpu_repairs", SC_FIELD_TEXT_OPT, offsetof(sc_hostcfg_t, gpu_repairs),
     sizeof(((sc_hostcfg_t *)0)->gpu_repairs), 0, NULL},
    {NULL, SC_FIELD_INT, 0, 0, 0, NULL},
};
