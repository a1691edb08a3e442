/* sc_ingest.c - nccl-tests and OSU text tables into case rows. Both tools print '#' comment
 * lines around a table whose rows start with the message size; anything else (NCCL INFO lines,
 * launcher warnings) is passed over, but a row that starts with a size and does not parse is an
 * error naming file:line. Pastes come indented and launchers tag each line ("[1,0]<stdout>:",
 * "[0] ", srun -l's "0: "): both are taken off first. nccl-tests' table changed over the years
 * (no redop column in all_gather's rows before 2.x printed "none", a root column since 2.11, an
 * `error` column of the largest error before `#wrong`, no header at all in a paste of the rows
 * alone): the columns are told from the row itself (a redop is a word, a root makes the count
 * odd), and each row's time is held against its algbw (size / time), so that a column read as
 * another is an error, never a figure; NCCL 1's tests printed milliseconds, which the same test
 * tells. */
#include "sc_ingest.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/sc_coll.h"
#include "util/sc_numtext.h"

#define SC__LINE   4096
#define SC__TOKENS 48
#define SC__HOSTS  4096

static const struct {
    const char *program, *collective;
} ingest__nccl_programs[] = {
    {"all_reduce_perf", "allreduce"},
    {"all_gather_perf", "allgather"},
    {"reduce_scatter_perf", "reducescatter"},
    {"broadcast_perf", "broadcast"},
    {"reduce_perf", "reduce"},
    {"alltoall_perf", "alltoall"},
    {"gather_perf", "gather"},
    {"scatter_perf", "scatter"},
    {"sendrecv_perf", "sendrecv"},
};

/* OSU titles, most specific first ("Allgather" before "Gather"); NULL: not judged. */
static const struct {
    const char *word, *collective;
} ingest__osu_titles[] = {
    {"Reduce_scatter", "reducescatter"},
    {"Reduce-Scatter", "reducescatter"},
    {"Allreduce", "allreduce"},
    {"Allgather", "allgather"},
    {"All-to-All", "alltoall"},
    {"Alltoall", "alltoall"},
    {"Broadcast", "broadcast"},
    {"Bcast", "broadcast"},
    {"Reduce", "reduce"},
    {"Gather", "gather"},
    {"Scatter", "scatter"},
    {"Multiple Bandwidth", NULL}, /* osu_mbw_mr: pairs' aggregate, and a message rate */
    {"Message Rate", NULL},
    {"Non-blocking", NULL}, /* overall time with compute overlapped, not the collective's */
    {"Multi Latency", NULL},
    {"Multi-threaded", NULL},
    {"Bi-Directional", NULL},
    {"Bandwidth", "sendrecv"},
    {"Latency", "sendrecv"},
};

const char *sc_ingest_nccl_program(const char *program)
{
    const char *base = strrchr(program, '/');
    base = base ? base + 1 : program;
    for (size_t i = 0; i < sizeof(ingest__nccl_programs) / sizeof(ingest__nccl_programs[0]); i++)
        if (strncmp(base, ingest__nccl_programs[i].program,
                    strlen(ingest__nccl_programs[i].program)) == 0)
            return ingest__nccl_programs[i].collective;
    return NULL;
}

const char *sc_ingest_osu_title(const char *title)
{
    for (size_t i = 0; i < sizeof(ingest__osu_titles) / sizeof(ingest__osu_titles[0]); i++)
        if (strstr(title, ingest__osu_titles[i].word) != NULL)
            return ingest__osu_titles[i].collective;
    return NULL;
}

/* A launcher's tag at the start of a line, and the indentation of a paste, passed over: Open
 * MPI's --tag-output "[1,0]<stdout>:", hydra's -l "[0] ", srun -l's "0: ". *tagged says one was
 * there. */
static char *ingest__untag(char *line, bool *tagged)
{
    char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    char *q = p;
    if (*q == '[') {
        for (q++; isdigit((unsigned char)*q) || *q == ','; q++)
            ;
        if (*q != ']' || q == p + 1)
            return p;
        q++;
        if (strncmp(q, "<stdout>:", 9) == 0 || strncmp(q, "<stderr>:", 9) == 0)
            q += 9;
        else if (*q == ':')
            q++;
    } else if (isdigit((unsigned char)*q)) {
        while (isdigit((unsigned char)*q))
            q++;
        if (*q != ':')
            return p;
        q++;
    } else {
        return p;
    }
    *tagged = true;
    while (isspace((unsigned char)*q))
        q++;
    return q;
}

