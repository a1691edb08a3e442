/* sc_test_fault.h - the test-only fault switch SCALECHECK_TEST_FAULT (docs/endings.md, "Test-only
 * fault switch"): a comma-separated list of NAME:ARGS, read in one place for the engine and pairs.
 */
#ifndef SC_TEST_FAULT_H
#define SC_TEST_FAULT_H

/* The arguments of fault `name` ("2:1024" of "corrupt:1,hang:2:1024" for "hang"), or NULL when
 * the switch does not name it. */
const char *sc_test_fault(const char *name);

#endif
