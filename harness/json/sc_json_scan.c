/* sc_json_scan.c - JSON text passed over without a parse (sc_json_scan.h). */
#include "json/sc_json_scan.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The helpers a row's scan calls for every member are inlined: a million rows, a dozen members
 * each (sc_json_peek_texts). */
#define SCAN__INLINE static inline __attribute__((always_inline))

SCAN__INLINE bool scan__space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

SCAN__INLINE void scan__ws(sc_scan_t *c)
{
    for (; c->p < c->end && scan__space(*c->p); c->p++)
        c->line += *c->p == '\n';
}

void sc_scan_ws(sc_scan_t *c)
{
    scan__ws(c);
}

/* The first byte at or after p (before end) that ends a string's text (a quote, a backslash),
 * or - scalar - a scalar (a comma, a closing bracket, white space); end when none. 16 bytes a
 * step with SSE2. */
SCAN__INLINE const char *scan__find(const char *p, const char *end, bool scalar)
{
#ifdef __SSE2__
    for (; end - p >= 16; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p), hit;
        if (scalar)
            hit = _mm_or_si128(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')),
                                                         _mm_cmpeq_epi8(v, _mm_set1_epi8('}'))),
                                            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(']')),
                                                         _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')))),
                               _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')),
                                                         _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))),
                                            _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))));
        else
            hit = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                               _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
        unsigned hits = (unsigned)_mm_movemask_epi8(hit);
        if (hits != 0)
            return p + __builtin_ctz(hits);
    }
#endif
    for (; p < end; p++)
        if (scalar ? *p == ',' || *p == '}' || *p == ']' || scan__space(*p)
                   : *p == '"' || *p == '\\')
            return p;
    return end;
}

/* Past a string's closing quote (c->p just after its opening one): a backslash takes the byte
 * after it. */
SCAN__INLINE bool scan__string_end(sc_scan_t *c)
{
    for (;;) {
        const char *q = scan__find(c->p, c->end, false);
        if (q == c->end)
            return false;
        if (*q == '"') {
            c->p = q + 1;
            return true;
        }
        if (c->end - q < 2)
            return false;
        c->p = q + 2;
    }
}

bool sc_scan_string_end(sc_scan_t *c)
{
    return scan__string_end(c);
}

/* A container being passed: the closing brackets it waits for, and whether the scan is in a
 * string (and just past a backslash there). */
typedef struct {
    char closes[65];
    int n, depth;
    bool in_string, escaped;
} scan__box_t;

/* A bracket outside strings; 1: the container's last one closed, -1: not JSON, 0: on. */
static int scan__bracket(scan__box_t *b, char ch)
{
    if (ch == '{' || ch == '[') {
        if (b->n == 64 || b->depth + b->n > 64)
            return -1;
        b->closes[b->n++] = ch == '{' ? '}' : ']';
        return 0;
    }
    if (b->n == 0 || b->closes[--b->n] != ch)
        return -1;
    return b->n == 0;
}

/* One byte of a container; as scan__bracket. */
static int scan__byte(scan__box_t *b, sc_scan_t *c, char ch)
{
    if (b->in_string) {
        if (b->escaped)
            b->escaped = false;
        else if (ch == '\\')
            b->escaped = true;
        else if (ch == '"')
            b->in_string = false;
        return 0;
    }
    switch (ch) {
    case '"':
        b->in_string = true;
        return 0;
    case '{':
    case '[':
    case '}':
    case ']':
        return scan__bracket(b, ch);
    case '\n':
        c->line++;
        return 0;
    default:
        return 0;
    }
}

#ifdef __SSE2__
/* Of the 64 bytes at p, a bit each (bit i: p[i]): the quotes, backslashes, newlines and
 * brackets ('{' and '[' differ in the 0x20 bit alone, as '}' and ']' do: two compares for four). */
typedef struct {
    uint64_t quotes, slashes, lines, brackets;
} scan__bits_t;

static scan__bits_t scan__bits(const char *p)
{
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), nl = _mm_set1_epi8('\n'),
                  lower = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'),
                  close = _mm_set1_epi8('}');
    scan__bits_t b = {0, 0, 0, 0};
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i folded = _mm_or_si128(v, lower);
        int shift = 16 * k;
        b.quotes |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << shift;
        b.slashes |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, slash)) << shift;
        b.lines |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) << shift;
        b.brackets |= (uint64_t)(unsigned)_mm_movemask_epi8(
                          _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)))
                      << shift;
    }
    return b;
}

/* Bit i set where an odd number of bits 0..i are: the bytes between an opening quote and its
 * closing one. */
static uint64_t scan__prefix_xor(uint64_t x)
{
    x ^= x << 1; /* six steps, written out: the compiler does not unroll the loop */
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    return x ^ (x << 32);
}

/* The set bits of x (a row's newline is rare: most blocks have none). */
static int scan__count(uint64_t x)
{
    int n = 0;
    for (; x != 0; x &= x - 1)
        n++;
    return n;
}

/* 64 bytes of a container at once, without a branch a quote (a fleet's rows are mostly short
 * strings): 1 when its last bracket closed in them (c->p past it), -1 not JSON, 0 on (c->p 64
 * further), 2 when they hold a backslash (left to the byte scan). */
