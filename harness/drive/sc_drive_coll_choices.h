/* sc_drive_coll_choices.h - `coll --algo LIST --proto LIST` (or all): the combinations of
 * NCCL_ALGO and NCCL_PROTO asked for, each run whole on a communicator made after they are set
 * (NCCL reads them when a communicator is made), and which was fastest per case. */
#ifndef SC_DRIVE_COLL_CHOICES_H
#define SC_DRIVE_COLL_CHOICES_H

#include <stdbool.h>
#include <stddef.h>

#include "record/sc_record.h"
#include "util/sc_status.h"

#define SC_COLL_CHOICES_MAX 16

typedef struct {
    char algo[32];  /* NCCL_ALGO's value ("" NCCL's own choice) */
    char proto[16]; /* NCCL_PROTO's value ("" NCCL's own choice) */
} sc_coll_choice_t;

/* --algo and --proto's values (NULL: not given) as combinations: each a comma list or `all`
 * (algorithms: ring, tree, nvls, sharp; protocols: LL, LL128, Simple, any case). *n 0: one
 * algorithm and no protocol, the run's single choice (set once, as before). SC_ERR_USAGE naming
 * the flag for a name that is neither. */
sc_status_t sc_coll_choices_parse(const char *algo, const char *proto, sc_coll_choice_t *out,
                                  int *n, sc_err_t *err);
/* The combination in the process's environment (unset where it leaves NCCL its choice). */
void sc_coll_choice_apply(const sc_coll_choice_t *c);
/* "NCCL_ALGO=Tree NCCL_PROTO=LL" (or "NCCL's own choice") into buf. */
const char *sc_coll_choice_words(const sc_coll_choice_t *c, char *buf, size_t len);
/* For every case the rows hold under more than one combination, the fastest and the others, a
 * line each into `line` (called with the sentence); how many cases. */
int sc_coll_choices_fastest(const sc_case_rows_t *rows, void (*line)(void *ctx, const char *s),
                            void *ctx);

#endif