static int ingest__split(char *line, char **tok);

/* Whether a line is another program's log line, which may come between a table's rows: NCCL's
 * ("host:pid:tid [0] NCCL INFO ..."), a launcher's or UCX's ("[host:pid] ..."), a warning. */
static bool ingest__log_line(const char *text)
{
    return strstr(text, "NCCL") != NULL || text[0] == '[' || strstr(text, "UCX") != NULL ||
           strstr(text, "WARN") != NULL || strstr(text, "warn") != NULL ||
           strstr(text, "rror") != NULL;
}
static bool ingest__is_uint(const char *s);

/* A row of nccl-tests' table by its look alone (a paste without the '#' lines): a size, a
 * count, a type name, then numbers and words. */
static bool ingest__nccl_row_shape(const char *text)
{
    char copy[SC__LINE], *tok[SC__TOKENS];
    snprintf(copy, sizeof(copy), "%s", text);
    int n = ingest__split(copy, tok);
    return n >= 7 && ingest__is_uint(tok[0]) && ingest__is_uint(tok[1]) &&
           isalpha((unsigned char)tok[2][0]);
}

sc_status_t sc_ingest_kind(const char *path, sc_ingest_kind_t *kind, sc_err_t *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s: cannot open", path);
    char line[SC__LINE];
    bool found = false, tagged = false;
    for (int n = 0; n < 400 && !found && fgets(line, sizeof(line), f) != NULL; n++) {
        const char *p = ingest__untag(line, &tagged);
        if (n == 0 && *p == '{')
            *kind = SC_INGEST_NCCL_JSON, found = true;
        else if (strncmp(p, "# OSU ", 6) == 0)
            *kind = SC_INGEST_OSU, found = true;
        else if (strstr(p, "nThread") != NULL || strstr(p, "Collective test starting") ||
                 strstr(p, "out-of-place") != NULL || strstr(p, "Avg bus bandwidth") != NULL ||
                 ingest__nccl_row_shape(p))
            *kind = SC_INGEST_NCCL_TEXT, found = true;
    }
    fclose(f);
    return found ? SC_OK
                 : sc_err_set(err, SC_ERR_INPUT,
                              "%s: neither nccl-tests output (text or -J JSON) nor OSU "
                              "micro-benchmark output",
                              path);
}

static int ingest__split(char *line, char **tok)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t && n < SC__TOKENS;
         t = strtok_r(NULL, " \t\r\n", &save))
        tok[n++] = t;
    return n;
}