static int scan__block(scan__box_t *b, sc_scan_t *c)
{
    scan__bits_t bits = scan__bits(c->p);
    if (bits.slashes != 0)
        return 2;
    uint64_t strings = scan__prefix_xor(bits.quotes) ^ (b->in_string ? ~0ull : 0);
    uint64_t lines = bits.lines & ~strings;
    uint64_t brackets = bits.brackets & ~strings;
    for (; brackets != 0; brackets &= brackets - 1) {
        int at = __builtin_ctzll(brackets);
        int step = scan__bracket(b, c->p[at]);
        if (step != 0) {
            uint64_t before = (1ull << at) - 1;
            c->line += scan__count(lines & before);
            c->p += at + 1;
            return step;
        }
    }
    c->line += scan__count(lines);
    b->in_string = strings >> 63;
    c->p += 64;
    return 0;
}
#endif

/* Past a container (c->p at its bracket): brackets matched, strings jumped over, newlines
 * counted; 64 bytes a step where no backslash is near, a byte a step elsewhere. */
static bool scan__container(sc_scan_t *c, int depth)
{
    scan__box_t b = {.depth = depth};
    for (;;) {
#ifdef __SSE2__
        while (!b.escaped && c->end - c->p >= 64) {
            int step = scan__block(&b, c);
            if (step == 1)
                return true;
            if (step < 0)
                return false;
            if (step == 2)
                break;
        }
#endif
        /* a byte at a time: to the end of the 64 that hold a backslash, or of the text */
        const char *stop = c->end - c->p > 64 ? c->p + 64 : c->end;
        if (c->p == c->end)
            return false;
        for (; c->p < stop; c->p++) {
            int step = scan__byte(&b, c, *c->p);
            if (step != 0) {
                c->p++;
                return step > 0;
            }
        }
    }
}

SCAN__INLINE bool scan__skip(sc_scan_t *c, int depth)
{
    scan__ws(c);
    if (c->p >= c->end || depth > 64)
        return false;
    if (*c->p == '"') {
        c->p++;
        return scan__string_end(c);
    }
    if (*c->p == '{' || *c->p == '[')
        return scan__container(c, depth);
    const char *from = c->p; /* a scalar: at least one byte (a NUL too), to a delimiter */
    c->p = scan__find(c->p, c->end, true);
    return c->p > from;
}

bool sc_scan_skip(sc_scan_t *c, int depth)
{
    return scan__skip(c, depth);
}

/* ---- a row's members peeked at: the compact rows scalecheck writes ({"k":v,...}) passed by
 * the inlined scans above ---- */
int sc_json_peek_texts(const char *text, size_t len, const char *const *keys, int nkeys,
                       char (*out)[SC_JSON_PEEK_MAX])
{
    sc_scan_t c = {text, text + len, 1};
    int found = 0;
    size_t lens[16]; /* measured when a member's first byte is a wanted key's */
    if (nkeys > 16)
        return 0;
    for (int k = 0; k < nkeys; k++) {
        out[k][0] = '\0';
        lens[k] = SIZE_MAX;
    }
    if (len == 0 || *c.p++ != '{')
        return 0;
    for (bool first = true;; first = false) {
        scan__ws(&c);
        if (c.p >= c.end || *c.p == '}')
            return found;
        if (!first && *c.p++ != ',')
            return found;
        scan__ws(&c);
        const char *key = c.p + 1; /* compared where it is: no copy, a million rows */
        if (c.p >= c.end || *c.p++ != '"' || !scan__string_end(&c))
            return found;
        size_t klen = (size_t)(c.p - 1 - key);
        scan__ws(&c);
        if (c.p >= c.end || *c.p++ != ':')
            return found;
        scan__ws(&c);
        int k = 0;
        for (; k < nkeys; k++) {
            if (keys[k][0] != (klen > 0 ? key[0] : '\0'))
                continue;
            if (lens[k] == SIZE_MAX)
                lens[k] = strlen(keys[k]);
            if (lens[k] == klen && memcmp(keys[k], key, klen) == 0)
                break;
        }
        const char *from = c.p;
        if (!scan__skip(&c, 1))
            return found;
        if (k == nkeys || (size_t)(c.p - from) >= SC_JSON_PEEK_MAX)
            continue;
        memcpy(out[k], from, (size_t)(c.p - from));
        out[k][c.p - from] = '\0';
        if (++found == nkeys) /* the rest of the row is not wanted (a duplicate key neither) */
            return found;
    }
}

bool sc_json_peek_text(const char *text, size_t len, const char *key, char *out, size_t outlen)
{
    char v[1][SC_JSON_PEEK_MAX];
    const char *keys[] = {key};
    out[0] = '\0';
    if (outlen == 0 || sc_json_peek_texts(text, len, keys, 1, v) != 1)
        return false;
    if (v[0][0] != '"') { /* a number or a literal, as written */
        snprintf(out, outlen, "%s", v[0]);
        return true;
    }
    size_t n = 0; /* a string's bytes between its quotes, each escape's second byte kept */
    for (const char *c = v[0] + 1; c[0] != '\0' && c[1] != '\0' && n + 1 < outlen; c++) {
        if (*c == '\\')
            c++;
        out[n++] = *c;
    }
    out[n] = '\0';
    return true;
}
