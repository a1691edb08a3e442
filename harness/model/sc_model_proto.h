/* sc_model_proto.h - NCCL's protocols (LL, LL128, Simple) priced per size as NCCL's tuner does
 * (sc_model_proto.c): the latency and bandwidth each reaches on a path, the fastest chosen. The
 * model (sc_model.c) uses it for NCCL-class libraries on declared figures; a calibrated topology
 * keeps its measured regimes, which already hold whatever protocol ran. */
#ifndef SC_MODEL_PROTO_H
#define SC_MODEL_PROTO_H

#include <stdbool.h>

#include "topology/sc_topology.h"

/* One algorithm's path: its steps inside nodes and between them, the bytes its bandwidth term
 * moves (busbw convention: factor x size) over GBps. */
typedef struct {
    bool tree;                       /* a tree (all-reduce), else a ring */
    double intra_steps, inter_steps; /* latencies paid inside a node, across the network */
    double wire_bytes;
    double GBps;
    int gpus, nodes; /* GPUs per node, nodes */
    /* the network hop its inter_steps cross (topology/sc_topology.h): a latency the system
     * states replaces the one NCCL's constants assume */
    sc_hop_t net;
} sc_proto_path_t;

typedef struct {
    double time_us, latency_us; /* the whole, and what is not the path's bandwidth in it
                                   (latencies; a protocol's lines and flags) */
    const char *protocol;       /* "LL", "LL128", "Simple" */
} sc_proto_price_t;

/* Whether the protocols price t's collectives: an NCCL-class library, no calibrated regimes. */
bool sc_model_proto_applies(const sc_topology_t *t);
/* The fastest protocol on path. */
sc_proto_price_t sc_model_proto(const sc_topology_t *t, const sc_proto_path_t *path);
/* NVLink SHARP (Simple only) with wire_us its bandwidth term. */
sc_proto_price_t sc_model_proto_nvls(int nodes, double wire_us);

#endif
