/* fuzz_readers.c - libFuzzer target for every reader of results (the other attack surface: a
 * results folder is shared, a log is pasted from anywhere). FUZZ_READER, read once at start,
 * says which: result (a run directory's result.json, and the soak journal beside it when the
 * input is a journal), baseline, journal, ntjson (nccl-tests -J), text (nccl-tests or OSU output,
 * as `judge` reads it). The input is written to a private folder and read as that file; every
 * input must end in SC_OK or a clean error - never a crash, a hang, a leak or a sanitizer report
 * (UBSan with float-cast-overflow: a number no field can hold is refused, not cast). Built by
 * scripts/fuzz.sh with clang (SC_FUZZ=ON). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/sc_ingest.h"
#include "record/sc_record.h"
#include "report/sc_json_in.h"
#include "report/sc_json_soak.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz__dir[64];
static const char *fuzz__kind = "result";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *kind = getenv("FUZZ_READER");
    if (kind != NULL && kind[0] != '\0')
        fuzz__kind = kind;
    snprintf(fuzz__dir, sizeof(fuzz__dir), "/tmp/sc-fuzz-%d", (int)getpid());
    mkdir(fuzz__dir, 0700);
    return 0;
}

static void fuzz__write(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return;
    fwrite(data, 1, size, f);
    fclose(f);
}

static void fuzz__result(const uint8_t *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/result.json", fuzz__dir);
    fuzz__write(path, data, size);
    sc_result_t r;
    sc_err_t err;
    if (sc_json_load_result(fuzz__dir, &r, &err) == SC_OK)
        sc_result_free(&r);
}

static void fuzz__journal(const char *path)
{
    sc_soak_start_t start;
    sc_soak_cycles_t cycles = {0};
    bool complete;
    sc_err_t err;
    (void)sc_soak_journal_read(path, &start, &cycles, &complete, &err);
    sc_soak_start_free(&start);
    sc_soak_cycles_free(&cycles);
}

static void fuzz__foreign(const char *path, bool json)
{
    sc_foreign_t f;
    memset(&f, 0, sizeof(f));
    sc_err_t err;
    sc_ingest_kind_t kind = SC_INGEST_NCCL_JSON;
    sc_status_t status = json ? SC_OK : sc_ingest_kind(path, &kind, &err);
    if (status == SC_OK)
        status = kind == SC_INGEST_NCCL_JSON ? sc_json_load_nccl_tests(path, &f, &err)
                                             : sc_ingest_text(path, kind, &f, &err);
    if (status == SC_OK)
        (void)sc_ingest_complete(&f, &err);
    sc_list_free(&f.rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/input", fuzz__dir);
    if (strcmp(fuzz__kind, "result") == 0) {
        fuzz__result(data, size);
        return 0;
    }
    fuzz__write(path, data, size);
    if (strcmp(fuzz__kind, "baseline") == 0) {
        sc_baseline_t b;
        sc_err_t err;
        if (sc_json_load_baseline(path, &b, &err) == SC_OK)
            sc_baseline_free(&b);
    } else if (strcmp(fuzz__kind, "journal") == 0) {
        fuzz__journal(path);
    } else {
        fuzz__foreign(path, strcmp(fuzz__kind, "ntjson") == 0);
    }
    return 0;
}
