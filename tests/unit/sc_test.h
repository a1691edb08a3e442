/* sc_test.h - a minimal assertion kit for the unit tests: each failed check prints both
 * operands with file and line, the test keeps going, and sc_test_done() gives the exit code. */
#ifndef SC_TEST_H
#define SC_TEST_H

#include <math.h>
#include <stdio.h>

static int sc_test_failures;
static int sc_test_checks;

#define SC_EXPECT(cond)                                                                            \
    do {                                                                                           \
        sc_test_checks++;                                                                          \
        if (!(cond)) {                                                                             \
            sc_test_failures++;                                                                    \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                    \
        }                                                                                          \
    } while (0)

#define SC_EXPECT_EQ_U64(a, b)                                                                     \
    do {                                                                                           \
        unsigned long long sc__a = (unsigned long long)(a), sc__b = (unsigned long long)(b);       \
        sc_test_checks++;                                                                          \
        if (sc__a != sc__b) {                                                                      \
            sc_test_failures++;                                                                    \
            fprintf(stderr, "%s:%d: %s == %s: %llu != %llu\n", __FILE__, __LINE__, #a, #b, sc__a,  \
                    sc__b);                                                                        \
        }                                                                                          \
    } while (0)

#define SC_EXPECT_NEAR(a, b, tol)                                                                  \
    do {                                                                                           \
        double sc__a = (a), sc__b = (b);                                                           \
        sc_test_checks++;                                                                          \
        if (!(fabs(sc__a - sc__b) <= (tol))) {                                                     \
            sc_test_failures++;                                                                    \
            fprintf(stderr, "%s:%d: %s ~= %s: %.10g vs %.10g (tol %g)\n", __FILE__, __LINE__, #a,  \
                    #b, sc__a, sc__b, (double)(tol));                                              \
        }                                                                                          \
    } while (0)

static inline int sc_test_done(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, sc_test_checks, sc_test_failures);
    return sc_test_failures ? 1 : 0;
}

#endif
