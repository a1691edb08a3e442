/* The test-only fault switch (sc_test_fault.h): faults joined with commas are each found in any
 * order, a name is matched whole (not as the tail or head of another), and none is read when the
 * switch is unset. */
#include <stdlib.h>
#include <string.h>

#include "sc_test.h"
#include "util/sc_test_fault.h"

static int same(const char *got, const char *want)
{
    return got != NULL && want != NULL ? strcmp(got, want) == 0 : got == want;
}

int main(void)
{
    unsetenv("SCALECHECK_TEST_FAULT");
    SC_EXPECT(sc_test_fault("hang") == NULL);
    setenv("SCALECHECK_TEST_FAULT", "busy-looks:2,hang:1:4096,corrupt:3", 1);
    SC_EXPECT(same(sc_test_fault("hang"), "1:4096,corrupt:3"));
    SC_EXPECT(same(sc_test_fault("corrupt"), "3"));
    SC_EXPECT(same(sc_test_fault("busy-looks"), "2,hang:1:4096,corrupt:3"));
    SC_EXPECT(sc_test_fault("slow-first") == NULL);
    setenv("SCALECHECK_TEST_FAULT", "xhang:1:8,hangs:2:8", 1);
    SC_EXPECT(sc_test_fault("hang") == NULL); /* neither is "hang" */
    setenv("SCALECHECK_TEST_FAULT", ",corrupt", 1);
    SC_EXPECT(sc_test_fault("corrupt") == NULL); /* a name without arguments is not a fault */
    return sc_test_done("test_fault_switch");
}
