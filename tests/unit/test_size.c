/* Size parser: suffixes, bounds and the errors users see for bad sizes. */
#include <string.h>

#include "sc_test.h"
#include "util/sc_size.h"

static void expect_size(const char *text, unsigned long long want)
{
    uint64_t got = 0;
    sc_err_t err;
    SC_EXPECT(sc_size_parse(text, "-b", &got, &err) == SC_OK);
    SC_EXPECT_EQ_U64(got, want);
}

static void expect_error(const char *text, const char *fragment)
{
    uint64_t got = 0;
    sc_err_t err;
    sc_err_clear(&err);
    SC_EXPECT(sc_size_parse(text, "-e", &got, &err) == SC_ERR_USAGE);
    SC_EXPECT(strstr(err.msg, "-e") != NULL);
    SC_EXPECT(strstr(err.msg, fragment) != NULL);
    if (strstr(err.msg, fragment) == NULL)
        fprintf(stderr, "  message was: %s\n", err.msg);
}

int main(void)
{
    expect_size("8", 8);
    expect_size("0", 0);
    expect_size("1K", 1024);
    expect_size("1k", 1024);
    expect_size("64M", 64ull << 20);
    expect_size("64MiB", 64ull << 20);
    expect_size("2G", 2ull << 30);
    expect_size("3T", 3ull << 40);
    expect_size("16B", 16);
    expect_size("18446744073709551615", 18446744073709551615ull);

    expect_error("", "empty");
    expect_error("-5", "not a size");
    expect_error("abc", "not a size");
    expect_error("12X", "unknown suffix");
    expect_error("12MX", "unknown suffix");
    expect_error("64MB", "ambiguous");
    expect_error("1gb", "write 1G or 1GiB");
    expect_error("1.5M", "unknown suffix");
    expect_error("99999999999999999999", "too large");
    expect_error("17179869184G", "too large");

    char buf[32];
    SC_EXPECT(strcmp(sc_size_format(64ull << 20, buf, sizeof(buf)), "64M") == 0);
    SC_EXPECT(strcmp(sc_size_format(1536, buf, sizeof(buf)), "1536") == 0);
    SC_EXPECT(strcmp(sc_size_format(8, buf, sizeof(buf)), "8") == 0);
    SC_EXPECT(strcmp(sc_size_format(4096, buf, sizeof(buf)), "4K") == 0);
    return sc_test_done("test_size");
}
