/* The JSON scan that passes a fleet's rows by (json/sc_json_scan.h) against a byte-at-a-time
 * reference: random values - nested containers, strings holding brackets, quotes, backslash
 * runs and newlines - placed at every offset of a 64-byte block, so that strings, escapes and
 * brackets straddle the blocks the SSE2 path reads, cut short, and with brackets that do not
 * match; where each ends, whether it is one, and the lines counted must be the reference's.
 * Then the peek of a row's members against jansson's own reading of random rows, compact and
 * indented. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/sc_json_scan.h"
#include "sc_test.h"

static unsigned scan_seed = 12345;

static unsigned next_random(void)
{
    scan_seed = scan_seed * 1103515245u + 12345u;
    return (scan_seed >> 8) & 0xffffff;
}

/* A random value into buf at *n (bounded by cap): objects, arrays, strings, numbers. */
static void random_value(char *buf, size_t *n, size_t cap, int depth)
{
    static const char *const pieces[] = {"[", "]",   "{", "}", "\\\"", "\\\\", "\\\\\\\"",
                                         "x", "\\n", ",", ":", "\"\"", " "};
    if (*n + 64 >= cap)
        return;
    unsigned kind = next_random() % (depth > 6 ? 2 : 4);
    if (kind == 0) { /* a string with what a scan must not take for structure */
        buf[(*n)++] = '"';
        for (unsigned k = next_random() % 24; k > 0 && *n + 8 < cap; k--) {
            const char *p = pieces[next_random() % (sizeof(pieces) / sizeof(pieces[0]))];
            if (strcmp(p, "\"\"") == 0)
                p = "ab";
            size_t len = strlen(p);
            memcpy(buf + *n, p, len);
            *n += len;
        }
        buf[(*n)++] = '"';
    } else if (kind == 1) {
        *n += (size_t)snprintf(buf + *n, cap - *n, "%u.%u", next_random(), next_random() % 97);
    } else {
        bool object = kind == 2;
        buf[(*n)++] = object ? '{' : '[';
        for (unsigned k = next_random() % 6; k > 0 && *n + 64 < cap; k--) {
            if (object) {
                *n += (size_t)snprintf(buf + *n, cap - *n, "\"k%u\":", next_random() % 100);
                if (next_random() % 4 == 0)
                    buf[(*n)++] = '\n';
            }
            random_value(buf, n, cap, depth + 1);
            if (k > 1)
                buf[(*n)++] = ',';
        }
        buf[(*n)++] = object ? '}' : ']';
    }
}

/* The reference: a byte at a time, as JSON defines a container's end. */
static bool reference_skip(const char *p, const char *end, const char **stop, int *lines)
{
    char closes[70];
    int n = 0;
    bool in_string = false, escaped = false;
    for (; p < end; p++) {
        char ch = *p;
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                in_string = false;
            continue;
        }
        if (ch == '"')
            in_string = true;
        else if (ch == '\n')
            (*lines)++;
        else if (ch == '{' || ch == '[') {
            if (n == 64)
                return false;
            closes[n++] = ch == '{' ? '}' : ']';
        } else if (ch == '}' || ch == ']') {
            if (n == 0 || closes[--n] != ch)
                return false;
            if (n == 0) {
                *stop = p + 1;
                return true;
            }
        }
    }
    return false;
}

static void one_case(const char *text, size_t len)
{
    const char *want_stop = NULL;
    int want_lines = 1;
    bool want = reference_skip(text, text + len, &want_stop, &want_lines);
    sc_scan_t c = {text, text + len, 1};
    bool got = sc_scan_skip(&c, 0);
    SC_EXPECT(got == want);
    if (got && want) {
        SC_EXPECT(c.p == want_stop);
        SC_EXPECT(c.line == want_lines);
    }
}

static void scans(void)
{
    static char buf[1 << 16];
    for (int round = 0; round < 3000; round++) {
        size_t offset = (size_t)round % 64, n;
        memset(buf, ' ', offset);
        do { /* a container: what a list's rows are */
            n = offset;
            random_value(buf, &n, sizeof(buf) - 256, 0);
        } while (n == offset || (buf[offset] != '{' && buf[offset] != '['));
        memset(buf + n, ' ', 200); /* room after it: the block path reads on */
        one_case(buf + offset, n - offset + (size_t)(round % 3) * 70);
        one_case(buf + offset, (n - offset) * (size_t)(next_random() % 100) / 100); /* torn */
        if (n - offset > 2) { /* a bracket changed: no longer matched */
            size_t at = offset + 1 + next_random() % (n - offset - 1);
            char was = buf[at];
            buf[at] = was == '}' ? ']' : was == ']' ? '}' : was == '[' ? '{' : was;
            one_case(buf + offset, n - offset);
            buf[at] = was;
        }
    }
    static char deep[200];
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    sc_scan_t c = {deep, deep + 130, 1};
    SC_EXPECT(!sc_scan_skip(&c, 0)); /* 65 deep: refused */
    c = (sc_scan_t){deep + 1, deep + 129, 1};
    SC_EXPECT(sc_scan_skip(&c, 0) && c.p == deep + 129);
}

/* A row of random members, written by jansson compact or indented: every member's peeked text
 * is jansson's own compact text of that value. */
static void peeks_against_jansson(void)
{
    for (int round = 0; round < 500; round++) {
        json_t *row = json_object();
        char names[8][16];
        int nkeys = 1 + (int)(next_random() % 8);
        for (int k = 0; k < nkeys; k++) {
            snprintf(names[k], sizeof(names[k]), "key_%d_%u", k, next_random() % 10);
            char text[40];
            snprintf(text, sizeof(text), "v\"%u\\]}{", next_random());
            unsigned kind = next_random() % 4;
            json_t *v = kind == 0   ? json_string(text)
                        : kind == 1 ? json_real((double)next_random() / 7.0)
                        : kind == 2 ? json_integer((json_int_t)next_random())
                                    : json_pack("{s:[i,s]}", "in", 1, "]");
            json_object_set_new(row, names[k], v);
        }
        char *text = json_dumps(row, round % 2 ? JSON_INDENT(2) : JSON_COMPACT);
        const char *keys[8];
        char got[8][SC_JSON_PEEK_MAX];
        for (int k = 0; k < nkeys; k++)
            keys[k] = names[k];
        SC_EXPECT(sc_json_peek_texts(text, strlen(text), keys, nkeys, got) == nkeys);
        for (int k = 0; k < nkeys; k++) {
            json_t *v = json_object_get(row, names[k]);
            char *want = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            if (json_is_object(v)) /* a container's text is as written, indented or not */
                SC_EXPECT(got[k][0] == '{');
            else
                SC_EXPECT(strcmp(got[k], want) == 0);
            free(want);
        }
        free(text);
        json_decref(row);
    }
}

/* Keys that share a first byte, one a prefix of another, and the empty key. */
static void peeks_of_like_keys(void)
{
    static const char row[] = "{\"ab\":1,\"a\":2,\"\":3,\"abc\":\"x\"}";
    const char *keys[] = {"abc", "", "a", "ab"};
    char got[4][SC_JSON_PEEK_MAX];
    SC_EXPECT(sc_json_peek_texts(row, strlen(row), keys, 4, got) == 4);
    SC_EXPECT(strcmp(got[0], "\"x\"") == 0 && strcmp(got[1], "3") == 0);
    SC_EXPECT(strcmp(got[2], "2") == 0 && strcmp(got[3], "1") == 0);
}

int main(void)
{
    scans();
    peeks_against_jansson();
    peeks_of_like_keys();
    return sc_test_done("test_scan");
}