static bool ingest__is_uint(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* A size in bytes: digits only, at most 2^56 (64 PiB, as result.json's readers hold it). */
static bool ingest__size(const char *s, uint64_t *v)
{
    errno = 0;
    *v = ingest__is_uint(s) ? strtoull(s, NULL, 10) : 0;
    return ingest__is_uint(s) && errno == 0 && *v <= (1ull << 56);
}

static bool ingest__number(const char *s, double *v)
{
    char *end = NULL;
    *v = sc_numtext_parse(s, &end);
    return end != s && *end == '\0' && isfinite(*v);
}

#define INGEST__SERIES 64 /* series a run's table holds: -d all x -o all x roots */

/* What a file keeps while it is read: hosts seen in the device list, the table's shape. */
typedef struct {
    const char *path;
    int line;
    char (*hosts)[SC_HOST_MAX];
    int nhosts, ranks;
    int top_rank;       /* the highest rank the device list names (-1: none) */
    int runs;           /* "Collective test starting" lines: runs in the file */
    int run_line;       /* where the second run starts */
    int group;          /* columns per placement: 4, or 8 with per-iteration statistics */
    bool header;        /* the table's header line was seen */
    bool header_root;   /* ... and it names a root column */
    bool tagged;        /* lines carried a launcher's tag */
    bool in_table;      /* between a table's rows: a line there is a row or a log line */
    bool awaiting_rows; /* after the table's header, before its first row: the same */
    /* each (type, op, root) series' last size: sizes grow down a run's table, a size again
     * is a second run */
    struct {
        char key[48];
        uint64_t size;
    } series[INGEST__SERIES];
    int nseries;
    bool redop, noop;         /* rows with a redop column, rows without one */
    bool root;                /* rows with a root column */
    double time_scale;        /* 1: times in us; 1000: in ms (NCCL 1); 0: not told yet */
    sc_ingest_visit_fn visit; /* NULL: rows kept in the file's list */
    void *ctx;
} ingest__reader_t;

/* A row read: kept, or handed to the visitor; counted. */
static sc_status_t ingest__emit(ingest__reader_t *r, sc_foreign_t *out, sc_case_row_t *row,
                                sc_err_t *err)
{
    out->nrows++;
    if (r->visit != NULL)
        return r->visit(r->ctx, row) ? SC_OK
                                     : sc_err_set(err, SC_ERR_NOMEM, "%s: no memory", r->path);
    sc_case_row_t *slot = SC_LIST_PUSH(&out->rows);
    if (slot == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "%s: no memory for its rows", r->path);
    *slot = *row;
    return SC_OK;
}

static void ingest__host(ingest__reader_t *r, const char *host)
{
    for (int i = 0; i < r->nhosts; i++)
        if (strcmp(r->hosts[i], host) == 0)
            return;
    if (r->nhosts < SC__HOSTS)
        snprintf(r->hosts[r->nhosts++], SC_HOST_MAX, "%s", host);
}

/* The program a "Collective test starting: X" or "... concluded: X" line names (nccl-tests and
 * rccl-tests: the header and the footer), into out's collective. */
static void ingest__nccl_program(ingest__reader_t *r, const char *line, sc_foreign_t *out)
{
    static const char *const says[] = {"Collective test starting:", "Collective test concluded:"};
    for (int i = 0; i < 2; i++) {
        const char *at = strstr(line, says[i]);
        char word[256];
        if (at == NULL || sscanf(at + strlen(says[i]), " %255s", word) != 1)
            continue;
        if (i == 0 && ++r->runs == 2)
            r->run_line = r->line;
        const char *c = sc_ingest_nccl_program(word);
        if (c != NULL)
            snprintf(out->collective, sizeof(out->collective), "%s", c);
    }
}

/* '#' lines of nccl-tests: the program, the device list, the table's header. */
static void ingest__nccl_comment(ingest__reader_t *r, const char *line, sc_foreign_t *out)
{
    char word[256];
    ingest__nccl_program(r, line, out);
    /* "#  Rank  0 Group  0 Pid ... on HOST device ..." (older: "#   Rank  0 Pid ...") */
    const char *on = strstr(line, " on "), *p = line + 1;
    while (*p == ' ')
        p++;
    int rank;
    if (strncmp(p, "Rank ", 5) == 0 && sscanf(p + 5, "%d", &rank) == 1 && on != NULL &&
        sscanf(on + 4, " %255s", word) == 1) {
        r->ranks++;
        r->top_rank = rank > r->top_rank ? rank : r->top_rank;
        ingest__host(r, word);
    }
    if (strstr(line, "i_min") != NULL)
        r->group = 8;
    if ((strstr(line, " size ") || strstr(line, " bytes ")) && strstr(line, " type ")) {
        r->header = true;
        r->awaiting_rows = true;
        r->header_root = strstr(line, " root ") != NULL;
        if (strstr(line, " bytes ") && strstr(line, " res")) /* NCCL 1's tests: ms */
            r->time_scale = 1000;
    }
}

/* One placement's columns: time, algbw, busbw, #wrong. false when the time is absent. */
static bool ingest__placement(char **tok, sc_case_row_t *row)
{
    double t, alg, bus, wrong = 0;
    if (!ingest__number(tok[0], &t) || !ingest__number(tok[1], &alg) ||
        !ingest__number(tok[2], &bus))
        return false;
    if (!ingest__number(tok[3], &wrong))
        wrong = 0; /* "N/A": not checked */
    row->time_us = t;
    row->algbw_GBps = alg;
    row->busbw_GBps = bus;
    row->wrong = wrong >= 0 && wrong < 1.8e19 ? (uint64_t)wrong : UINT64_MAX; /* no UB cast */
    row->checked = strcmp(tok[3], "N/A") != 0;
    return true;
}

/* A row's algbw against size / time: 1 when the time is in us, 1000 when it is in ms (NCCL 1's
 * tests: size / time a thousand times the printed rate), 0 when they disagree (a column read as
 * another). Allgather and reduce-scatter's algbw held (n - 1) / n before nccl-tests 2.10: 0.45
 * .. 1.15 is "the same". Rates printed with two decimals say little below 1 GB/s: -1, not told. */
static double ingest__time_scale(const sc_case_row_t *row)
{
    if (row->algbw_GBps < 1.0 || row->time_us <= 0)
        return -1;
    double r = row->algbw_GBps / ((double)row->size_bytes / row->time_us / 1e3);
    return r >= 0.45 && r <= 1.15 ? 1 : r >= 0.45e-3 && r <= 1.15e-3 ? 1000 : 0;
}

/* The row's time in us, and its algbw as nccl-tests defines it now (size / time); a file's
 * unit is told by its header (NCCL 1) or its first row that can tell, and holds for all. */
static sc_status_t ingest__nccl_time_scale(ingest__reader_t *r, sc_case_row_t *row, sc_err_t *err)
{
    double told = ingest__time_scale(row);
    if (told > 0 && r->time_scale == 0)
        r->time_scale = told;
    if (told == 0 || (told > 0 && told != r->time_scale))
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s:%d: a time of %g and an algbw of %g GB/s do not agree for %llu B "
                          "(size / time): the columns are not nccl-tests' (size, count, type, "
                          "[redop,] [root,] time, algbw, busbw, #wrong)",
                          r->path, r->line, row->time_us, row->algbw_GBps,
                          (unsigned long long)row->size_bytes);
    double scale = r->time_scale > 0 ? r->time_scale : 1;
    row->time_us *= scale;
    row->time_us_min *= scale;
    row->time_us_max *= scale;
    row->time_us_p99 *= scale;
    /* the old (n - 1) / n algbw, where the row shows it (rates under 0.1 GB/s print as noise) */
    double now = (double)row->size_bytes / row->time_us / 1e3;
    if (row->algbw_GBps >= 0.1 && row->algbw_GBps >= 0.45 * now && row->algbw_GBps <= 1.15 * now)
        row->algbw_GBps = now;
    return SC_OK;
}

/* A placement's per-iteration columns (nccl-tests with per-iteration timing): the fastest, the
 * slowest and the 99th percentile iteration (us), and the coefficient of variation (%). Absent
 * or unreadable ones stay 0: not known. */
static void ingest__iteration_stats(char **tok, sc_case_row_t *row)
{
    double v[4];
    for (int i = 0; i < 4; i++)
        if (!ingest__number(tok[i], &v[i]) || v[i] < 0)
            return;
    row->time_us_min = v[0];
    row->time_us_max = v[1];
    row->time_us_p99 = v[2];
    row->cv = v[3] / 100.0;
}

/* A row's size against its series' last: a size that does not grow starts a second run (two
 * runs in one file, one after the other or interleaved), refused at its line. */
static sc_status_t ingest__series(ingest__reader_t *r, const char *key, uint64_t size,
                                  sc_err_t *err)
{
    int i = 0;
    while (i < r->nseries && strcmp(r->series[i].key, key) != 0)
        i++;
    if (i == r->nseries && r->nseries < INGEST__SERIES)
        snprintf(r->series[r->nseries++].key, sizeof(r->series[0].key), "%s", key);
    else if (i < r->nseries && size <= r->series[i].size) {
        char said[96] = "";
        if (r->runs > 1)
            snprintf(said, sizeof(said),
                     ", as its second 'Collective test starting' line (%d) says", r->run_line);
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s:%d: %" PRIu64 " B again after %" PRIu64
                          " B (%s): a second run in the file%s - judge each run's output alone",
                          r->path, r->line, size, r->series[i].size, key, said);
    }
    if (i < r->nseries)
        r->series[i].size = size;
    return SC_OK;
}

