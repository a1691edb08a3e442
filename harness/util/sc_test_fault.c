/* sc_test_fault.c - the test-only fault switch's one reader (sc_test_fault.h). */
#include "util/sc_test_fault.h"

#include <stdlib.h>
#include <string.h>

const char *sc_test_fault(const char *name)
{
    const char *faults = getenv("SCALECHECK_TEST_FAULT");
    size_t len = strlen(name);
    for (const char *p = faults; p != NULL && *p != '\0'; p = strchr(p, ',')) {
        p += *p == ',';
        if (strncmp(p, name, len) == 0 && p[len] == ':')
            return p + len + 1;
    }
    return NULL;
}
