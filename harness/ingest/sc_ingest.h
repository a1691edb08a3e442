/* sc_ingest.h - results other tools wrote, read into scalecheck's case rows so that `judge`
 * holds them to a topology like its own runs: nccl-tests' text tables (every 2.x layout and NCCL
 * 1's, with or without header lines, tagged by a launcher or indented; sc_ingest.c says how the
 * columns are told), and OSU micro-benchmarks' collective and point-to-point tables. Each file
 * read says how it was read (sc_foreign_t.read_as). nccl-tests' JSON (-J) is read beside them
 * (sc_json_foreign.c, through the checked reader json/sc_json_check.h); sc_ingest_kind tells
 * which format a file is. Every error names file:line. */
#ifndef SC_INGEST_H
#define SC_INGEST_H

#include "coll/sc_coll.h"
#include "record/sc_record.h"
#include "util/sc_status.h"

typedef enum { SC_INGEST_NCCL_TEXT, SC_INGEST_NCCL_JSON, SC_INGEST_OSU } sc_ingest_kind_t;

/* Which format path holds (SC_ERR_INPUT naming the file when none). */
sc_status_t sc_ingest_kind(const char *path, sc_ingest_kind_t *kind, sc_err_t *err);

/* Reads a text file (nccl-tests or OSU) into out (rows appended; path, tool, collective, gpus
 * and nodes set when the file says them). */
sc_status_t sc_ingest_text(const char *path, sc_ingest_kind_t kind, sc_foreign_t *out,
                           sc_err_t *err);

/* The same, each row handed to visit as it is read (out->nrows counts them; out->rows stays
 * empty): a file of a million rows read in the memory of one. A visitor's false is no memory.
 * Read a file once to learn what its header says (out filled), then again to visit its rows:
 * they are the rows the first read saw, with out's OSU element type. */
typedef bool (*sc_ingest_visit_fn)(void *ctx, sc_case_row_t *row);
sc_status_t sc_ingest_text_visit(const char *path, sc_ingest_kind_t kind, sc_foreign_t *out,
                                 sc_ingest_visit_fn visit, void *ctx, sc_err_t *err);

/* scalecheck's collective for an nccl-tests program ("./build/all_reduce_perf") or an OSU
 * title ("# OSU MPI Allreduce Latency Test v7.3"); NULL when there is none. */
const char *sc_ingest_nccl_program(const char *program);
const char *sc_ingest_osu_title(const char *title);

/* A file read, completed: every row gets the collective and its busbw factor for f->gpus
 * ranks; OSU rows get nccl-tests' size convention and their rates from the time. SC_ERR_INPUT
 * naming the file when the collective, the ranks or the nodes are unknown (the caller fills
 * them from its flags first). */
sc_status_t sc_ingest_complete(sc_foreign_t *f, sc_err_t *err);
/* One row completed for f (sc_ingest_complete's work on a row handed to a visitor). */
void sc_ingest_complete_row(const sc_foreign_t *f, const sc_coll_t *coll, sc_case_row_t *row);

/* nccl-tests' -J output (ingest/sc_json_foreign.c) into out, as sc_ingest_text reads its text. */
sc_status_t sc_json_load_nccl_tests(const char *path, sc_foreign_t *out, sc_err_t *err);

#endif
