#include "sc_coll_id.h"

static const char *const coll_id__coll_id_names[] = {
#define SC__COLL_ID_NAME(name) #name,
    SC_COLL_MAP(SC__COLL_ID_NAME)
#undef SC__COLL_ID_NAME
};

const char *sc_coll_id_name(sc_coll_id_t id)
{
    return id >= 0 && id < SC_COLL_COUNT ? coll_id__coll_id_names[id] : "?";
}
