#include "sc_size.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/sc_numtext.h"

/* -1: unknown suffix; -2: "KB", "MB", "GB", "TB" (10^3k to some readers, 2^10k to others). */
static int size__suffix_shift(const char *suffix, unsigned *shift)
{
    static const struct {
        char letter;
        unsigned shift;
    } table[] = {{'\0', 0}, {'K', 10}, {'M', 20}, {'G', 30}, {'T', 40}};
    char letter = (char)toupper((unsigned char)suffix[0]);
    const char *rest = suffix[0] ? suffix + 1 : suffix;
    if (letter == 'B' && *rest == '\0') /* "8B" */
        letter = '\0';
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (table[i].letter != letter)
            continue;
        if (letter != '\0' && strcasecmp(rest, "B") == 0)
            return -2;
        if (letter != '\0' && *rest != '\0' && strcasecmp(rest, "iB") != 0)
            return -1;
        *shift = table[i].shift;
        return 0;
    }
    return -1;
}

sc_status_t sc_size_parse(const char *text, const char *what, uint64_t *bytes, sc_err_t *err)
{
    if (text == NULL || *text == '\0')
        return sc_err_set(err, SC_ERR_USAGE, "%s: empty size", what);
    if (!isdigit((unsigned char)text[0]))
        return sc_err_set(err, SC_ERR_USAGE,
                          "%s: '%s' is not a size (expected a number with an optional K/M/G "
                          "suffix, e.g. 64M)",
                          what, text);
    errno = 0;
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is too large", what, text);
    unsigned shift = 0;
    int known = size__suffix_shift(end, &shift);
    if (known == -2)
        return sc_err_set(
            err, SC_ERR_USAGE,
            "%s: '%s' is ambiguous (%s is a power of 1000 to some, of 1024 to others): write "
            "%llu%c or %llu%ciB for the binary size (as nccl-tests and OSU mean "
            "it), or the bytes in full",
            what, text, end, value, (char)toupper((unsigned char)end[0]), value,
            (char)toupper((unsigned char)end[0]));
    if (known != 0)
        return sc_err_set(err, SC_ERR_USAGE,
                          "%s: '%s' has an unknown suffix '%s' (use K, M, G or T)", what, text,
                          end);
    if (shift > 0 && value > (UINT64_MAX >> shift))
        return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is too large", what, text);
    *bytes = (uint64_t)value << shift;
    return SC_OK;
}

char *sc_size_format(uint64_t bytes, char *buf, size_t len)
{
    static const char suffixes[] = {'\0', 'K', 'M', 'G', 'T'};
    unsigned idx = 0;
    uint64_t whole = bytes;
    while (idx + 1 < sizeof(suffixes) && whole >= 1024 && whole % 1024 == 0) {
        whole /= 1024;
        idx++;
    }
    char text[32];
    int n = whole <= INT64_MAX ? sc_numtext_int((long long)whole, text)
                               : snprintf(text, sizeof(text), "%" PRIu64, whole);
    if (idx > 0)
        text[n++] = suffixes[idx];
    text[n] = '\0';
    sc_text_copy(buf, len, text);
    return buf;
}

bool sc_duration_parse(const char *text, double *seconds)
{
    char *end = NULL;
    double v = text != NULL ? strtod(text, &end) : 0;
    if (end == text || end == NULL)
        return false;
    double unit = *end == '\0' || !strcmp(end, "s") ? 1
                  : !strcmp(end, "m")               ? 60
                  : !strcmp(end, "h")               ? 3600
                  : !strcmp(end, "d")               ? 86400
                                                    : 0;
    *seconds = v * unit;
    return unit > 0 && v > 0 && *seconds < 1e9;
}