static sc_status_t ingest__nccl_row(ingest__reader_t *r, char **tok, int n, sc_foreign_t *out,
                                    sc_err_t *err)
{
    double number;
    /* a redop is a word ("sum", "none"); old all_gather rows went straight to the time */
    bool redop = n > 3 && !ingest__number(tok[3], &number);
    int rest = n - (redop ? 4 : 3); /* after size, count, type[, redop] */
    bool root = r->header
                    ? r->header_root
                    : rest == 2 * r->group + 1 || rest == 2 * r->group + 3 || rest == r->group + 1;
    int first = (redop ? 4 : 3) + (root ? 1 : 0);
    uint64_t size, count;
    if (rest < r->group + (root ? 1 : 0) || !ingest__size(tok[0], &size) ||
        !ingest__size(tok[1], &count) || ingest__number(tok[2], &number))
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s:%d: an nccl-tests row needs size, count, type, [redop,] [root,] "
                          "time, algbw, busbw, #wrong (out of place, then in place)",
                          r->path, r->line);
    r->redop |= redop;
    r->noop |= !redop;
    r->root |= root;
    char key[48];
    snprintf(key, sizeof(key), "%.15s %.15s root %.8s", tok[2], redop ? tok[3] : "-",
             root ? tok[first - 1] : "-");
    sc_status_t repeated = ingest__series(r, key, size, err);
    if (repeated != SC_OK)
        return repeated;
    for (int place = 0; place < 2 && first + place * r->group + 3 < n; place++) {
        sc_case_row_t row = sc_case_row_foreign(place == 1);
        row.root = root ? atoi(tok[first - 1]) : -1;
        row.size_bytes = size;
        row.count = count;
        sc_text_copy(row.dtype, sizeof(row.dtype), tok[2]);
        sc_text_copy(row.op, sizeof(row.op), !redop || strcmp(tok[3], "none") == 0 ? "" : tok[3]);
        sc_text_copy(row.timer, sizeof(row.timer), "device");
        if (!ingest__placement(tok + first + place * r->group, &row)) {
            if (place == 0)
                return sc_err_set(err, SC_ERR_INPUT, "%s:%d: '%s' is not a time in us", r->path,
                                  r->line, tok[first]);
            continue;
        }
        if (r->group == 8 && first + place * r->group + 7 < n) /* i_min, i_max, i_p99, i_cv% */
            ingest__iteration_stats(tok + first + place * r->group + 4, &row);
        /* figures no link makes first, then the time's unit, then size / time */
        char why[192];
        const char *bad = sc_case_row_implausible(&row, false, why, sizeof(why));
        sc_status_t status = bad ? SC_OK : ingest__nccl_time_scale(r, &row, err);
        if (status != SC_OK)
            return status;
        if (bad == NULL)
            bad = sc_case_row_implausible(&row, true, why, sizeof(why));
        if (bad != NULL)
            return sc_err_set(err, SC_ERR_INPUT, "%s:%d: %s of place: %s", r->path, r->line,
                              place ? "in" : "out", bad);
        if ((status = ingest__emit(r, out, &row, err)) != SC_OK)
            return status;
    }
    return SC_OK;
}

