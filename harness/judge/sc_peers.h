/* sc_peers.h - like things held to the median of their peers: the GPUs of one run under one
 * load (TFLOP/s reached, SM clock). A figure below the band is a check of its own naming who
 * it is (so that two slow GPUs are both named); when none is, one PASS for the lowest. */
#ifndef SC_PEERS_H
#define SC_PEERS_H

#include "judge/sc_verdict.h"

typedef struct {
    char who[192]; /* "host h, rank 3: GPU 3 NVIDIA H200 (0000:5d:00.0)" */
    double value;  /* NaN: not measured, left out */
} sc_peer_t;

/* The peers' median (NaN without two measured). */
double sc_peers_median(const sc_peer_t *peers, int n);

/* Checks named "<what>: <who>" on metric, against the median of the measured peers, in band
 * (higher is better); nothing with fewer than two measured. Returns the checks added. */
int sc_verdict_peers(sc_checks_t *checks, const char *what, const char *metric,
                     const sc_peer_t *peers, int n, const sc_band_t *band, const char *source);

#endif
