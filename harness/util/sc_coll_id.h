/* sc_coll_id.h - the one list of collectives. Everything that names a collective - the
 * engine's descriptors (coll/), the backends' entries (comm/sc_backend.h), the step plan
 * (plan/), the model (model/) - is indexed by this enum, so a new collective is one line here
 * plus its descriptor file (docs/ARCHITECTURE.md, "A new collective"). */
#ifndef SC_COLL_ID_H
#define SC_COLL_ID_H

/* name */
#define SC_COLL_MAP(X)                                                                             \
    X(allreduce)                                                                                   \
    X(allgather)                                                                                   \
    X(reducescatter) X(broadcast) X(reduce) X(alltoall) X(sendrecv) X(gather) X(scatter)

typedef enum {
#define SC__COLL_ID_ENUM(name) SC_COLL_##name,
    SC_COLL_MAP(SC__COLL_ID_ENUM)
#undef SC__COLL_ID_ENUM
        SC_COLL_COUNT
} sc_coll_id_t;

/* "allreduce", ...; "?" for an id out of range. */
const char *sc_coll_id_name(sc_coll_id_t id);

#endif