/* OSU: the title names the test; rows are "size value [...]"; bandwidth tests give MB/s. */
static sc_status_t ingest__osu_row(ingest__reader_t *r, char **tok, int n, bool bandwidth,
                                   const char *dtype, sc_foreign_t *out, sc_err_t *err)
{
    double v;
    uint64_t size;
    if (n < 2 || !ingest__size(tok[0], &size) || !ingest__number(tok[1], &v) || v <= 0 ||
        v > (bandwidth ? SC_GBPS_MAX * 1e3 : 1e13))
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s:%d: an OSU row needs a size and a positive %s no link exceeds",
                          r->path, r->line, bandwidth ? "bandwidth (MB/s)" : "latency (us)");
    sc_case_row_t row = sc_case_row_foreign(false);
    row.size_bytes = size;
    /* OSU's MB/s is 10^6 bytes/s: the time of one message follows */
    row.time_us = bandwidth ? (double)row.size_bytes / v : v;
    snprintf(row.timer, sizeof(row.timer), "host");
    snprintf(row.dtype, sizeof(row.dtype), "%s", dtype);
    return ingest__emit(r, out, &row, err);
}

static void ingest__osu_comment(const char *line, bool *bandwidth, sc_foreign_t *out, char *dtype)
{
    if (strncmp(line, "# OSU ", 6) == 0) {
        const char *c = sc_ingest_osu_title(line);
        snprintf(out->collective, sizeof(out->collective), "%s", c ? c : "");
        *bandwidth = strstr(line, "Bandwidth") != NULL;
    }
    if (strncmp(line, "# Datatype: ", 12) == 0) {
        static const struct {
            const char *mpi, *ours;
        } types[] = {{"MPI_CHAR", "int8"},
                     {"MPI_INT", "int32"},
                     {"MPI_FLOAT", "float"},
                     {"MPI_DOUBLE", "double"},
                     {"MPI_LONG", "int64"}};
        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
            if (strncmp(line + 12, types[i].mpi, strlen(types[i].mpi)) == 0)
                snprintf(dtype, 16, "%s", types[i].ours);
    }
}

