/* sc_json_soak.c - the soak's JSON Lines journal: each line one jansson object dumped
 * compact, appended with a single write() and fsync'd; read back line by line. */
#include "report/sc_json_soak.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/sc_json_build.h"
#include "json/sc_json_check.h"

void sc_soak_start_free(sc_soak_start_t *s)
{
    for (int i = 0; s->argv != NULL && i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    s->argv = NULL;
    s->argc = 0;
}

/* v as one line, appended whole and synced (flags: O_EXCL for the first). Drops v. */
static sc_status_t journal__append(const char *path, json_t *v, int flags, sc_err_t *err)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(v);
    if (text == NULL)
        return sc_err_set(err, SC_ERR_NOMEM, "%s: no memory for a journal line", path);
    size_t len = strlen(text);
    char *line = realloc(text, len + 2);
    if (line == NULL) {
        free(text);
        return sc_err_set(err, SC_ERR_NOMEM, "%s: no memory for a journal line", path);
    }
    line[len] = '\n';
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | flags, 0644);
    ssize_t wrote = fd >= 0 ? write(fd, line, len + 1) : -1;
    int saved = errno;
    bool synced = fd >= 0 && wrote == (ssize_t)(len + 1) && fsync(fd) == 0;
    if (fd >= 0)
        close(fd);
    free(line);
    if (!synced)
        return sc_err_set(err, SC_ERR_IO, "%s: cannot append to the journal: %s", path,
                          strerror(wrote < 0 || fd < 0 ? saved : ENOSPC));
    return SC_OK;
}

sc_status_t sc_soak_journal_create(const char *path, const sc_soak_start_t *s, sc_err_t *err)
{
    json_t *argv = json_array();
    for (int i = 0; i < s->argc; i++)
        json_array_append_new(argv, json_string(s->argv[i]));
    json_t *v = json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:o, s:f}", "type", "start", "version",
                          s->version, "start_utc", s->start_utc, "ranks", s->ranks, "nhosts",
                          s->nhosts, "hosts", s->hosts, "argv", argv, "duration_s", s->duration_s);
    return journal__append(path, v, O_EXCL, err);
}

sc_status_t sc_soak_journal_cycle(const char *path, const sc_soak_cycle_t *c, sc_err_t *err)
{
    json_t *v = sc_json_record(c, sc_soak_cycle_fields), *sweep = json_array();
    for (int i = 0; i < c->nsizes; i++)
        json_array_append_new(sweep,
                              json_pack("{s:I, s:f}", "size_bytes", (json_int_t)c->size_bytes[i],
                                        "busbw_GBps", c->busbw_GBps[i]));
    json_object_set_new(v, "type", json_string("cycle"));
    json_object_set_new(v, "sweep", sweep);
    json_object_set_new(
        v, "hosts",
        sc_json_records(c->hosts, (size_t)c->nhosts, sizeof(*c->hosts), sc_soak_host_fields));
    return journal__append(path, v, 0, err);
}

sc_status_t sc_soak_journal_mark(const char *path, const char *type, const char *state,
                                 const char *reason, int cycles, sc_err_t *err)
{
    char now[32];
    time_t t = time(NULL);
    struct tm utc;
    gmtime_r(&t, &utc);
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &utc);
    json_t *v = json_pack("{s:s, s:s, s:i}", "type", type, "at_utc", now, "cycles", cycles);
    if (state != NULL)
        json_object_set_new(v, "state", json_string(state));
    if (reason != NULL && reason[0] != '\0')
        json_object_set_new(v, "reason", json_string(reason));
    return journal__append(path, v, 0, err);
}

/* A text member of v, "" when absent. */
static const char *journal__str(const json_t *v, const char *key)
{
    const char *text = json_string_value(json_object_get(v, key));
    return text != NULL ? text : "";
}

/* The start line into s. */
static void journal__start(const json_t *v, sc_soak_start_t *s)
{
    snprintf(s->version, sizeof(s->version), "%s", journal__str(v, "version"));
    snprintf(s->start_utc, sizeof(s->start_utc), "%s", journal__str(v, "start_utc"));
    snprintf(s->hosts, sizeof(s->hosts), "%s", journal__str(v, "hosts"));
    s->ranks = (int)json_integer_value(json_object_get(v, "ranks"));
    s->nhosts = (int)json_integer_value(json_object_get(v, "nhosts"));
    s->duration_s = json_number_value(json_object_get(v, "duration_s"));
    const json_t *argv = json_object_get(v, "argv");
    s->argc = (int)json_array_size(argv);
    s->argv = calloc((size_t)s->argc + 1, sizeof(char *));
    for (int i = 0; s->argv != NULL && i < s->argc; i++) {
        const char *arg = json_string_value(json_array_get(argv, (size_t)i));
        s->argv[i] = strdup(arg != NULL ? arg : "");
    }
}

/* A cycle line into a new element of cycles; false when a value is refused (src says why) or
 * memory ran out. */
/* What no soak writes: a cycle that does not follow the one before, more hosts than the soak
 * ran on, a host without a name. */
