/* sc_result.c - the result header's field tables (sc_result.h). */
#include "record/sc_result.h"

#include <stddef.h>

#define SC__H(field, kind)                                                                         \
    {                                                                                              \
#field, kind, offsetof(sc_result_t, field), sizeof(((sc_result_t *)0)->field), 0, NULL     \
    }
/* A shared option the header records: its key is the option's field name. */
#define SC__ASKED(field, kind)                                                                     \
    {                                                                                              \
#field, kind, offsetof(sc_result_t, asked.field), sizeof(((sc_result_t *)0)->asked.field), \
            0, NULL                                                                                \
    }

/* A run's states (sc_result_t.state), one list for the writer's words and every reader. */
const char *const sc_result_states[] = {"running", "complete", "failed", "interrupted", NULL};

const sc_field_t sc_result_header_fields[] = {
    SC__H(version, SC_FIELD_TEXT),
    SC__H(command, SC_FIELD_TEXT),
    SC__H(ranks, SC_FIELD_INT),
    SC__H(nhosts, SC_FIELD_INT),
    {"state", SC_FIELD_TEXT_OPT, offsetof(sc_result_t, state), sizeof(((sc_result_t *)0)->state), 0,
     sc_result_states},
    SC__H(reason, SC_FIELD_TEXT_OPT),
    SC__H(at_fault, SC_FIELD_TEXT_OPT),
    SC__H(start_utc, SC_FIELD_TEXT_OPT),
    SC__H(elapsed_s, SC_FIELD_OPTIONAL),
    SC__H(results_dir, SC_FIELD_TEXT_OPT),
    SC__H(journal, SC_FIELD_TEXT_OPT),
    SC__H(backend, SC_FIELD_TEXT_OPT),
    SC__H(backend_note, SC_FIELD_TEXT),
    SC__H(topology, SC_FIELD_TEXT_OPT),
    SC__H(not_checked, SC_FIELD_TEXT_OPT),
    {NULL, SC_FIELD_INT, 0, 0, 0, NULL},
};

const sc_field_t sc_result_run_fields[] = {
    SC__H(workload, SC_FIELD_TEXT),      SC__H(workload_file, SC_FIELD_TEXT),
    SC__H(bytes_scale, SC_FIELD_DOUBLE), SC__H(compute_scale, SC_FIELD_DOUBLE),
    SC__H(steps, SC_FIELD_INT),          SC__H(warmup, SC_FIELD_INT),
    {NULL, SC_FIELD_INT, 0, 0, 0, NULL},
};