static sc_status_t ingest__read(FILE *f, ingest__reader_t *r, sc_ingest_kind_t kind,
                                sc_foreign_t *out, sc_err_t *err)
{
    char line[SC__LINE], copy[SC__LINE], dtype[16] = "int8", title[128] = "";
    if (out->dtype[0] != '\0') /* read before: the type its header names, wherever it is */
        snprintf(dtype, sizeof(dtype), "%s", out->dtype);
    char *tok[SC__TOKENS];
    bool bandwidth = false, titled = false;
    sc_status_t status = SC_OK;
    while (status == SC_OK && fgets(line, sizeof(line), f) != NULL) {
        r->line++;
        char *text = ingest__untag(line, &r->tagged);
        if (text[0] == '#') {
            if (kind == SC_INGEST_OSU) {
                if (strncmp(text, "# OSU ", 6) == 0 && !titled) {
                    titled = true;
                    snprintf(title, sizeof(title), "%.*s", (int)strcspn(text + 2, "\r\n"),
                             text + 2);
                }
                ingest__osu_comment(text, &bandwidth, out, dtype);
            } else {
                ingest__nccl_comment(r, text, out);
            }
            r->in_table = false; /* a comment ends the rows (the trailer, the next table) */
            continue;
        }
        sc_text_copy(copy, sizeof(copy), text);
        int n = ingest__split(copy, tok);
        if (n > 0 && !ingest__is_uint(tok[0]) && (r->in_table || r->awaiting_rows) &&
            !ingest__log_line(text))
            return sc_err_set(err, SC_ERR_INPUT,
                              "%s:%d: '%.60s' inside the table is neither a row nor a log line",
                              r->path, r->line, tok[0]);
        if (n == 0 || !ingest__is_uint(tok[0]))
            continue; /* not a table row: NCCL INFO lines, launcher noise */
        r->in_table = true;
        r->awaiting_rows = false;
        if (kind == SC_INGEST_OSU && titled && out->collective[0] == '\0')
            return sc_err_set(err, SC_ERR_INPUT,
                              "%s:%d: %s is not judged (the collectives, osu_latency and osu_bw "
                              "are)",
                              r->path, r->line, title);
        status = kind == SC_INGEST_OSU ? ingest__osu_row(r, tok, n, bandwidth, dtype, out, err)
                                       : ingest__nccl_row(r, tok, n, out, err);
    }
    for (size_t i = 0; kind == SC_INGEST_OSU && i < out->rows.n; i++)
        snprintf(out->rows.items[i].dtype, sizeof(out->rows.items[i].dtype), "%s", dtype);
    if (kind == SC_INGEST_OSU) {
        snprintf(out->dtype, sizeof(out->dtype), "%s", dtype);
        snprintf(out->read_as, sizeof(out->read_as), "OSU micro-benchmarks text (%s)",
                 title[0] ? title : "no title line");
    }
    return status;
}

/* How an nccl-tests text file was read, in words. */
static void ingest__nccl_read_as(const ingest__reader_t *r, sc_foreign_t *out)
{
    snprintf(
        out->read_as, sizeof(out->read_as), "nccl-tests text: %s, %s%s%s, %s, times in %s%s%s%s",
        out->collective[0] ? out->collective : "no program line",
        r->header ? "header" : "no header (rows alone)", r->redop ? "; rows with redop" : "",
        r->noop ? "; rows without redop" : "", r->root ? "a root column" : "no root column",
        r->time_scale > 1 ? "ms (NCCL 1)" : "us", r->group == 8 ? ", per-iteration statistics" : "",
        r->ranks == 0                ? ", no device lines"
        : r->top_rank + 1 > r->ranks ? ", a device list cut short"
                                     : ", device lines",
        r->tagged ? ", launcher tags taken off" : "");
}