static bool journal__cycle_sane(sc_json_src_t *src, const sc_soak_cycles_t *cycles,
                                const sc_soak_start_t *start)
{
    const sc_soak_cycle_t *c = &cycles->items[cycles->n - 1];
    int before = cycles->n > 1 ? cycles->items[cycles->n - 2].cycle : 0;
    char why[128];
    if (c->cycle <= before) {
        snprintf(why, sizeof(why), "%d does not follow cycle %d", c->cycle, before);
        return sc_json_refuse(src, NULL, 0, "cycle", why);
    }
    if (start->nhosts < 1 || c->nhosts > start->nhosts) {
        snprintf(why, sizeof(why), "%d hosts, where the soak ran on %d", c->nhosts, start->nhosts);
        return sc_json_refuse(src, NULL, 0, "hosts", why);
    }
    for (int k = 0; k < c->nhosts; k++)
        if (c->hosts[k].host[0] == '\0')
            return sc_json_refuse(src, NULL, 0, "hosts", "a host without its name");
    return true;
}

static bool journal__cycle(sc_json_src_t *src, const json_t *v, sc_soak_cycles_t *cycles,
                           const sc_soak_start_t *start)
{
    sc_soak_cycle_t *c = SC_LIST_PUSH(cycles);
    if (c == NULL) {
        src->status = sc_err_set(src->err, SC_ERR_NOMEM, "%s:%d: no memory", src->path, src->line);
        return false;
    }
    sc_soak_cycle_init(c);
    if (!sc_json_read_record(src, v, c, sc_soak_cycle_fields, NULL, -1))
        return false;
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(v, "sweep"), i, row)
    {
        if (c->nsizes == SC_SOAK_SIZES)
            break;
        const json_t *bw = json_object_get(row, "busbw_GBps");
        double GBps = json_is_number(bw) ? json_number_value(bw) : -1;
        if (!sc_json_u64(json_object_get(row, "size_bytes"), &c->size_bytes[c->nsizes]) ||
            !(GBps >= 0 && GBps <= sc_json_unit_max("busbw_GBps")))
            return sc_json_refuse(src, NULL, 0, "sweep",
                                  "a row needs size_bytes (a whole number) and busbw_GBps (a "
                                  "figure no link exceeds)");
        c->busbw_GBps[c->nsizes++] = GBps;
    }
    const json_t *hosts = json_object_get(v, "hosts");
    c->hosts = calloc(json_array_size(hosts) + 1, sizeof(sc_soak_host_t));
    json_array_foreach(hosts, i, row)
    {
        if (c->hosts != NULL && !sc_json_read_record(src, row, &c->hosts[c->nhosts++],
                                                     sc_soak_host_fields, "hosts", (long)i))
            return false;
    }
    return journal__cycle_sane(src, cycles, start);
}

/* The journal's text, cut back to its last whole line (on disk too). */
static char *journal__text(const char *path, sc_err_t *err, sc_status_t *status)
{
    FILE *f = fopen(path, "r+");
    if (f == NULL) {
        *status =
            sc_err_set(err, SC_ERR_INPUT, "%s: cannot open the journal: %s", path, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
    long whole = (long)got;
    while (whole > 0 && text[whole - 1] != '\n')
        whole--;
    if (text != NULL && whole < (long)got && ftruncate(fileno(f), whole) != 0)
        *status = sc_err_set(err, SC_ERR_IO, "%s: cannot cut the journal's last line short: %s",
                             path, strerror(errno));
    fclose(f);
    if (text == NULL)
        *status = sc_err_set(err, SC_ERR_NOMEM, "%s: no memory for the journal", path);
    else
        text[whole] = '\0';
    return text;
}

sc_status_t sc_soak_journal_read(const char *path, sc_soak_start_t *start, sc_soak_cycles_t *cycles,
                                 bool *complete, sc_err_t *err)
{
    memset(start, 0, sizeof(*start));
    *complete = false;
    sc_status_t status = SC_OK;
    char *text = journal__text(path, err, &status);
    int line = 0;
    for (char *at = text, *next = NULL; status == SC_OK && at != NULL && *at; at = next) {
        next = strchr(at, '\n');
        line++;
        if (next == NULL) { /* the text ends in a newline: only a NUL byte stops strchr first */
            status = sc_err_set(err, SC_ERR_INPUT, "%s:%d: a NUL byte in the line", path, line);
            break;
        }
        *next++ = '\0';
        json_error_t jerr;
        json_t *v = json_loads(at, 0, &jerr);
        const char *type = json_string_value(json_object_get(v, "type"));
        static const char *const types[] = {"start", "cycle", "resume", "end", NULL};
        bool known = false;
        for (int k = 0; type != NULL && types[k] != NULL; k++)
            known |= strcmp(type, types[k]) == 0;
        sc_json_src_t src = {.path = path, .line = line, .err = err};
        if (!known || (line == 1) != !strcmp(type, "start"))
            status = sc_err_set(err, SC_ERR_INPUT, "%s:%d: %s", path, line,
                                v == NULL   ? jerr.text
                                : line == 1 ? "not a soak journal (no start line)"
                                : !known    ? "a line that is not a soak record (its type)"
                                            : "a second start line");
        else if (!strcmp(type, "start"))
            journal__start(v, start);
        else if (!strcmp(type, "cycle") && !journal__cycle(&src, v, cycles, start))
            status = src.status;
        start->launches += status == SC_OK && (!strcmp(type, "start") || !strcmp(type, "resume"));
        *complete = status == SC_OK && !strcmp(type, "end") &&
                    !strcmp(journal__str(v, "state"), "complete");
        json_decref(v);
    }
    if (status == SC_OK && line == 0)
        status = sc_err_set(err, SC_ERR_INPUT, "%s: an empty journal", path);
    free(text);
    return status;
}
