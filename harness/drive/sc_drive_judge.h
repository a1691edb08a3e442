/* sc_drive_judge.h - `scalecheck judge` driven from what was asked: results other tools wrote
 * held to the topology and a baseline (sc_drive_judge.c). */
#ifndef SC_DRIVE_JUDGE_H
#define SC_DRIVE_JUDGE_H

#include <stdbool.h>

#include "record/sc_common_opts.h"

#define JUDGE_MAX_FILES 256

typedef struct {
    sc_common_opts_t common; /* the shared options: the results directory, --name, --json */
    const char *topology, *collective, *baseline, *algo;
    int gpus, nodes;
    bool symmetric; /* the files' runs registered symmetric memory (nccl-tests -R 2) */
    bool help;
    const char *files[JUDGE_MAX_FILES];
    int nfiles;
} sc_drive_judge_opts_t;

/* Every file read first (a bad one: exit 2, nothing on disk), each row held to the model and
 * the baseline, the verdict printed, the documents written; the exit code (rank 0 alone). */
int sc_drive_judge(const sc_drive_judge_opts_t *o, int argc, char **argv);

#endif