sc_status_t sc_ingest_text(const char *path, sc_ingest_kind_t kind, sc_foreign_t *out,
                           sc_err_t *err)
{
    return sc_ingest_text_visit(path, kind, out, NULL, NULL, err);
}

sc_status_t sc_ingest_text_visit(const char *path, sc_ingest_kind_t kind, sc_foreign_t *out,
                                 sc_ingest_visit_fn visit, void *ctx, sc_err_t *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return sc_err_set(err, SC_ERR_INPUT, "%s: cannot open", path);
    ingest__reader_t r = {.path = path, .group = 4, .top_rank = -1, .visit = visit, .ctx = ctx};
    r.hosts = calloc(SC__HOSTS, sizeof(*r.hosts));
    sc_status_t status = r.hosts ? SC_OK : sc_err_set(err, SC_ERR_NOMEM, "no memory");
    snprintf(out->path, sizeof(out->path), "%s", path);
    snprintf(out->tool, sizeof(out->tool), "%s", kind == SC_INGEST_OSU ? "osu" : "nccl-tests");
    if (status == SC_OK)
        status = ingest__read(f, &r, kind, out, err);
    fclose(f);
    if (kind == SC_INGEST_NCCL_TEXT)
        ingest__nccl_read_as(&r, out);
    if (r.ranks > 0) { /* a list cut short still names its highest rank: its hosts are not all */
        bool whole = r.top_rank + 1 == r.ranks;
        out->gpus = r.top_rank + 1 > r.ranks ? r.top_rank + 1 : r.ranks;
        out->nodes = whole ? r.nhosts : 0;
    }
    free(r.hosts);
    if (status == SC_OK && out->nrows == 0)
        status = sc_err_set(err, SC_ERR_INPUT, "%s: no result rows (a %s table)", path, out->tool);
    return status;
}

/* OSU counts one rank's part for gathers, scatters and all-to-all; nccl-tests (and scalecheck)
 * the whole buffer. OSU gives times only: the rates follow from them. */
static void ingest__osu_row_complete(const sc_coll_t *coll, int nranks, sc_case_row_t *row)
{
    bool per_rank = coll->id == SC_COLL_allgather || coll->id == SC_COLL_gather ||
                    coll->id == SC_COLL_scatter || coll->id == SC_COLL_alltoall;
    if (per_rank)
        row->size_bytes *= (uint64_t)nranks;
    row->algbw_GBps = (double)row->size_bytes / row->time_us / 1e3;
    row->busbw_GBps = row->algbw_GBps * row->busbw_factor;
}

sc_status_t sc_ingest_complete(sc_foreign_t *f, sc_err_t *err)
{
    const sc_coll_t *coll = NULL;
    if (f->collective[0] == '\0')
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s: the file does not say which collective it measured: give "
                          "--collective",
                          f->path);
    sc_status_t status = sc_coll_find(f->collective, "--collective", &coll, err);
    if (status != SC_OK)
        return status;
    if (f->gpus > 0 && f->nodes <= 0 && strcmp(f->tool, "osu") != 0)
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s: its device list is cut short (ranks up to %d, not every line): "
                          "give --nodes",
                          f->path, f->gpus - 1);
    if (f->gpus <= 0 || f->nodes <= 0)
        return sc_err_set(err, SC_ERR_INPUT,
                          "%s: %s output does not say how many ranks ran on how many nodes: give "
                          "--gpus and --nodes",
                          f->path, f->tool);
    if (f->gpus % f->nodes != 0)
        return sc_err_set(err, SC_ERR_INPUT, "%s: %d ranks do not spread evenly on %d nodes",
                          f->path, f->gpus, f->nodes);
    for (size_t i = 0; i < f->rows.n; i++)
        sc_ingest_complete_row(f, coll, &f->rows.items[i]);
    return SC_OK;
}

void sc_ingest_complete_row(const sc_foreign_t *f, const sc_coll_t *coll, sc_case_row_t *row)
{
    sc_text_copy(row->collective, sizeof(row->collective), f->collective);
    if (row->busbw_factor == 0)
        row->busbw_factor = coll->busbw_factor(f->gpus);
    if (strcmp(f->tool, "osu") == 0)
        ingest__osu_row_complete(coll, f->gpus, row);
}
